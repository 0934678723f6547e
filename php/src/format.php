<?php
// The renderer's text pieces, byte for byte what codecs/renderer.cpp appends: HTML
// escaping, prices in two decimals from integer cents, ISO dates from unix seconds.
declare(strict_types=1);

// & < > " ' -> entities, every other byte (UTF-8 or not) passed through. htmlspecialchars
// under a single-byte charset validates nothing; its &#039; becomes the renderer's &#39;
// (a literal "&#039;" in the text was already turned into "&amp;#039;").
function hc_escape(string $s): string
{
    return str_replace('&#039;', '&#39;', htmlspecialchars($s, ENT_QUOTES | ENT_HTML401, 'ISO-8859-1'));
}

// Two decimals from llround(price * 100): round half away from zero on the exact product.
// Neither round() nor number_format() will do: they pre-round to 15 digits, so 1.005
// (100.49999999999999 cents) would print 1.01 where hitcost prints 1.00.
function hc_price(float $price): string
{
    if (!(abs($price) < 1e15)) return hc_shortest_double($price);  // beyond exact cents
    $c = $price * 100.0;
    $a = abs($c);
    $whole = floor($a);
    if ($a - $whole >= 0.5) $whole += 1.0;  // exact: $a and floor($a) differ only in the fraction
    $cents = (int)$whole;
    $sign = $c < 0 && $cents !== 0 ? '-' : '';
    return $sign . intdiv($cents, 100) . '.' . str_pad((string)($cents % 100), 2, '0', STR_PAD_LEFT);
}

// std::to_chars(double) without a format: the fewest significant digits that read back
// as the same double, written as %f or %e, whichever is shorter (a tie goes to %f).
function hc_shortest_double(float $v): string
{
    $negative = (ord(pack('E', $v)[0]) & 0x80) !== 0;  // the sign bit: -0 and -nan too
    if (is_nan($v)) return $negative ? '-nan' : 'nan';
    if (is_infinite($v)) return $negative ? '-inf' : 'inf';
    if ($v == 0.0) return $negative ? '-0' : '0';
    // The correctly rounded p-digit form is the closest p-digit decimal: the first p
    // that reads back exactly gives the shortest digits.
    for ($p = 0; $p < 17; ++$p) {
        $e = sprintf('%.' . $p . 'e', $v);
        if ((float)$e === $v) break;
    }
    [$mantissa, $exp] = explode('e', $e);
    $exp = (int)$exp;
    $digits = rtrim(str_replace(['-', '.'], '', $mantissa), '0');
    $n = strlen($digits);
    $sci = $digits[0] . ($n > 1 ? '.' . substr($digits, 1) : '') . 'e' . ($exp < 0 ? '-' : '+')
        . str_pad((string)abs($exp), 2, '0', STR_PAD_LEFT);
    if ($exp >= 0 && $n <= $exp + 1) {
        // An integer longer than its shortest digits: the padding is free, so to_chars
        // prints the closest text of that length, the exact value ("83142857142857136",
        // not "...140"); %.0f is exact too. Built only when it is not the longer form.
        $fixed = $exp + 1 <= strlen($sci) ? sprintf('%.0f', abs($v)) : null;
    } elseif ($exp >= 0) {
        $fixed = substr($digits, 0, $exp + 1) . '.' . substr($digits, $exp + 1);
    } else {
        $fixed = '0.' . str_repeat('0', -$exp - 1) . $digits;
    }
    return ($negative ? '-' : '') . ($fixed !== null && strlen($fixed) <= strlen($sci) ? $fixed : $sci);
}

// [ISO date and time "YYYY-MM-DDTHH:MM:SSZ", date "YYYY-MM-DD"] of unix seconds, UTC.
// Years 0..9999 are gmdate()'s (zero-padded to 4 digits like the renderer); beyond, the
// renderer prints the plain year, so the days-to-civil arithmetic is done here instead.
function hc_iso(int $t): array
{
    if ($t >= -62167219200 && $t <= 253402300799) {
        $iso = gmdate('Y-m-d\TH:i:s\Z', $t);
        return [$iso, substr($iso, 0, 10)];
    }
    $days = intdiv($t, 86400);
    $secs = $t % 86400;
    if ($secs < 0) {  // floor division for dates before 1970
        $secs += 86400;
        $days -= 1;
    }
    // Epoch shifted to 0000-03-01 so leap days fall at the end of each 400-year era.
    $z = $days + 719468;
    $era = intdiv($z >= 0 ? $z : $z - 146096, 146097);
    $doe = $z - $era * 146097;
    $yoe = intdiv($doe - intdiv($doe, 1460) + intdiv($doe, 36524) - intdiv($doe, 146096), 365);
    $doy = $doe - (365 * $yoe + intdiv($yoe, 4) - intdiv($yoe, 100));
    $mp = intdiv(5 * $doy + 2, 153);
    $day = $doy - intdiv(153 * $mp + 2, 5) + 1;
    $month = $mp < 10 ? $mp + 3 : $mp - 9;
    $year = $yoe + $era * 400 + ($month <= 2 ? 1 : 0);
    $date = sprintf('%d-%02d-%02d', $year, $month, $day);
    return [sprintf('%sT%02d:%02d:%02dZ', $date, intdiv($secs, 3600), intdiv($secs, 60) % 60, $secs % 60), $date];
}
