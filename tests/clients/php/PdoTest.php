<?php
// PDO pgsql alone, no adapter: it sends a string parameter as text and
// reads results as text, so a ulid is its 26-character text; the server
// checks what is sent.

declare(strict_types=1);

use PHPUnit\Framework\TestCase;

final class PdoTest extends TestCase
{
    private const VALUES = ['00000000000000000000000000', '01JGFJJZ00XHF7E02JJ03AE4T7', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'];

    private PDO $pdo;

    protected function setUp(): void
    {
        $this->pdo = pdo();
        $this->assertFalse((bool) $this->pdo->getAttribute(PDO::ATTR_EMULATE_PREPARES));
        $this->pdo->exec('DROP TABLE IF EXISTS pdo_t');
        $this->pdo->exec('CREATE TABLE pdo_t (n int PRIMARY KEY, id ulid)');
    }

    public function testPreparedStatementsRoundTripTheText(): void
    {
        $insert = $this->pdo->prepare('INSERT INTO pdo_t (n, id) VALUES (?, ?)');
        foreach (self::VALUES as $n => $value) {
            $insert->execute([$n, $value]);
        }
        // lower case in, canonical out
        $insert->execute([3, '01jgfjjz00xhf7e02jj03ae4t8']);
        $rows = $this->pdo->query('SELECT n, id FROM pdo_t ORDER BY n')->fetchAll(PDO::FETCH_NUM);
        $this->assertSame([[0, self::VALUES[0]], [1, self::VALUES[1]], [2, self::VALUES[2]], [3, '01JGFJJZ00XHF7E02JJ03AE4T8']], $rows);

        $find = $this->pdo->prepare('SELECT n FROM pdo_t WHERE id = ?');
        $find->bindValue(1, self::VALUES[1], PDO::PARAM_STR);
        $find->execute();
        $this->assertSame(1, $find->fetchColumn());
        // the server's order is the text's order
        $this->assertSame([0, 1, 3, 2], $this->pdo->query('SELECT n FROM pdo_t ORDER BY id')->fetchAll(PDO::FETCH_COLUMN));
        $this->assertSame('ulid', $this->pdo->query('SELECT id FROM pdo_t')->getColumnMeta(0)['native_type']);
        // the server reads a uuid's text as the same 128 bits
        $insert->execute([4, '01941f29-7c00-ec5e-7700-529006a71347']);
        $this->assertSame(self::VALUES[1], $this->pdo->query('SELECT id FROM pdo_t WHERE n = 4')->fetchColumn());
    }

    public function testGeneratedIdsComeBackThroughReturning(): void
    {
        $this->pdo->exec('ALTER TABLE pdo_t ALTER id SET DEFAULT gen_monotonic_ulid()');
        $insert = $this->pdo->prepare('INSERT INTO pdo_t (n) VALUES (?) RETURNING id');
        $ids = [];
        for ($n = 0; $n < 20; $n++) {
            $insert->execute([$n]);
            $ids[] = $insert->fetchColumn();
        }
        $this->assertMatchesRegularExpression('/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/', $ids[0]);
        $sorted = $ids;
        sort($sorted, SORT_STRING);
        $this->assertSame($sorted, $ids);
        $this->assertSame($ids, $this->pdo->query('SELECT id FROM pdo_t ORDER BY id')->fetchAll(PDO::FETCH_COLUMN));
    }

    /** @dataProvider wrongTexts */
    public function testAWrongTextIsTheServersError(string $wrong): void
    {
        $insert = $this->pdo->prepare('INSERT INTO pdo_t (n, id) VALUES (1, ?)');
        try {
            $insert->execute([$wrong]);
            $this->fail("the server took $wrong");
        } catch (PDOException $e) {
            $this->assertSame('22P02', $e->getCode());
            $this->assertStringContainsString(
                'SQLSTATE[22P02]: Invalid text representation: 7 ERROR:  invalid input syntax for type ulid: "' . $wrong . '"',
                $e->getMessage()
            );
        }
        $this->assertSame(0, $this->pdo->query('SELECT count(*) FROM pdo_t')->fetchColumn());
    }

    public function wrongTexts(): array
    {
        return [
            'a U, which Crockford base32 has not' => ['01JGFJJZ00XHF7E02JJ03AE4TU'],
            'one character short' => ['01JGFJJZ00XHF7E02JJ03AE4T'],
            'more than 128 bits' => ['80000000000000000000000000'],
            'an empty string' => [''],
        ];
    }
}
