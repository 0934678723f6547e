<?php
// Fills memcached the way PHP applications do, for tests/corpus/corpus_cli_test.cpp:
//   php php_fill.php MEMCACHED_PORT MEMCACHE_PORT OUT
// MEMCACHED_PORT: php-memcached (pecl/memcached) with each serializer it offers, its defaults
// otherwise (FastLZ from 2000 bytes); MEMCACHE_PORT: pecl/memcache, zlib-compressed and plain.
// OUT gets one line per key: "SCHEME<TAB>KEY<TAB>EXPECT", EXPECT being base64 of
// json_encode(what PHP reads back, JSON_PRESERVE_ZERO_FRACTION), or "unknown_flags" for a
// value hitcost must refuse (a PHP int: php-memcached stores it as type long).
[$md_port, $mc_port, $out] = [(int)$argv[1], (int)$argv[2], $argv[3]];

function shapes(): array {
  $rows = [];
  for ($r = 0; $r < 40; $r++) {
    $rows[] = ['id' => 1000 + $r, 'title' => "Row title $r CONFIDENTIAL-MARKER", 'price' => $r * 1.25 + 0.1,
               'tags' => ['news', 'tech', "t$r"], 'active' => $r % 2 == 0, 'meta' => null, 'empty' => []];
  }
  return [
    'nested' => ['id' => 7, 'title' => 'A page CONFIDENTIAL-MARKER', 'rows' => $rows, 'author' => ['name' => 'Ann', 'id' => 3]],
    'list' => [1, 2, 3, 'x', 4.5, true, null],
    'intkeys' => [5 => 'a', 3 => 'b', -1 => 'c', 100 => [], 9223372036854775807 => 'max'],
    'floats' => [0.1, 1.0, -0.0, 1e25, 123.456, -7.5e-8],
    'empty' => [],
    'empties' => ['a' => [], 'b' => [[]], 'c' => ''],
    'long' => ['body' => str_repeat("lorem ipsum dolor sit amet CONFIDENTIAL-MARKER ", 2000)],
    'unicode' => ['name' => "Zoë — 東京", 'emoji' => "🙂", 'quote' => "\"q\" / \\ <b>"],
  ];
}

$lines = [];
$expect = function ($v) { return base64_encode(json_encode($v, JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR)); };

$md = new Memcached();
$md->addServer('127.0.0.1', $md_port);
$serializers = ['php' => Memcached::SERIALIZER_PHP];
if (!Memcached::HAVE_IGBINARY || !Memcached::HAVE_JSON || !Memcached::HAVE_MSGPACK) {
  fwrite(STDERR, "php-memcached lacks igbinary, json or msgpack support\n");
  exit(1);
}
$serializers['igbinary'] = Memcached::SERIALIZER_IGBINARY;
$serializers['json'] = Memcached::SERIALIZER_JSON_ARRAY;
$serializers['msgpack'] = Memcached::SERIALIZER_MSGPACK;
foreach ($serializers as $name => $s) {
  if (!$md->setOption(Memcached::OPT_SERIALIZER, $s)) { fwrite(STDERR, "serializer $name refused\n"); exit(1); }
  foreach (shapes() as $shape => $v) {
    $key = "md:$name:$shape";
    if (!$md->set($key, $v)) { fwrite(STDERR, "set $key failed\n"); exit(1); }
    $lines[] = "php-memcached\t$key\t" . $expect($md->get($key));
  }
}
$md->setOption(Memcached::OPT_SERIALIZER, Memcached::SERIALIZER_PHP);
$md->set('md:string', '<p>a cached fragment</p>');
$lines[] = "php-memcached\tmd:string\t" . $expect($md->get('md:string'));
$md->set('md:bigstring', str_repeat('<li>item</li>', 400));  // FastLZ-compressed plain string
$lines[] = "php-memcached\tmd:bigstring\t" . $expect($md->get('md:bigstring'));
$md->set('md:int', 42);
$lines[] = "php-memcached\tmd:int\tunknown_flags";

$mc = new Memcache();
$mc->addServer('127.0.0.1', $mc_port);
foreach (shapes() as $shape => $v) {
  foreach (['z' => MEMCACHE_COMPRESSED, 'p' => 0] as $tag => $flag) {
    $key = "mc:$tag:$shape";
    if (!$mc->set($key, $v, $flag)) { fwrite(STDERR, "set $key failed\n"); exit(1); }
    $lines[] = "php-memcache\t$key\t" . $expect($mc->get($key));
  }
}
file_put_contents($out, implode("\n", $lines) . "\n");
echo count($lines), "\n";
