<?php
// PHP's older memcache extension (Debian's php-memcache: its own C client, not
// libmemcached) as applications use it: getVersion and getExtendedStats on connect,
// PHP-serialized arrays and MEMCACHE_COMPRESSED values through flags, multi-gets,
// increment/decrement, add/replace, delete, expiry, consistent hashing over two servers
// (memcache.hash_strategy=consistent) and PHP sessions (session.save_handler=memcache).
// Run as `php php_memcache_client.php HOST:PORT HOST:PORT PREFIX`; prints `ok <check>`
// or `FAIL <check>: <why>` per check and `restart` where the test restarts the first
// server (then reads a line); exits 0 only when every check passed.

$servers = [explode(':', $argv[1]), explode(':', $argv[2])];
$prefix = $argv[3];
$failed = 0;
const STATS_FIELDS = ['pid', 'uptime', 'time', 'version', 'curr_connections',
    'total_connections', 'cmd_get', 'cmd_set', 'get_hits', 'get_misses', 'curr_items',
    'bytes', 'limit_maxbytes', 'threads', 'evictions'];

function k($name) { global $prefix; return "$prefix:$name"; }
function shown($v) { $s = var_export($v, true); return strlen($s) > 200 ? substr($s, 0, 200) . '...' : $s; }
function expect($got, $wanted, $what = 'value') {
    if ($got !== $wanted)
        throw new Exception("$what: got " . shown($got) . ', expected ' . shown($wanted));
}
function check($name, $fn) {
    global $failed;
    try { $fn(); echo "ok $name\n"; }
    catch (Throwable $e) { $failed++; echo "FAIL $name: " . $e->getMessage() . "\n"; }
}
function client($list) {
    $m = new Memcache();
    foreach ($list as [$h, $p]) $m->addServer($h, (int)$p, true, 1, 5, 1);
    return $m;
}
// The item as the server stores it, read over the text protocol by hand.
function stored($server, $key) {
    $s = fsockopen($server[0], (int)$server[1], $errno, $error, 5);
    fwrite($s, "get $key\r\n");
    $head = fgets($s);
    if (!preg_match('/^VALUE \S+ (\d+) (\d+)\r\n$/', $head, $m)) return null;
    $data = '';
    while (strlen($data) < $m[2] + 2) $data .= fread($s, $m[2] + 2 - strlen($data));
    fclose($s);
    return ['flags' => (int)$m[1], 'value' => substr($data, 0, -2)];
}

// Sessions first: PHP starts no session once output was sent.
check('sessions through session.save_handler=memcache', function () use ($servers) {
    ini_set('session.save_handler', 'memcache');
    ini_set('session.save_path', 'tcp://' . implode(':', $servers[0]));
    ini_set('session.use_cookies', '0');
    ini_set('session.use_strict_mode', '0');
    $id = bin2hex(random_bytes(16));
    session_id($id);
    if (!session_start()) throw new Exception('session_start failed');
    $_SESSION['user'] = 'bob';
    session_write_close();
    $_SESSION = [];
    session_id($id);
    if (!session_start()) throw new Exception('session_start failed again');
    expect($_SESSION, ['user' => 'bob'], 'the session read back');
    session_destroy();
});

$mc = client([$servers[0]]);
$mc->set(k('ttl'), 'soon', 0, 1);
$expiring_since = microtime(true);  // the expiry wait counts from here
$mc->set(k('stays'), 'long', 0, 3600);

check('version and stats on connect', function () use ($mc) {
    $v = $mc->getVersion();
    if (!preg_match('/^\d+\.\d+\.\d+$/', (string)$v)) throw new Exception('version = ' . shown($v));
    foreach ($mc->getExtendedStats() as $server => $stats) {
        if (!is_array($stats)) throw new Exception("no stats from $server");
        $missing = array_diff(STATS_FIELDS, array_keys($stats));
        if ($missing) throw new Exception('stats lacks ' . implode(',', $missing));
    }
});

check('serialized arrays and compressed values through flags', function () use ($mc, $servers) {
    $value = ['user' => 'bob', 'roles' => ['ops'], 'n' => 1.5];
    $mc->set(k('arr'), $value) or throw new Exception('set failed');
    expect($mc->get(k('arr')), $value);
    $big = str_repeat('compress me please ', 5000);
    $mc->set(k('big'), $big, MEMCACHE_COMPRESSED) or throw new Exception('set failed');
    expect($mc->get(k('big')), $big);
    $raw = stored($servers[0], k('big'));
    if (!$raw || !($raw['flags'] & MEMCACHE_COMPRESSED) || strlen($raw['value']) > strlen($big) / 10)
        throw new Exception('not stored compressed: ' . shown($raw));
});

check('multi-get of 200 keys', function () use ($mc) {
    $items = [];
    for ($i = 0; $i < 200; $i++) { $items[k("m$i")] = "v$i"; $mc->set(k("m$i"), "v$i"); }
    $got = $mc->get(array_merge(array_keys($items), [k('absent')]));
    ksort($got); ksort($items);
    expect($got, $items);
});

check('increment, decrement, add, replace, delete', function () use ($mc) {
    $mc->set(k('n'), '10');
    expect($mc->increment(k('n'), 5), 15);
    expect($mc->decrement(k('n'), 100), 0, 'decrement below zero');
    expect($mc->increment(k('absent-n')), false, 'increment of a missing key');
    expect($mc->add(k('ar'), 'a'), true, 'add');
    expect($mc->add(k('ar'), 'b'), false, 'add of a present key');
    expect($mc->replace(k('ar'), 'c'), true, 'replace');
    expect($mc->replace(k('absent-ar'), 'c'), false, 'replace of a missing key');
    expect($mc->get(k('ar')), 'c');
    expect($mc->delete(k('ar')), true, 'delete');
    expect($mc->delete(k('ar')), false, 'a second delete');
});

check('consistent hashing over two servers', function () use ($servers) {
    ini_set('memcache.hash_strategy', 'consistent');
    $ring = client($servers);
    $keys = [];
    for ($i = 0; $i < 100; $i++) { $keys[] = k("h$i"); $ring->set(k("h$i"), "v$i"); }
    expect(count($ring->get($keys)), 100, 'keys read back');
    $on = [];
    foreach ($servers as $s) $on[] = array_keys(client([$s])->get($keys));
    if (!$on[0] || !$on[1])
        throw new Exception('keys on each server: ' . count($on[0]) . ', ' . count($on[1]));
    if (array_intersect($on[0], $on[1]) || count($on[0]) + count($on[1]) != 100)
        throw new Exception('a key not on exactly one server');
    foreach ($keys as $key) $ring->delete($key);
});

check('expiry', function () use ($mc, $expiring_since) {
    usleep((int)max(0, ($expiring_since + 2.2 - microtime(true)) * 1e6));
    expect($mc->get(k('ttl')), false, 'an item past its exptime');
    expect($mc->get(k('stays')), 'long');
});

echo "restart\n";
fgets(STDIN);

check('reconnect after a restart', function () use ($mc) {
    $deadline = microtime(true) + 15;
    while (!@$mc->set(k('after'), 'back') && microtime(true) < $deadline) usleep(200000);
    expect($mc->get(k('after')), 'back');
});
exit($failed ? 1 : 0);
