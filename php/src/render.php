<?php
// PHP port of codecs/renderer.cpp: the same template, byte for byte. The page array is
// whatever the extension decoded, so every field is type-checked on the way (a wrong
// shape is BadPage, answered as a miss like hitcost-server's decode errors).
declare(strict_types=1);

require_once __DIR__ . '/format.php';

function hc_render_page(array $page): string
{
    $id = $page['id'] ?? null;
    $title = $page['title'] ?? null;
    $rows = $page['rows'] ?? null;
    if (!is_int($id) || !is_string($title) || !is_array($rows) || !array_is_list($rows)) {
        throw new BadPage('a page needs int id, string title and a list of rows');
    }
    $n = count($rows);
    $t = hc_escape($title);
    $out = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>$t</title>\n"
        . "</head>\n<body>\n<h1>$t</h1>\n<p class=\"meta\">Page $id &middot; $n" . ($n === 1 ? ' item' : ' items')
        . "</p>\n<table>\n<thead><tr><th>Title</th><th>Author</th><th>Tags</th><th>Price</th>"
        . "<th>Created</th><th>Excerpt</th></tr></thead>\n<tbody>\n";
    foreach ($rows as $r) {
        if (!is_array($r) || !is_int($r['id'] ?? null) || !is_string($r['title'] ?? null)
            || !is_string($r['author'] ?? null) || !is_array($r['tags'] ?? null) || !array_is_list($r['tags'])
            || !is_int($r['created'] ?? null) || !is_string($r['excerpt'] ?? null) || !is_string($r['url'] ?? null)) {
            throw new BadPage('a row needs int id and created, string title, author, excerpt, url and a tag list');
        }
        $price = $r['price'] ?? null;  // a PHP app may store a whole price as an int
        if (!(is_float($price) && is_finite($price)) && !is_int($price)) throw new BadPage('a price must be a finite number');
        $tags = '';
        foreach ($r['tags'] as $tag) {
            if (!is_string($tag)) throw new BadPage('a tag must be a string');
            $tags .= '<li>' . hc_escape($tag) . '</li>';
        }
        [$iso, $date] = hc_iso($r['created']);
        $out .= '<tr id="r' . $r['id'] . '"><td><a href="' . hc_escape($r['url']) . '">' . hc_escape($r['title'])
            . '</a></td><td>' . hc_escape($r['author']) . '</td><td><ul>' . $tags
            . '</ul></td><td class="price">' . hc_price((float)$price) . '</td><td><time datetime="' . $iso . '">'
            . $date . '</time></td><td>' . hc_escape($r['excerpt']) . "</td></tr>\n";
    }
    return $out . "</tbody>\n</table>\n</body>\n</html>\n";
}
