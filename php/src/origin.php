<?php
// The backend a miss falls through to: hitcost-server's GET /data/{id}?rows=R, the page
// data as JSON (exactly what its /page renders), and its GET /value/{n}, the rendered value.
declare(strict_types=1);

function hc_origin_page(Config $cfg, int $id, int $rows): array
{
    $body = hc_origin_get($cfg, "/data/$id?rows=$rows");
    try {
        $page = json_decode($body, true, 64, JSON_THROW_ON_ERROR);
    } catch (JsonException $e) {
        throw new HttpError(500, 'origin sent bad JSON: ' . $e->getMessage());
    }
    if (!is_array($page)) throw new HttpError(500, 'origin sent JSON that is not a page');
    return $page;
}

// GET /value/{n} on a miss: hitcost-server's own rendering of value n (it holds the corpus).
function hc_origin_value(Config $cfg, int $n): string
{
    return hc_origin_get($cfg, "/value/$n");
}

// The origin's 200 body for `path`; its 400/404 passed on with its reason, anything else a 503.
function hc_origin_get(Config $cfg, string $path): string
{
    $url = $cfg->origin . $path;
    $ctx = stream_context_create(['http' => [
        'timeout' => $cfg->originTimeoutS,
        'ignore_errors' => true,  // a 4xx/5xx body is the origin's reason: read it
        'header' => "Connection: close\r\n",
    ]]);
    try {
        $body = file_get_contents($url, false, $ctx);
    } catch (ErrorException $e) {  // connect refused, timeout (the error handler throws)
        throw new HttpError(503, 'origin unreachable: ' . hc_origin_reason($e->getMessage()));
    }
    $statusLine = $http_response_header[0] ?? '';
    if ($body === false || !preg_match('#^HTTP/\S+ (\d{3})#', $statusLine, $m)) {
        throw new HttpError(503, "origin unreachable: no HTTP answer from $url");
    }
    $status = (int)$m[1];
    if ($status === 400 || $status === 404) {  // it judged the request: pass its verdict on
        throw new HttpError($status, 'origin: ' . trim($body));
    }
    if ($status !== 200) throw new HttpError(503, "origin answered $status: " . trim(substr($body, 0, 200)));
    return $body;
}

// "file_get_contents(http://...): Failed to open stream: Connection refused" -> the cause.
function hc_origin_reason(string $message): string
{
    $at = strrpos($message, ': ');
    return $at === false ? $message : substr($message, $at + 2);
}
