<?php
// A Doctrine ORM 2 id generator that asks the server for the id:
// gen_monotonic_ulid(), in the connection's session, so ids a session
// makes sort in the order it made them. ORM 2 reads a generated id back
// only through lastInsertId() (IDENTITY) or before the INSERT (SEQUENCE,
// CUSTOM); a ulid is not a sequence's value, so the generator runs first,
// one SELECT per new entity, as a sequence would.

declare(strict_types=1);

namespace App\Doctrine;

use Doctrine\ORM\EntityManagerInterface;
use Doctrine\ORM\Id\AbstractIdGenerator;
use Symfony\Component\Uid\Ulid;

final class UlidGenerator extends AbstractIdGenerator
{
    public function generateId(EntityManagerInterface $em, $entity): Ulid
    {
        return new Ulid($em->getConnection()->fetchOne('SELECT gen_monotonic_ulid()'));
    }
}
