<?php
// GET /value/{n}: hitcost-server's /value route (server/value_service.h) read by PHP. A hit is
// the stored value decoded by the extension from its flags and rendered by hc_render_tree, or,
// when the values were stored as rendered HTML (`?rep=html`, which hitcost-load's sweep sends
// with `--admin-url`; HC_STORE_AS otherwise), served as it is, exactly as hitcost-server does.
// The application knows which it stored: php-memcached hands back a string without saying
// whether it was a page or a serialized string (GET_EXTENDED's flags are the user's 16 bits).
// A miss, or a value the extension cannot decode, is answered from the origin (hitcost-server's
// own GET /value/{n}, which holds the corpus); nothing is stored: hitcost-server writes the
// values (`sweep --admin-url`, `POST /admin/warm?values=1`).
declare(strict_types=1);

require_once __DIR__ . '/origin.php';
require_once __DIR__ . '/page_service.php';
require_once __DIR__ . '/store.php';
require_once __DIR__ . '/tree_render.php';

function hc_value_key(string $namespace, int $n): string
{
    return "hc:$namespace:v$n";
}

function hc_serve_value(Config $cfg, ValueRequest $req): PageOutcome
{
    $key = hc_value_key($req->namespace, $req->n);
    $stored = hc_open_store($cfg)->getStored($key);
    if ($stored !== null) {
        if ($req->storedAsHtml && is_string($stored->value)) return new PageOutcome($stored->value, true, $key);
        try {
            return new PageOutcome(hc_render_tree($stored->value), true, $key);
        } catch (NotAValue $e) {
            error_log("hitcost php: $key holds no value tree ({$e->getMessage()}): answered as a miss");
        }
    }
    return new PageOutcome(hc_origin_value($cfg, $req->n), false, $key);
}
