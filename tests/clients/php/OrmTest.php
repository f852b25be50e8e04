<?php
// Doctrine ORM 2 with the adapter: an entity whose ulid id the server
// makes, persisted, found by id and ordered by it.

declare(strict_types=1);

use App\Doctrine\UlidType;
use App\Entity\Order;
use Doctrine\ORM\Configuration;
use Doctrine\ORM\EntityManager;
use Doctrine\ORM\Mapping\Driver\AttributeDriver;
use Doctrine\ORM\Tools\SchemaTool;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Uid\Ulid;

final class OrmTest extends TestCase
{
    private EntityManager $em;

    protected function setUp(): void
    {
        $conn = dbal();
        UlidType::register($conn);
        $config = new Configuration();
        $config->setMetadataDriverImpl(new AttributeDriver([dirname(__DIR__, 3) . '/examples/php']));
        $config->setProxyDir(pg_env('PHP_PROXY_DIR'));
        $config->setProxyNamespace('UlidTestProxies');
        $config->setAutoGenerateProxyClasses(true);
        $this->em = new EntityManager($conn, $config);
        $conn->executeStatement('DROP TABLE IF EXISTS orders');
        (new SchemaTool($this->em))->createSchema([$this->em->getClassMetadata(Order::class)]);
    }

    protected function tearDown(): void
    {
        $this->em->getConnection()->close();
    }

    public function testTheSchemaToolMakesTheServersDefault(): void
    {
        $conn = $this->em->getConnection();
        $this->assertSame('ulid', $conn->fetchOne("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'id'"));
        $this->assertSame('gen_monotonic_ulid()', $conn->fetchOne("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'orders'::regclass"));
        // a row written without the ORM gets its id from the default
        $conn->executeStatement('INSERT INTO orders (total) VALUES (1.00)');
        $this->assertSame(26, strlen($conn->fetchOne('SELECT id FROM orders')));
    }

    public function testPersistReadsBackTheGeneratedIdAndFindsIt(): void
    {
        $parent = new Ulid();
        $order = new Order('9.99', $parent);
        $this->em->persist($order);
        $this->em->flush();
        $id = $order->getId();
        $this->assertInstanceOf(Ulid::class, $id);
        $conn = $this->em->getConnection();
        $this->assertSame($id->toBase32(), $conn->fetchOne('SELECT id::text FROM orders'));
        $this->assertSame($parent->toBase32(), $conn->fetchOne('SELECT parent::text FROM orders'));

        $this->em->clear();
        $found = $this->em->find(Order::class, $id);
        $this->assertNotNull($found);
        $this->assertTrue($id->equals($found->getId()));
        $this->assertSame('9.99', $found->getTotal());
        $this->assertTrue($parent->equals($found->getParent()));
        $this->em->clear();
        $byText = $this->em->getRepository(Order::class)->findOneBy(['id' => $id->toBase32()]);
        $this->assertTrue($id->equals($byText->getId()));
        $this->assertNull($this->em->find(Order::class, new Ulid()));
    }

    public function testIdsSortInTheOrderTheyWereMade(): void
    {
        $made = [];
        for ($i = 0; $i < 50; $i++) {
            $order = new Order(sprintf('%d.00', $i));
            $this->em->persist($order);
            $this->em->flush();
            $made[] = $order->getId()->toBase32();
        }
        $sorted = $made;
        sort($sorted, SORT_STRING);
        $this->assertSame($sorted, $made);
        $this->em->clear();
        $read = $this->em->createQuery('SELECT o FROM App\Entity\Order o ORDER BY o.id')->getResult();
        $this->assertSame($made, array_map(fn (Order $o) => $o->getId()->toBase32(), $read));
        $totals = array_map(fn (Order $o) => $o->getTotal(), $read);
        $this->assertSame(array_map(fn ($i) => sprintf('%d.00', $i), range(0, 49)), $totals);
        // a range of ids in DQL, bound through the type
        $some = $this->em->createQuery('SELECT o FROM App\Entity\Order o WHERE o.id > :after ORDER BY o.id DESC')
            ->setParameter('after', new Ulid($made[44]), 'ulid')->getResult();
        $this->assertSame(array_reverse(array_slice($made, 45)), array_map(fn (Order $o) => $o->getId()->toBase32(), $some));
    }
}
