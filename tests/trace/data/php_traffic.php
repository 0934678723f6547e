<?php
// Drives a memcached through PHP's stock Memcached class (php-memcached, its defaults) with a
// known mix on a Zipf-distributed key set, and writes what it did per key, for
// tests/trace/record_test.cpp: KEY \t get_found \t get_missed \t sets \t deletes_found \t deletes_missed
// usage: php php_traffic.php PORT REQUESTS SEED OUT.tsv [orders]
// Values are strings of 100-1600 bytes; with `orders`, PHP arrays (an order of 0-49 items, as in
// the README's journey 5: serialized, FastLZ-compressed from 2000 bytes by php-memcached).
[$self, $port, $requests, $seed, $out] = $argv;
$orders = ($argv[5] ?? '') === 'orders';
function value_for($k, $fill, $orders) {
  if (!$orders) return str_repeat($fill, 100 + mt_rand(0, 1500));
  $items = [];
  for ($j = 0, $n = mt_rand(0, 49); $j < $n; $j++)
    $items[] = ["sku" => "SKU-$j", "title" => "Item $j of $k", "qty" => $j % 4 + 1, "price" => $j * 1.5 + 0.99];
  return ["id" => crc32($k), "customer" => "customer of $k", "status" => "shipped", "items" => $items,
          "total" => count($items) * 3.25];
}
mt_srand((int)$seed);
$m = new Memcached();
$m->addServer('127.0.0.1', (int)$port);
$keys = 200;
// Zipf(1) over ranks 1..$keys by inversion of the cumulative weights.
$cum = [];
$total = 0.0;
for ($r = 1; $r <= $keys; $r++) { $total += 1.0 / $r; $cum[] = $total; }
function pick($cum, $total) {
  $u = mt_rand() / mt_getrandmax() * $total;
  $lo = 0; $hi = count($cum) - 1;
  while ($lo < $hi) { $mid = intdiv($lo + $hi, 2); if ($cum[$mid] < $u) $lo = $mid + 1; else $hi = $mid; }
  return $lo;
}
$did = [];
for ($i = 0; $i < (int)$requests; $i++) {
  $k = 'user:' . pick($cum, $total) . ':profile';
  if (!isset($did[$k])) $did[$k] = [0, 0, 0, 0, 0];
  $roll = mt_rand(0, 99);
  if ($roll < 70) {                       // a read; a miss is filled, as a cache-aside app does
    $v = $m->get($k);
    if ($m->getResultCode() === Memcached::RES_SUCCESS) { $did[$k][0]++; }
    else {
      $did[$k][1]++;
      $m->set($k, value_for($k, 'v', $orders));   // strings: under the 2000-byte compression threshold
      $did[$k][2]++;
    }
  } elseif ($roll < 85) {                 // a write
    $m->set($k, value_for($k, 'w', $orders));
    $did[$k][2]++;
  } else {                                // an invalidation
    $m->delete($k);
    if ($m->getResultCode() === Memcached::RES_SUCCESS) $did[$k][3]++; else $did[$k][4]++;
  }
}
$f = fopen($out, 'w');
foreach ($did as $k => $c) fwrite($f, $k . "\t" . implode("\t", $c) . "\n");
fclose($f);
