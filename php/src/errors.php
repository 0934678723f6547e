<?php
// The failures a request can end in, each carrying the HTTP status it is answered with.
// Anything else that escapes is a bug and becomes a 500 in the front controller.
declare(strict_types=1);

class HttpError extends RuntimeException
{
    public function __construct(public readonly int $status, string $reason, public readonly array $headers = [])
    {
        parent::__construct($reason);
    }
}

// memcached did not answer (connect refused, timeout): the page cannot be looked up.
final class StoreUnavailable extends HttpError
{
    public function __construct(string $why)
    {
        parent::__construct(503, 'memcached unavailable: ' . $why);
    }
}

// A stored value the extension returned but that is not a page (wrong shape or types).
// Not an HttpError: like hitcost-server's decode errors it is answered as a miss.
final class BadPage extends RuntimeException
{
}
