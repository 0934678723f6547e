<?php
// GET /page/{id}: hitcost-server's hit/miss logic (server/page_service.cpp); PUT and DELETE
// /page/{id}: a replayed trace's writes and invalidations (server/router.cpp's page_write). A hit is the
// stored value served as is (a string: the rendered page) or rendered (an array: page
// data); anything else, undecodable values included, is a miss: origin, render, store.
declare(strict_types=1);

require_once __DIR__ . '/origin.php';
require_once __DIR__ . '/render.php';
require_once __DIR__ . '/store.php';

final class PageOutcome
{
    public function __construct(public readonly string $html, public readonly bool $hit, public readonly string $key)
    {
    }
}

function hc_key(string $namespace, int $id, int $rows): string
{
    return "hc:$namespace:p$id:r$rows";
}

function hc_serve_page(Config $cfg, PageRequest $req): PageOutcome
{
    $key = hc_key($req->namespace, $req->id, $req->rows);
    $store = hc_open_store($cfg);
    $value = $store->get($key);
    if (is_string($value)) return new PageOutcome($value, true, $key);
    if (is_array($value)) {
        try {
            return new PageOutcome(hc_render_page($value), true, $key);
        } catch (BadPage $e) {
            error_log("hitcost php: $key holds no page ({$e->getMessage()}): answered as a miss");
        }
    }
    $page = hc_origin_page($cfg, $req->id, $req->rows);
    try {
        $html = hc_render_page($page);
    } catch (BadPage $e) {
        throw new HttpError(500, 'origin sent data that is not a page: ' . $e->getMessage());
    }
    // A failed set still serves the page (hitcost-server counts it and does the same).
    $err = $store->set($key, $page, $html);
    if ($err !== null) error_log("hitcost php: set $key failed: $err");
    return new PageOutcome($html, false, $key);
}

// PUT /page/{id}: the page rendered from the origin and stored, as a miss stores it; a failed
// set is a 503 with the extension's reason.
function hc_write_page(Config $cfg, PageRequest $req): void
{
    $key = hc_key($req->namespace, $req->id, $req->rows);
    $page = hc_origin_page($cfg, $req->id, $req->rows);
    $err = hc_open_store($cfg)->set($key, $page, hc_render_page($page));
    if ($err !== null) throw new HttpError(503, "store write failed: $err");
}

// DELETE /page/{id}: the key removed (absent already is no error).
function hc_delete_page(Config $cfg, PageRequest $req): void
{
    $err = hc_open_store($cfg)->delete(hc_key($req->namespace, $req->id, $req->rows));
    if ($err !== null) throw new HttpError(503, "store remove failed: $err");
}
