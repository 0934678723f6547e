<?php
// Front controller: every request nginx receives comes here (scripts/php-stack.sh).
// Routes: GET /page/{id}[?rows=R], GET /value/{n} and GET /healthz; the rest is 404 "no such route".
// Errors are answered with a status and a one-line reason, never a PHP error page.
declare(strict_types=1);

$src = dirname(__DIR__) . '/src';
require_once "$src/errors.php";
require_once "$src/config.php";
require_once "$src/request.php";
require_once "$src/response.php";
require_once "$src/page_service.php";
require_once "$src/value_service.php";

// Warnings and notices (a refused connection, a bad stream) become exceptions that the
// code handling them turns into a status; deprecations (pecl/memcache's own dynamic
// property) are left to the log settings.
set_error_handler(static function (int $no, string $msg, string $file, int $line): bool {
    throw new ErrorException($msg, 0, $no, $file, $line);
}, E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);

// A fatal error (memory, timeout) cannot be caught: answer 500 if nothing was sent yet.
register_shutdown_function(static function (): void {
    $e = error_get_last();
    if ($e !== null && ($e['type'] & (E_ERROR | E_CORE_ERROR | E_COMPILE_ERROR)) && !headers_sent()) {
        while (ob_get_level() > 0) ob_end_clean();
        hc_send_error(500, 'internal error: ' . $e['message']);
    }
});

$uri = $_SERVER['REQUEST_URI'] ?? '/';
$q = strpos($uri, '?');
$path = $q === false ? $uri : substr($uri, 0, $q);
$query = $q === false ? '' : substr($uri, $q + 1);
$isGet = ($_SERVER['REQUEST_METHOD'] ?? '') === 'GET';

try {
    if (str_starts_with($path, '/page/')) {
        $method = $_SERVER['REQUEST_METHOD'] ?? '';
        if (!in_array($method, ['GET', 'PUT', 'DELETE'], true))
            throw new HttpError(405, 'method not allowed', ['Allow' => 'GET, PUT, DELETE']);
        $cfg = Config::fromEnv();
        $req = PageRequest::parse(substr($path, 6), $query, $cfg);
        if ($method === 'PUT') {
            hc_write_page($cfg, $req);
            hc_send(200, 'text/plain; charset=utf-8', '');
        } elseif ($method === 'DELETE') {
            hc_delete_page($cfg, $req);
            hc_send(200, 'text/plain; charset=utf-8', '');
        } else {
            $out = hc_serve_page($cfg, $req);
            hc_send(200, 'text/html; charset=utf-8', $out->html,
                ['X-Cache' => $out->hit ? 'hit' : 'miss', 'X-Cache-Key' => $out->key]);
        }
    } elseif (str_starts_with($path, '/value/')) {
        if (!$isGet) throw new HttpError(405, 'method not allowed', ['Allow' => 'GET']);
        $cfg = Config::fromEnv();
        $out = hc_serve_value($cfg, ValueRequest::parse(substr($path, 7), $query, $cfg));
        hc_send(200, 'text/html; charset=utf-8', $out->html,
            ['X-Cache' => $out->hit ? 'hit' : 'miss', 'X-Cache-Key' => $out->key]);
    } elseif ($path === '/healthz') {
        if (!$isGet) throw new HttpError(405, 'method not allowed', ['Allow' => 'GET']);
        Config::fromEnv();  // a stack started with a bad setting fails its health check
        hc_send(200, 'text/plain; charset=utf-8', "ok\n");
    } else {
        throw new HttpError(404, 'no such route');
    }
} catch (HttpError $e) {
    hc_send_error($e->status, $e->getMessage(), $e->headers);
} catch (Throwable $e) {
    error_log('hitcost php: ' . $e);
    hc_send_error(500, 'internal error: ' . $e->getMessage());
}
