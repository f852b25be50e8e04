<?php
// Loads Debian's Doctrine, Symfony Uid and the adapter users copy,
// examples/php/, and connects to the server the environment names
// (PGHOST, a socket directory or a host, PGPORT, PGUSER, PGDATABASE).

declare(strict_types=1);

require_once '/usr/share/php/Doctrine/DBAL/autoload.php';
require_once '/usr/share/php/Doctrine/ORM/autoload.php';
require_once '/usr/share/php/Symfony/Component/Uid/autoload.php';

$examples = dirname(__DIR__, 3) . '/examples/php';
require_once $examples . '/UlidType.php';
require_once $examples . '/UlidGenerator.php';
require_once $examples . '/Order.php';

use Doctrine\DBAL\Connection;
use Doctrine\DBAL\DriverManager;

function pg_env(string $name): string
{
    $value = getenv($name);
    if ($value === false || $value === '') {
        throw new RuntimeException("$name is not set: run these tests through tests/clients/test_client_php.py");
    }

    return $value;
}

/** A DBAL connection, with nothing registered. */
function dbal(): Connection
{
    return DriverManager::getConnection([
        'driver' => 'pdo_pgsql',
        'host' => pg_env('PGHOST'),
        'port' => (int) pg_env('PGPORT'),
        'user' => pg_env('PGUSER'),
        'dbname' => pg_env('PGDATABASE'),
    ]);
}

/** A plain PDO connection that throws on errors. */
function pdo(): PDO
{
    $dsn = sprintf('pgsql:host=%s;port=%s;dbname=%s', pg_env('PGHOST'), pg_env('PGPORT'), pg_env('PGDATABASE'));

    return new PDO($dsn, pg_env('PGUSER'), null, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
}

/** bytea comes out of PDO pgsql as a stream; read it from its start. */
function bytes($value): string
{
    return is_resource($value) ? stream_get_contents($value, -1, 0) : $value;
}
