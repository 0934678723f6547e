<?php
// Reads /page/{id}[?rows=R] the way hitcost-server's router does (server/router.cpp), so
// the same URL names the same key: the id is a decimal int64 (std::from_chars: an
// optional '-', leading zeros allowed, "-0" is 0), rows a decimal uint32 without sign,
// and the query's first `rows` wins, percent-decoded with '+' left as '+'.
// `?ns=NS` names the key namespace of this request (default HC_NAMESPACE): hitcost-load's
// sweep sends it when it measures this app while hitcost-server stores each strategy's
// values under a namespace of its own (`sweep --admin-url`).
declare(strict_types=1);

final class PageRequest
{
    public function __construct(public readonly int $id, public readonly int $rows,
                                public readonly string $namespace)
    {
    }

    public static function parse(string $idText, string $query, Config $cfg): self
    {
        $id = self::int64($idText);
        if ($id === null || $id < 0) throw new HttpError(400, 'bad page id: want a non-negative integer');
        if ($id > $cfg->maxId) throw new HttpError(404, 'page id out of range');
        $rows = $cfg->rows;
        $text = self::queryParam($query, 'rows');
        if ($text !== null) {
            $rows = preg_match('/^[0-9]+$/', $text) ? self::int64($text) : null;
            if ($rows === null || $rows > 4294967295 || $rows > $cfg->maxRows) {
                throw new HttpError(400, 'bad rows: want 0..' . $cfg->maxRows);
            }
        }
        return new self($id, $rows, self::namespaceOf($query, $cfg));
    }

    // ?ns=NS, else HC_NAMESPACE.
    public static function namespaceOf(string $query, Config $cfg): string
    {
        $ns = self::queryParam($query, 'ns') ?? $cfg->namespace;
        if (!preg_match('/^[\x21-\x7e]{1,120}$/', $ns)) {
            throw new HttpError(400, 'bad ns: want 1..120 printable bytes without spaces');
        }
        return $ns;
    }

    // null when the text is not exactly a decimal integer that fits in 64 bits.
    public static function int64(string $t): ?int
    {
        if (!preg_match('/^(-?)0*([0-9]+)$/', $t, $m)) return null;
        $digits = $m[2];
        $limit = $m[1] === '-' ? '9223372036854775808' : '9223372036854775807';
        if (strlen($digits) > 19 || (strlen($digits) === 19 && strcmp($digits, $limit) > 0)) return null;
        if ($m[1] === '-') return $digits === '9223372036854775808' ? PHP_INT_MIN : -(int)$digits;
        return (int)$digits;
    }

    public static function queryParam(string $query, string $name): ?string
    {
        foreach (explode('&', $query) as $part) {
            if ($part === '') continue;
            $eq = strpos($part, '=');
            if (($eq === false ? $part : substr($part, 0, $eq)) !== $name) continue;
            $raw = $eq === false ? '' : substr($part, $eq + 1);
            // %XX with two hex digits decodes; anything else (a lone '%', '+') stays as is.
            return preg_replace_callback('/%([0-9A-Fa-f]{2})/', fn ($h) => chr(hexdec($h[1])), $raw);
        }
        return null;
    }
}

// GET /value/{n}[?ns=NS&rep=html|struct]: n as hitcost-server's router reads it (a non-negative int64 up to
// its --max-id: the same 400 and 404), the namespace as for pages.
final class ValueRequest
{
    public function __construct(public readonly int $n, public readonly string $namespace,
                                public readonly bool $storedAsHtml)
    {
    }

    public static function parse(string $nText, string $query, Config $cfg): self
    {
        $n = PageRequest::int64($nText);
        if ($n === null || $n < 0) throw new HttpError(400, 'bad value number: want a non-negative integer');
        if ($n > $cfg->maxId) throw new HttpError(404, 'value number out of range');
        // ?rep=html|struct: how the values under this namespace were stored (HC_STORE_AS).
        $rep = PageRequest::queryParam($query, 'rep') ?? $cfg->storeAs;
        if ($rep !== 'html' && $rep !== 'struct') throw new HttpError(400, 'bad rep: want html or struct');
        return new self($n, PageRequest::namespaceOf($query, $cfg), $rep === 'html');
    }
}
