<?php
// Drives a memcached through PHP's stock Memcached class (php-memcached, its defaults) with a
// known mix on a Zipf-distributed key set, and writes what it did per key, for
// tests/trace/record_test.cpp: KEY \t get_found \t get_missed \t sets \t deletes_found \t deletes_missed
// usage: php php_traffic.php PORT REQUESTS SEED OUT.tsv
[$self, $port, $requests, $seed, $out] = $argv;
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
      $m->set($k, str_repeat('v', 100 + mt_rand(0, 1500)));   // under the 2000-byte compression threshold
      $did[$k][2]++;
    }
  } elseif ($roll < 85) {                 // a write
    $m->set($k, str_repeat('w', 100 + mt_rand(0, 1500)));
    $did[$k][2]++;
  } else {                                // an invalidation
    $m->delete($k);
    if ($m->getResultCode() === Memcached::RES_SUCCESS) $did[$k][3]++; else $did[$k][4]++;
  }
}
$f = fopen($out, 'w');
foreach ($did as $k => $c) fwrite($f, $k . "\t" . implode("\t", $c) . "\n");
fclose($f);
