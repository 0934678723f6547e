<?php
// A cached value rendered as HTML, byte for byte what corpus/tree_html.cpp's render_tree_html
// appends (hitcost-server's GET /value/{n}): a list as <ol><li>, a map as <dl><dt><dd>, every
// string and string key escaped, numbers as the C++ writes them. PHP's arrays are the tree's
// model (corpus/value.h): an array whose keys are 0..n-1 in order (array_is_list, the empty
// one too) is a list, any other a map; "7" as a key is the int 7 in both.
declare(strict_types=1);

require_once __DIR__ . '/format.php';

final class NotAValue extends Exception
{
}

function hc_render_tree(mixed $v): string
{
    $out = '';
    hc_render_tree_into($v, $out);
    return $out;
}

function hc_render_tree_into(mixed $v, string &$out): void
{
    if ($v === null) return;
    if (is_bool($v)) {
        $out .= $v ? 'true' : 'false';
    } elseif (is_int($v)) {
        $out .= (string)$v;
    } elseif (is_float($v)) {
        $out .= hc_shortest_double($v);
    } elseif (is_string($v)) {
        $out .= hc_escape($v);
    } elseif (is_array($v) && array_is_list($v)) {
        $out .= '<ol>';
        foreach ($v as $item) {
            $out .= '<li>';
            hc_render_tree_into($item, $out);
            $out .= '</li>';
        }
        $out .= '</ol>';
    } elseif (is_array($v)) {
        $out .= '<dl>';
        foreach ($v as $key => $item) {
            $out .= '<dt>' . (is_int($key) ? (string)$key : hc_escape($key)) . '</dt><dd>';
            hc_render_tree_into($item, $out);
            $out .= '</dd>';
        }
        $out .= '</dl>';
    } else {
        throw new NotAValue(get_debug_type($v) . ' is not a value of the tree (an object?)');
    }
}
