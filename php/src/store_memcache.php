<?php
// pecl/memcache (the Memcache class): it unserializes (flag 0x1) and inflates (0x2) by
// itself; JSON and msgpack are strings under hitcost's user flags (FORMATS.md,
// codecs/flag_scheme.h) that the application decodes. The connection is persistent
// (pconnect), the object is per request as usual with this extension.
declare(strict_types=1);

final class MemcacheStore implements PageStore
{
    private const USER_JSON = 0x10000;
    private const USER_MSGPACK = 0x20000;

    private Memcache $m;

    public function __construct(private readonly Config $cfg)
    {
        $this->m = new Memcache();
        $timeoutS = max(1, intdiv($cfg->timeoutMs + 999, 1000));  // the extension counts whole seconds
        // Retry a failed server after 1 s (the default 15 s would answer 503 long after
        // memcached is back).
        $this->m->addServer($cfg->host, $cfg->port, true, 1, $timeoutS, 1);
    }

    public function get(string $key): mixed
    {
        $flags = 0;
        $v = $this->read($key, $flags);
        return ($flags & self::USER_MSGPACK) && !is_array($v) ? null : $v;  // a msgpack page is an array
    }

    public function getStored(string $key): ?StoredValue
    {
        $flags = 0;
        $v = $this->read($key, $flags);
        return $v === null ? null : new StoredValue($v);  // a stored null reads as a miss here
    }

    // The decoded value (JSON and msgpack by hitcost's user flags), null on a miss or an
    // undecodable value; $flags the stored flags.
    private function read(string $key, int &$flags): mixed
    {
        try {
            $v = $this->m->get($key, $flags);
        } catch (ErrorException $e) {
            // A notice: "Server ... failed with: ..." or "Failed to uncompress data" /
            // "Failed to unserialize data". Only the server's status tells them apart.
            $this->requireServerUp($e->getMessage());
            error_log("hitcost php: $key is undecodable ({$e->getMessage()}): answered as a miss");
            return null;
        }
        if ($v === false) {
            // A miss and a server marked failed (silent until its retry interval) look alike.
            $this->requireServerUp("server {$this->cfg->host}:{$this->cfg->port} marked failed");
            return null;
        }
        if (!is_string($v) || ($flags & (self::USER_JSON | self::USER_MSGPACK)) === 0) return $v;
        try {
            if ($flags & self::USER_JSON) return json_decode($v, true, 512, JSON_THROW_ON_ERROR);
            return msgpack_unpack($v);
        } catch (JsonException | ErrorException) {
            return null;  // undecodable: a miss, as hitcost-server counts a decode error
        }
    }

    private function requireServerUp(string $why): void
    {
        if ($this->m->getServerStatus($this->cfg->host, $this->cfg->port) === 0) throw new StoreUnavailable($why);
    }

    public function delete(string $key): ?string
    {
        // pecl memcache's delete is false for an absent key and for a server that is down alike.
        try {
            if ($this->m->delete($key)) return null;
        } catch (ErrorException $e) {
            return $e->getMessage();
        }
        return $this->m->getServerStatus($this->cfg->host, $this->cfg->port) === 0 ? 'memcached unavailable' : null;
    }

    public function set(string $key, array $page, string $html): ?string
    {
        $c = $this->cfg;
        // 'on': the extension's own rule (compress at the threshold, keep at min_savings);
        // 'always': MEMCACHE_COMPRESSED on every set, as an app passing the flag does.
        $this->m->setCompressThreshold($c->compression === 'on' ? ($c->threshold ?? 20000) : 0, $c->minSavings ?? 0.2);
        $flag = $c->compression === 'always' ? MEMCACHE_COMPRESSED : 0;
        [$value, $flag] = match (true) {
            $c->storeAs === 'html' => [$html, $flag],
            $c->serializer === 'json' => [json_encode($page, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES
                | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION), $flag | self::USER_JSON],
            $c->serializer === 'msgpack' => [msgpack_pack($page), $flag | self::USER_MSGPACK],
            default => [$page, $flag],  // php: the extension serialize()s an array
        };
        try {
            return $this->m->set($key, $value, $flag) ? null : 'set failed';
        } catch (ErrorException $e) {
            return $e->getMessage();
        }
    }
}
