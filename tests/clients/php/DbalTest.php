<?php
// Doctrine DBAL 3 with the adapter's type: the schema manager needs the
// platform's mapping of `ulid`; with it, Ulid objects go in and come out.

declare(strict_types=1);

use App\Doctrine\UlidType;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\Exception as DbalException;
use Doctrine\DBAL\Exception\DriverException;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Uid\Ulid;

final class DbalTest extends TestCase
{
    private Connection $conn;

    protected function setUp(): void
    {
        $this->conn = dbal();
        $this->conn->executeStatement('DROP TABLE IF EXISTS dbal_t');
        $this->conn->executeStatement('CREATE TABLE dbal_t (n int PRIMARY KEY, id ulid, parent ulid)');
    }

    protected function tearDown(): void
    {
        $this->conn->close();
    }

    public function testReadingTheSchemaWithoutTheMappingFails(): void
    {
        try {
            $this->conn->createSchemaManager()->introspectTable('dbal_t');
            $this->fail('the schema was read without a mapping of ulid');
        } catch (DbalException $e) {
            $this->assertSame(
                'Unknown database type ulid requested, ' . get_class($this->conn->getDatabasePlatform())
                    . ' may not support it.',
                $e->getMessage()
            );
        }
    }

    public function testWithTheMappingTheSchemaHasUlidColumns(): void
    {
        UlidType::register($this->conn);
        $table = $this->conn->createSchemaManager()->introspectTable('dbal_t');
        $this->assertInstanceOf(UlidType::class, $table->getColumn('id')->getType());
        $this->assertInstanceOf(UlidType::class, $table->getColumn('parent')->getType());
        $this->assertSame('ulid', $table->getColumn('id')->getType()->getSQLDeclaration([], $this->conn->getDatabasePlatform()));
    }

    public function testUlidObjectsGoInAndComeOut(): void
    {
        UlidType::register($this->conn);
        $ulids = [new Ulid('00000000000000000000000000'), new Ulid('01JGFJJZ00XHF7E02JJ03AE4T7'), new Ulid('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')];
        for ($i = 0; $i < 200; $i++) {
            $ulids[] = new Ulid();
        }
        foreach ($ulids as $n => $ulid) {
            $this->conn->insert('dbal_t', ['n' => $n, 'id' => $ulid, 'parent' => null], ['integer', 'ulid', 'ulid']);
        }
        $type = UlidType::getType('ulid');
        $platform = $this->conn->getDatabasePlatform();
        $rows = $this->conn->fetchAllAssociative('SELECT n, id, id::text AS text, parent FROM dbal_t ORDER BY n');
        $this->assertCount(count($ulids), $rows);
        foreach ($rows as $row) {
            $read = $type->convertToPHPValue($row['id'], $platform);
            $this->assertInstanceOf(Ulid::class, $read);
            $this->assertTrue($ulids[$row['n']]->equals($read));
            $this->assertSame($ulids[$row['n']]->toBase32(), $row['text']);
            $this->assertSame(26, strlen($row['id']));
            $this->assertNull($type->convertToPHPValue($row['parent'], $platform));
        }
        // a Ulid parameter finds its row; the server's order is the ULIDs' order
        $n = $this->conn->fetchOne('SELECT n FROM dbal_t WHERE id = ?', [$ulids[1]], ['ulid']);
        $this->assertSame(1, $n);
        $sorted = $ulids;
        usort($sorted, fn (Ulid $a, Ulid $b) => strcmp($a->toBase32(), $b->toBase32()));
        $ordered = $this->conn->fetchFirstColumn('SELECT id FROM dbal_t ORDER BY id');
        $this->assertSame(array_map(fn (Ulid $u) => $u->toBase32(), $sorted), $ordered);
    }

    public function testAStringParameterIsReadByTheServer(): void
    {
        UlidType::register($this->conn);
        $this->conn->insert('dbal_t', ['n' => 1, 'id' => '01jgfjjz00xhf7e02jj03ae4t7'], ['integer', 'ulid']);
        $this->assertSame('01JGFJJZ00XHF7E02JJ03AE4T7', $this->conn->fetchOne('SELECT id FROM dbal_t'));
        try {
            $this->conn->insert('dbal_t', ['n' => 2, 'id' => '01JGFJJZ00XHF7E02JJ03AE4TU'], ['integer', 'ulid']);
            $this->fail('the server took a U');
        } catch (DriverException $e) {
            $this->assertSame('22P02', $e->getSQLState());
            $this->assertStringContainsString('invalid input syntax for type ulid: "01JGFJJZ00XHF7E02JJ03AE4TU"', $e->getMessage());
        }
    }
}
