<?php
// PHP's memcached extension (Debian's php-memcached, on libmemcached) as applications
// use it: getVersion and getStats on connect (cache adapters read them), PHP-serialized
// arrays and objects and compressed large values through flags, multi-gets, CAS, ketama
// consistent hashing over two servers, and PHP sessions stored through it
// (session.save_handler=memcached, with its session locks). Run as
// `php php_memcached_client.php HOST:PORT HOST:PORT PREFIX`; prints `ok <check>` or
// `FAIL <check>: <why>` per check and `restart` where the test restarts the first
// server (then reads a line); exits 0 only when every check passed.

$servers = [explode(':', $argv[1]), explode(':', $argv[2])];
$prefix = $argv[3];
$failed = 0;
const STATS_FIELDS = ['pid', 'uptime', 'time', 'version', 'curr_connections',
    'total_connections', 'cmd_get', 'cmd_set', 'get_hits', 'get_misses', 'curr_items',
    'bytes', 'limit_maxbytes', 'threads', 'evictions'];
const VERSION = '/^\d+\.\d+\.\d+$/';

function k($name) { global $prefix; return "$prefix:$name"; }
function shown($v) { $s = var_export($v, true); return strlen($s) > 200 ? substr($s, 0, 200) . '...' : $s; }
function expect($got, $wanted, $what = 'value') {
    // Objects are equal when of one class with equal properties (==), as unserialized.
    if (is_object($wanted) ? $got != $wanted : $got !== $wanted)
        throw new Exception("$what: got " . shown($got) . ', expected ' . shown($wanted));
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
function check($name, $fn) {
    global $failed;
    try { $fn(); echo "ok $name\n"; }
    catch (Throwable $e) { $failed++; echo "FAIL $name: " . $e->getMessage() . "\n"; }
}
function client($list, $binary = false) {
    $m = new Memcached();
    $m->setOption(Memcached::OPT_BINARY_PROTOCOL, $binary);
    $m->setOption(Memcached::OPT_CONNECT_TIMEOUT, 5000);
    $m->setOption(Memcached::OPT_RETRY_TIMEOUT, 1);
    foreach ($list as [$h, $p]) $m->addServer($h, (int)$p);
    return $m;
}
function ok($m, $result, $what) {
    if ($result === false)
        throw new Exception("$what failed: " . $m->getResultMessage());
    return $result;
}

$text = client([$servers[0]]);
$binary = client([$servers[0]], true);
$both = [$text, $binary];
$text->set(k('ttl'), 'soon', 1);
$expiring_since = microtime(true);  // the expiry wait counts from here
$text->set(k('stays'), 'long', 3600);

check('sessions through session.save_handler=memcached', function () use ($servers) {
    ini_set('session.save_handler', 'memcached');
    ini_set('session.save_path', implode(':', $servers[0]));
    ini_set('session.use_cookies', '0');
    ini_set('session.use_strict_mode', '0');
    ini_set('memcached.sess_locking', '1');
    $id = bin2hex(random_bytes(16));
    session_id($id);                       // the first request
    if (!session_start()) throw new Exception('session_start failed');
    $_SESSION['user'] = 'ann'; $_SESSION['visits'] = 1;
    session_write_close();
    $_SESSION = [];
    session_id($id);                       // the next request of the same session
    if (!session_start()) throw new Exception('session_start failed again');
    expect($_SESSION, ['user' => 'ann', 'visits' => 1], 'the session read back');
    $_SESSION['visits']++;
    session_write_close();
    $stored = client([$servers[0]])->get("memc.sess.key.$id");
    expect(is_string($stored) && str_contains($stored, 'visits|i:2'), true,
           'the stored session ' . var_export($stored, true));
    expect(client([$servers[0]])->get("memc.sess.key.lock.$id"), false,
           'the session lock after the request');
    session_id($id);
    session_start();
    session_destroy();
    expect(client([$servers[0]])->get("memc.sess.key.$id"), false, 'a destroyed session');
});

check('version and stats on connect', function () use ($both) {
    foreach ($both as $m) {
        $versions = ok($m, $m->getVersion(), 'getVersion');
        foreach ($versions as $v)
            if (!preg_match(VERSION, $v)) throw new Exception("version = '$v'");
        $all = ok($m, $m->getStats(), 'getStats');
        foreach ($all as $server => $stats) {
            $missing = array_diff(STATS_FIELDS, array_keys($stats));
            if ($missing) throw new Exception('stats lacks ' . implode(',', $missing));
        }
    }
});

class Cart { public $items = []; public $owner; }
check('serialized arrays and objects through flags', function () use ($both) {
    foreach ($both as $m) {
        $cart = new Cart(); $cart->items = ['apple' => 2, 'pear' => 1]; $cart->owner = 'ann';
        ok($m, $m->set(k('obj'), $cart), 'set');
        expect($m->get(k('obj')), $cart, 'object');   // == would do; !== compares ids
    }
});

check('compressed large values', function () use ($both, $servers) {
    $big = str_repeat('a compressible line of text ', 5000);
    foreach ($both as $m) {
        ok($m, $m->set(k('big'), $big), 'set');
        expect($m->get(k('big')), $big);
    }
    // As stored: far smaller, flagged compressed (MEMC_VAL_COMPRESSED, 1 << 4).
    $raw = stored($servers[0], k('big'));
    if (!$raw || !($raw['flags'] & (1 << 4)) || strlen($raw['value']) > strlen($big) / 10)
        throw new Exception('not stored compressed: ' . shown($raw));
});

check('multi-get of 250 keys', function () use ($both) {
    foreach ($both as $m) {
        $items = [];
        for ($i = 0; $i < 250; $i++) $items[k("m$i")] = ['n' => $i];
        ok($m, $m->setMulti($items), 'setMulti');
        $got = ok($m, $m->getMulti(array_merge(array_keys($items), [k('absent')])),
                  'getMulti');
        expect($got, $items);
    }
});

check('cas', function () use ($both) {
    foreach ($both as $m) {
        $m->set(k('cas'), 'one');
        $r = ok($m, $m->get(k('cas'), null, Memcached::GET_EXTENDED), 'get');
        ok($m, $m->cas($r['cas'], k('cas'), 'two'), 'cas');
        if ($m->cas($r['cas'], k('cas'), 'three') !== false
            || $m->getResultCode() !== Memcached::RES_DATA_EXISTS)
            throw new Exception('a stale CAS: ' . $m->getResultMessage());
        expect($m->get(k('cas')), 'two');
    }
});

check('increment and decrement', function () use ($both) {
    foreach ($both as $m) {
        $m->set(k('n'), 5);
        expect($m->increment(k('n'), 10), 15);
        expect($m->decrement(k('n'), 100), 0, 'decrement below zero');
        expect($m->increment(k('absent-n')), false, 'increment of a missing key');
    }
});

check('delete', function () use ($both) {
    foreach ($both as $m) {
        $m->set(k('del'), 'x');
        expect($m->delete(k('del')), true);
        expect($m->delete(k('del')), false);
        expect($m->getResultCode(), Memcached::RES_NOTFOUND, 'result of a second delete');
    }
});

check('ketama hashing over two servers', function () use ($servers) {
    $ring = client($servers);
    $ring->setOption(Memcached::OPT_LIBKETAMA_COMPATIBLE, true);
    $keys = [];
    for ($i = 0; $i < 100; $i++) $keys[k("h$i")] = "v$i";
    ok($ring, $ring->setMulti($keys), 'setMulti');
    $got = $ring->getMulti(array_keys($keys));
    ksort($got); ksort($keys);
    expect($got, $keys);
    $on = [];
    foreach ($servers as $s) $on[] = array_keys(client([$s])->getMulti(array_keys($keys)));
    if (!$on[0] || !$on[1])
        throw new Exception('keys on each server: ' . count($on[0]) . ', ' . count($on[1]));
    if (array_intersect($on[0], $on[1]) || count($on[0]) + count($on[1]) != 100)
        throw new Exception('a key not on exactly one server');
    $ring->deleteMulti(array_keys($keys));
});

check('expiry', function () use ($text, $expiring_since) {
    usleep((int)max(0, ($expiring_since + 2.2 - microtime(true)) * 1e6));
    expect($text->get(k('ttl')), false, 'an item past its exptime');
    expect($text->get(k('stays')), 'long');
});

echo "restart\n";
fgets(STDIN);

check('reconnect after a restart', function () use ($both) {
    foreach ($both as $m) {
        $deadline = microtime(true) + 15;
        while (!$m->set(k('after'), 'back') && microtime(true) < $deadline) usleep(200000);
        expect($m->get(k('after')), 'back');
    }
});
exit($failed ? 1 : 0);
