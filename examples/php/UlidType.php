<?php
// A Doctrine DBAL 3 type for PostgreSQL's ulid: Symfony's Ulid in PHP, the
// 26-character text on the wire (PDO pgsql sends a string parameter as
// text and asks for every result in text format).
//
// Register it once per connection, before the first schema read:
//     UlidType::register($connection);
// which adds the type to DBAL and maps the database type `ulid` to it, so
// that the schema manager and the ORM's schema tool know the column.

declare(strict_types=1);

namespace App\Doctrine;

use Doctrine\DBAL\Connection;
use Doctrine\DBAL\Platforms\AbstractPlatform;
use Doctrine\DBAL\Types\ConversionException;
use Doctrine\DBAL\Types\Type;
use Symfony\Component\Uid\Ulid;

final class UlidType extends Type
{
    public const NAME = 'ulid';

    public static function register(Connection $connection): void
    {
        if (!Type::hasType(self::NAME)) {
            Type::addType(self::NAME, self::class);
        }
        // the mapping is the platform's, one per connection: without it, a
        // schema read fails with "Unknown database type ulid requested"
        $connection->getDatabasePlatform()->registerDoctrineTypeMapping('ulid', self::NAME);
    }

    public function getName(): string
    {
        return self::NAME;
    }

    public function getSQLDeclaration(array $column, AbstractPlatform $platform): string
    {
        return 'ulid';
    }

    public function convertToPHPValue($value, AbstractPlatform $platform): ?Ulid
    {
        if ($value === null || $value instanceof Ulid) {
            return $value;
        }
        if (!is_string($value) || !Ulid::isValid($value)) {
            throw ConversionException::conversionFailed($value, self::NAME);
        }

        return new Ulid($value);
    }

    public function convertToDatabaseValue($value, AbstractPlatform $platform): ?string
    {
        if ($value === null) {
            return null;
        }
        if ($value instanceof Ulid) {
            return $value->toBase32();
        }
        if (is_string($value)) {
            // any spelling the server reads (lower case too); it refuses the rest
            return $value;
        }
        throw ConversionException::conversionFailedInvalidType($value, self::NAME, ['null', 'string', Ulid::class]);
    }

    public function requiresSQLCommentHint(AbstractPlatform $platform): bool
    {
        return false;
    }
}
