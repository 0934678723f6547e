<?php
// php php_fill_users.php PORT N: user:0 .. user:N-1 on the memcached at 127.0.0.1:PORT.
// N small user records (100-1,000 B of JSON each) as an application caches them:
// php-memcached with memcached.serializer=json (type 6), its default compression (FastLZ from 2000 B).
$m = new Memcached();
$m->addServer('127.0.0.1', (int)$argv[1]);
$m->setOption(Memcached::OPT_SERIALIZER, Memcached::SERIALIZER_JSON_ARRAY);
mt_srand(7);
$words = ['alpha','bravo','charlie','delta','echo','foxtrot','golf','hotel','india','juliet','kilo','lima','mike','november','oscar','papa'];
for ($i = 0, $count = (int)$argv[2]; $i < $count; $i++) {
  $orders = [];
  for ($k = 0, $n = mt_rand(0, 7); $k < $n; $k++)
    $orders[] = ['order_id' => mt_rand(0, 9999999), 'status' => mt_rand(0, 1) ? 'shipped' : 'pending',
                 'total_cents' => mt_rand(0, 99999), 'currency' => 'EUR'];
  $user = ['id' => 100000 + $i, 'name' => $words[mt_rand(0, 15)] . ' ' . $words[mt_rand(0, 15)],
           'email' => 'user' . mt_rand(0, 99999) . '@example.com', 'active' => (bool)mt_rand(0, 1),
           'created_at' => sprintf('2026-%02d-%02dT12:00:00Z', mt_rand(1, 12), mt_rand(1, 28)),
           'roles' => mt_rand(0, 2) ? ['reader'] : ['reader', 'editor'], 'orders' => $orders];
  if (!$m->set("user:$i", $user)) { fwrite(STDERR, "set failed: " . $m->getResultMessage() . "\n"); exit(1); }
}
echo "stored $count\n";
