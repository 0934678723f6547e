<?php
// Configuration from the environment (php-fpm pool `env[...]` lines written by
// scripts/php-stack.sh). Defaults are hitcost-server's (server/server_options.h) and the
// stock Debian extension settings, so an unconfigured app reads and writes what a default
// hitcost-server does. A bad value is a 500 naming it, never a guess.
declare(strict_types=1);

final class Config
{
    public string $host;
    public int $port;
    public string $extension;     // memcached (php-memcached flag scheme) | memcache (php-memcache)
    public string $namespace;
    public int $rows;
    public int $maxRows;
    public int $maxId;
    public string $origin;        // base URL of hitcost-server's /data/{id}
    public string $storeAs;       // struct: the array | html: the rendered page
    public string $serializer;    // php | igbinary | json | msgpack
    public string $compression;   // off | on (extension's rule) | always (php-memcache's MEMCACHE_COMPRESSED)
    public string $compressionType;  // fastlz | zlib
    public ?int $threshold;       // null: the extension's default
    public ?float $factor;        // php-memcached's compression_factor
    public ?float $minSavings;    // php-memcache's min_compress_savings
    public int $timeoutMs;        // memcached connect/poll timeout
    public float $originTimeoutS;

    public static function fromEnv(): self
    {
        $c = new self();
        [$c->host, $c->port] = self::hostPort(self::env('HC_MEMCACHED', '127.0.0.1:11211'));
        $c->extension = self::oneOf('HC_EXTENSION', 'memcached', ['memcached', 'memcache']);
        $c->namespace = self::env('HC_NAMESPACE', 'v1');
        if (!preg_match('/^[\x21-\x7e]{1,120}$/', $c->namespace)) {
            self::bad('HC_NAMESPACE', 'must be 1..120 printable bytes without spaces');
        }
        $c->rows = self::int('HC_ROWS', 50, 0, 4294967295);
        $c->maxRows = self::int('HC_MAX_ROWS', 10000, 0, 4294967295);
        $c->maxId = self::int('HC_MAX_ID', 1000000000000, 0, PHP_INT_MAX);
        $c->origin = rtrim(self::env('HC_ORIGIN', 'http://127.0.0.1:8080'), '/');
        if (!preg_match('#^http://[^/?\#]+$#', $c->origin)) self::bad('HC_ORIGIN', 'want http://HOST:PORT');
        $c->storeAs = self::oneOf('HC_STORE_AS', 'struct', ['struct', 'html']);
        $c->serializer = self::oneOf('HC_SERIALIZER', 'php', ['php', 'igbinary', 'json', 'msgpack']);
        $c->compression = self::oneOf('HC_COMPRESSION', 'on', ['off', 'on', 'always']);
        // php-memcached's default is FastLZ; pecl/memcache knows zlib only.
        $c->compressionType = self::oneOf('HC_COMPRESSION_TYPE', $c->extension === 'memcache' ? 'zlib' : 'fastlz',
            ['fastlz', 'zlib']);
        $c->threshold = self::optional('HC_COMPRESS_THRESHOLD', fn () => self::int('HC_COMPRESS_THRESHOLD', 0, 0, PHP_INT_MAX));
        $c->factor = self::optional('HC_COMPRESS_FACTOR', fn () => self::float('HC_COMPRESS_FACTOR', 1.0, 100.0));
        $c->minSavings = self::optional('HC_COMPRESS_MIN_SAVINGS', fn () => self::float('HC_COMPRESS_MIN_SAVINGS', 0.0, 1.0));
        $c->timeoutMs = self::int('HC_TIMEOUT_MS', 1000, 1, 60000);
        $c->originTimeoutS = self::int('HC_ORIGIN_TIMEOUT_MS', 5000, 1, 600000) / 1000.0;

        // What the chosen extension cannot express (FORMATS.md): refuse it instead of
        // writing values hitcost would read differently.
        if ($c->extension === 'memcache') {
            if ($c->serializer === 'igbinary' && $c->storeAs === 'struct') {
                self::bad('HC_SERIALIZER', 'php-memcache has no flag for igbinary');
            }
            if ($c->compressionType !== 'zlib') self::bad('HC_COMPRESSION_TYPE', 'php-memcache compresses with zlib only');
        } elseif ($c->compression === 'always') {
            self::bad('HC_COMPRESSION', "'always' is php-memcache's per-set flag; php-memcached knows on|off");
        }
        return $c;
    }

    // Persistent Memcached objects live per worker under an id. The id names what the
    // object is set up with once (server, timeouts), so a changed setting gets a new one.
    public function persistentId(): string
    {
        return 'hitcost-' . hash('crc32b', implode('|', [$this->host, $this->port, $this->timeoutMs]));
    }

    private static function env(string $name, string $default): string
    {
        $v = getenv($name);
        return $v === false || $v === '' ? $default : $v;
    }

    private static function oneOf(string $name, string $default, array $allowed): string
    {
        $v = self::env($name, $default);
        if (!in_array($v, $allowed, true)) self::bad($name, "'$v' is not one of " . implode('|', $allowed));
        return $v;
    }

    private static function int(string $name, int $default, int $min, int $max): int
    {
        $v = self::env($name, (string)$default);
        $i = filter_var($v, FILTER_VALIDATE_INT, ['options' => ['min_range' => $min, 'max_range' => $max]]);
        if ($i === false) self::bad($name, "'$v' is not an integer in $min..$max");
        return $i;
    }

    private static function float(string $name, float $min, float $max): float
    {
        $v = self::env($name, '');
        if (!is_numeric($v) || (float)$v < $min || (float)$v > $max) self::bad($name, "'$v' is not a number in $min..$max");
        return (float)$v;
    }

    private static function optional(string $name, callable $read): mixed
    {
        return self::env($name, '') === '' ? null : $read();
    }

    private static function hostPort(string $v): array
    {
        if (!preg_match('/^([^:\s]+):([0-9]{1,5})$/', $v, $m) || (int)$m[2] < 1 || (int)$m[2] > 65535) {
            self::bad('HC_MEMCACHED', "'$v' is not HOST:PORT");
        }
        return [$m[1], (int)$m[2]];
    }

    private static function bad(string $name, string $why): never
    {
        throw new HttpError(500, "bad config: $name $why");
    }
}
