<?php
// The cache as the page service sees it: get a decoded value (null on a miss), set a page.
// One implementation per PHP extension, each storing with that extension's own encoding
// so hitcost-server reads the value under the matching flag scheme.
declare(strict_types=1);

interface PageStore
{
    // The decoded value (string: a rendered page, array: page data, anything else: not a
    // page), or null on a miss. A value the extension cannot decode is a miss too.
    // Throws StoreUnavailable when memcached does not answer.
    public function get(string $key): mixed;

    // Stores the page as configured (the array, or the rendered HTML). Returns an error
    // message, or null on success.
    public function set(string $key, array $page, string $html): ?string;

    // Removes the key (DELETE /page/{id}); absent already is no error. Returns an error message,
    // or null on success.
    public function delete(string $key): ?string;

    // The decoded value (GET /value/{n}), or null on a miss or a value the extension cannot
    // decode. Throws StoreUnavailable as get() does.
    public function getStored(string $key): ?StoredValue;
}

// A hit's value (null among them: a stored null is not a miss).
final class StoredValue
{
    public function __construct(public readonly mixed $value)
    {
    }
}

function hc_open_store(Config $cfg): PageStore
{
    if ($cfg->extension === 'memcache') {
        require_once __DIR__ . '/store_memcache.php';
        return new MemcacheStore($cfg);
    }
    require_once __DIR__ . '/store_memcached.php';
    return new MemcachedStore($cfg);
}
