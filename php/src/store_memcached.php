<?php
// php-memcached (the Memcached class): the extension picks the decoder from the flags.
// The object is persistent per php-fpm worker, so a hit costs a get, not a connect.
declare(strict_types=1);

final class MemcachedStore implements PageStore
{
    private const SERIALIZERS = [
        'php' => Memcached::SERIALIZER_PHP,
        'igbinary' => Memcached::SERIALIZER_IGBINARY,
        'json' => Memcached::SERIALIZER_JSON_ARRAY,
        'msgpack' => Memcached::SERIALIZER_MSGPACK,
    ];

    private Memcached $m;

    public function __construct(private readonly Config $cfg)
    {
        $this->m = new Memcached($cfg->persistentId());
        if ($this->m->getServerList()) return;  // set up by an earlier request of this worker
        // Reads use SERIALIZER_JSON_ARRAY whatever the write serializer: the extension
        // decodes a JSON (type 6) value by the reader's setting, and only this one gives
        // arrays rather than stdClass. Other types decode by their flags alone.
        $this->m->setOptions([
            Memcached::OPT_SERIALIZER => Memcached::SERIALIZER_JSON_ARRAY,
            Memcached::OPT_CONNECT_TIMEOUT => $cfg->timeoutMs,
            Memcached::OPT_POLL_TIMEOUT => $cfg->timeoutMs,
            Memcached::OPT_TCP_NODELAY => true,
        ]);
        $this->m->addServer($cfg->host, $cfg->port);
    }

    public function get(string $key): mixed
    {
        return $this->read($key)['value'] ?? null;
    }

    public function getStored(string $key): ?StoredValue
    {
        $r = $this->read($key);
        return $r === null ? null : new StoredValue($r['value']);
    }

    // ['value' => ...] (GET_EXTENDED: a stored false or null apart from a miss), or null.
    private function read(string $key): ?array
    {
        try {
            $r = $this->m->get($key, null, Memcached::GET_EXTENDED);
        } catch (ErrorException $e) {
            // "could not decompress value", "could not unserialize value": the extension
            // warns only about the value itself (a lost server is a result code).
            error_log("hitcost php: $key is undecodable ({$e->getMessage()}): answered as a miss");
            return null;
        }
        if (is_array($r)) return $r;
        $code = $this->m->getResultCode();
        if ($code === Memcached::RES_NOTFOUND || $code === Memcached::RES_PAYLOAD_FAILURE) return null;
        throw new StoreUnavailable($this->m->getResultMessage());
    }

    public function delete(string $key): ?string
    {
        if ($this->m->delete($key) || $this->m->getResultCode() === Memcached::RES_NOTFOUND) return null;
        return $this->m->getResultMessage();
    }

    public function set(string $key, array $page, string $html): ?string
    {
        $c = $this->cfg;
        $this->m->setOption(Memcached::OPT_COMPRESSION, $c->compression === 'on');
        $this->m->setOption(Memcached::OPT_COMPRESSION_TYPE,
            $c->compressionType === 'zlib' ? Memcached::COMPRESSION_ZLIB : Memcached::COMPRESSION_FASTLZ);
        // The rule's knobs are ini settings of the extension, read at set time.
        if ($c->threshold !== null) ini_set('memcached.compression_threshold', (string)$c->threshold);
        if ($c->factor !== null) ini_set('memcached.compression_factor', (string)$c->factor);
        if ($c->storeAs === 'html') {
            $ok = $this->m->set($key, $html);
        } else {
            $this->m->setOption(Memcached::OPT_SERIALIZER, self::SERIALIZERS[$c->serializer]);
            $ok = $this->m->set($key, $page);
            $this->m->setOption(Memcached::OPT_SERIALIZER, Memcached::SERIALIZER_JSON_ARRAY);
        }
        return $ok ? null : $this->m->getResultMessage();
    }
}
