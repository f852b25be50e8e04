<?php
// Symfony's Ulid and the server's ulid are the same 128 bits: the same
// 26-character text, the same 16 bytes, the same uuid. Its base32 text is
// a ulid's, not a uuid's: a uuid column refuses it.

declare(strict_types=1);

use App\Doctrine\UlidType;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\Exception\DriverException;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Uid\Ulid;

final class SymfonyUidTest extends TestCase
{
    private Connection $conn;

    protected function setUp(): void
    {
        $this->conn = dbal();
        UlidType::register($this->conn);
        $this->conn->executeStatement('DROP TABLE IF EXISTS uid_t');
        $this->conn->executeStatement('CREATE TABLE uid_t (n int PRIMARY KEY, id ulid, u uuid)');
    }

    protected function tearDown(): void
    {
        $this->conn->close();
    }

    public function testWrittenTheSameTextBytesAndUuid(): void
    {
        $ulids = [new Ulid('00000000000000000000000000'), new Ulid('01JGFJJZ00XHF7E02JJ03AE4T7'), new Ulid('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')];
        for ($i = 0; $i < 100; $i++) {
            $ulids[] = new Ulid();
        }
        foreach ($ulids as $n => $ulid) {
            $this->conn->insert('uid_t', ['n' => $n, 'id' => $ulid], ['integer', 'ulid']);
        }
        $rows = $this->conn->fetchAllNumeric('SELECT n, id::text, id::bytea, id::uuid::text FROM uid_t ORDER BY n');
        $this->assertCount(count($ulids), $rows);
        foreach ($rows as [$n, $text, $bytea, $uuid]) {
            $this->assertSame($ulids[$n]->toBase32(), $text);
            $this->assertSame(26, strlen($text));
            $this->assertSame($ulids[$n]->toBinary(), bytes($bytea));
            $this->assertSame(16, strlen($ulids[$n]->toBinary()));
            $this->assertSame($ulids[$n]->toRfc4122(), $uuid);
        }
        $this->assertSame('01941f29-7c00-ec5e-7700-529006a71347', $rows[1][3]);
    }

    public function testReadFromTheServersTextBytesAndUuid(): void
    {
        $this->conn->executeStatement('INSERT INTO uid_t (n, id) SELECT n, gen_monotonic_ulid() FROM generate_series(1, 100) n');
        $rows = $this->conn->fetchAllNumeric('SELECT id, id::text, id::bytea, id::uuid::text FROM uid_t ORDER BY n');
        $type = UlidType::getType('ulid');
        $previous = null;
        foreach ($rows as [$id, $text, $bytea, $uuid]) {
            $ulid = $type->convertToPHPValue($id, $this->conn->getDatabasePlatform());
            $this->assertSame($text, $ulid->toBase32());
            $this->assertTrue($ulid->equals(Ulid::fromBinary(bytes($bytea))));
            $this->assertTrue($ulid->equals(Ulid::fromRfc4122($uuid)));
            if ($previous !== null) {
                $this->assertSame(1, $ulid->compare($previous), 'gen_monotonic_ulid() ids sort as Symfony compares them');
            }
            $previous = $ulid;
        }
        // and written back as bytes and as a uuid, the same ulid
        [$id, , $bytea] = $rows[0];
        $this->assertSame($id, $this->conn->fetchOne("SELECT decode(?, 'hex')::ulid::text", [bin2hex(bytes($bytea))]));
        $this->assertSame($id, $this->conn->fetchOne('SELECT CAST(? AS uuid)::ulid::text', [(new Ulid($id))->toRfc4122()]));
    }

    public function testBase32TextIntoAUuidColumnFailsIntoUlidWorks(): void
    {
        $ulid = new Ulid('01JGFJJZ00XHF7E02JJ03AE4T7');
        try {
            $this->conn->insert('uid_t', ['n' => 1, 'u' => $ulid->toBase32()]);
            $this->fail('a uuid column took base32 text');
        } catch (DriverException $e) {
            $this->assertSame('22P02', $e->getSQLState());
            $this->assertStringContainsString('invalid input syntax for type uuid: "01JGFJJZ00XHF7E02JJ03AE4T7"', $e->getMessage());
        }
        // Symfony's own string form of a Ulid is the base32 text, the same failure
        try {
            $this->conn->insert('uid_t', ['n' => 1, 'u' => (string) $ulid]);
            $this->fail('a uuid column took (string) $ulid');
        } catch (DriverException $e) {
            $this->assertStringContainsString('invalid input syntax for type uuid', $e->getMessage());
        }
        $this->conn->insert('uid_t', ['n' => 1, 'id' => $ulid->toBase32(), 'u' => $ulid->toRfc4122()]);
        $this->assertSame([$ulid->toBase32(), '01941f29-7c00-ec5e-7700-529006a71347', true],
            $this->conn->fetchNumeric('SELECT id, u, id = u::ulid FROM uid_t'));
    }
}
