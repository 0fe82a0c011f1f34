<?php
// phpredis (Debian's php-redis) runs the scenario of README.md.
//
// Usage: php phpredis_client.php HOST PORT PREFIX HPREFIX SECTION...
//
// The extension's methods throughout, with their own reply shapes (true for +OK, false
// for a nil or an error reply, Redis::REDIS_* for TYPE, an array keyed by field for
// HMGET); rawCommand() where 5.3 has no method (HELLO, SET ... GET, GETDEL, CLIENT ID,
// HSET of several fields) or one that would check the arguments itself. Error replies are read back with
// getLastError(). multi(Redis::PIPELINE) for the pipeline, multi() for transactions.
// RESP2 only: phpredis 5.3 has no RESP3. No execabort section: after a command the
// server refused inside MULTI, phpredis 5.3's exec() waits for replies that never
// come (redis-server itself answered -EXECABORT) until its read timeout.

[$script, $host, $port, $prefix, $hprefix] = array_slice($argv, 0, 5);
$sections = array_slice($argv, 5);
$big = str_repeat(implode('', array_map('chr', range(0, 255))), 4096);

function k($name) { global $prefix; return "$prefix:$name"; }
function hk($name) { global $hprefix; return "$hprefix:$name"; }

// Redis's own repr of a string (sdscatrepr), quoted.
function repr($s) {
    $out = '"';
    $n = strlen($s);
    for ($i = 0; $i < $n; $i++) {
        $c = $s[$i];
        $b = ord($c);
        if ($c === '\\' || $c === '"') $out .= '\\' . $c;
        elseif ($c === "\n") $out .= '\n';
        elseif ($c === "\r") $out .= '\r';
        elseif ($c === "\t") $out .= '\t';
        elseif ($b === 7) $out .= '\a';
        elseif ($b === 8) $out .= '\b';
        elseif ($b >= 0x20 && $b < 0x7f) $out .= $c;
        else $out .= sprintf('\x%02x', $b);
    }
    return $out . '"';
}

function what($v) { return 'TYPE? ' . var_export($v, true); }
function bulk($v) { return $v === false ? 'nil' : (is_string($v) ? repr($v) : what($v)); }
function integer($v) { return is_int($v) ? ":$v" : what($v); }
function ok($v) { return $v === true ? '+OK' : ($v === false ? 'nil' : what($v)); }
function flag($v) { return is_bool($v) ? ':' . (int)$v : what($v); }
function status($v) { return is_string($v) ? "+$v" : what($v); }
function lst($v) { return is_array($v) ? '[' . implode(', ', array_map('bulk', $v)) . ']' : what($v); }
function in_range($low, $high) {
    return function ($v) use ($low, $high) {
        return is_int($v) && $v >= $low && $v <= $high ? "in $low..$high"
            : "out of $low..$high: " . var_export($v, true);
    };
}
function hash_text($v) {
    if (!is_array($v)) return what($v);
    $fields = array_map('strval', array_keys($v));
    sort($fields, SORT_STRING);
    return '{' . implode(', ', array_map(function ($f) use ($v) {
        return repr($f) . ': ' . bulk($v[$f]);
    }, $fields)) . '}';
}
function type_name($v) {
    $names = [Redis::REDIS_NOT_FOUND => 'none', Redis::REDIS_STRING => 'string',
              Redis::REDIS_SET => 'set', Redis::REDIS_LIST => 'list',
              Redis::REDIS_ZSET => 'zset', Redis::REDIS_HASH => 'hash'];
    return isset($names[$v]) ? "+{$names[$v]}" : what($v);
}
// A call inside MULTI: phpredis answers itself (the Redis object) once the server
// answered +QUEUED.
function queued($v) { return $v instanceof Redis ? '+QUEUED' : what($v); }

function show($step, $text) { echo "$step $text\n"; }

function attempt($r, $step, $fn, $fmt) {
    $r->clearLastError();
    $v = $fn();
    $err = $r->getLastError();              // phpredis 5.3 ends the text with a NUL
    show($step, $err !== null ? '-' . rtrim($err, "\0") : $fmt($v));
}

function connect($r) {
    attempt($r, 'ping', function () use ($r) { return $r->ping(); },
            function ($v) { return $v === true ? '+PONG' : what($v); });
    attempt($r, 'echo', function () use ($r) { return $r->echo('hello world'); }, 'bulk');
    $hello = $r->rawCommand('HELLO', '2');
    $fields = [];
    for ($i = 0; $i < count($hello); $i += 2) $fields[$hello[$i]] = $hello[$i + 1];
    $names = array_keys($fields);
    sort($names);
    show('hello-fields', implode(',', $names));
    show('hello-proto', ($fields['proto'] ?? null) === 2 ? 'same' : 'differs ' . var_export($fields, true));
    attempt($r, 'select-0', function () use ($r) { return $r->select(0); }, 'ok');
    attempt($r, 'client-setname', function () use ($r) { return $r->client('setname', 'rctest'); }, 'ok');
    attempt($r, 'client-getname', function () use ($r) { return $r->client('getname'); }, 'bulk');
    attempt($r, 'client-id', function () use ($r) { return $r->rawCommand('CLIENT', 'ID'); },
            function ($v) { return is_int($v) && $v > 0 ? 'positive' : what($v); });
}

function strings($r) {
    global $big;
    attempt($r, 'set', function () use ($r) { return $r->set(k('s'), 'v1'); }, 'ok');
    attempt($r, 'get', function () use ($r) { return $r->get(k('s')); }, 'bulk');
    attempt($r, 'get-missing', function () use ($r) { return $r->get(k('missing')); }, 'bulk');
    attempt($r, 'set-xx', function () use ($r) { return $r->set(k('s'), 'v2', ['xx']); }, 'ok');
    attempt($r, 'set-xx-missing', function () use ($r) { return $r->set(k('x'), 'v', ['xx']); }, 'ok');
    attempt($r, 'set-nx', function () use ($r) { return $r->set(k('nx'), 'v', ['nx']); }, 'ok');
    attempt($r, 'set-nx-exists', function () use ($r) { return $r->set(k('nx'), 'w', ['nx']); }, 'ok');
    attempt($r, 'set-get', function () use ($r) { return $r->rawCommand('SET', k('s'), 'v3', 'GET'); }, 'bulk');
    attempt($r, 'get-after-set-get', function () use ($r) { return $r->get(k('s')); }, 'bulk');
    attempt($r, 'set-ex', function () use ($r) { return $r->set(k('ex'), 'v', ['ex' => 100]); }, 'ok');
    attempt($r, 'ttl-ex', function () use ($r) { return $r->ttl(k('ex')); }, in_range(1, 100));
    attempt($r, 'set-px', function () use ($r) { return $r->set(k('px'), 'v', ['px' => 100000]); }, 'ok');
    attempt($r, 'pttl-px', function () use ($r) { return $r->pttl(k('px')); }, in_range(1, 100000));
    attempt($r, 'mset', function () use ($r) { return $r->mset([k('m1') => 'a', k('m2') => 'b']); }, 'ok');
    attempt($r, 'mget', function () use ($r) { return $r->mget([k('m1'), k('missing'), k('m2')]); }, 'lst');
    attempt($r, 'incr', function () use ($r) { return $r->incr(k('n')); }, 'integer');
    attempt($r, 'incrby', function () use ($r) { return $r->incrBy(k('n'), 10); }, 'integer');
    attempt($r, 'decr', function () use ($r) { return $r->decr(k('n')); }, 'integer');
    attempt($r, 'decrby', function () use ($r) { return $r->decrBy(k('n'), 3); }, 'integer');
    attempt($r, 'get-counter', function () use ($r) { return $r->get(k('n')); }, 'bulk');
    attempt($r, 'incr-not-integer', function () use ($r) { return $r->incr(k('s')); }, 'integer');
    attempt($r, 'append-new', function () use ($r) { return $r->append(k('a'), 'hello'); }, 'integer');
    attempt($r, 'append', function () use ($r) { return $r->append(k('a'), ' world'); }, 'integer');
    attempt($r, 'strlen', function () use ($r) { return $r->strlen(k('a')); }, 'integer');
    attempt($r, 'strlen-missing', function () use ($r) { return $r->strlen(k('missing')); }, 'integer');
    attempt($r, 'getset', function () use ($r) { return $r->getSet(k('a'), 'x'); }, 'bulk');
    attempt($r, 'getdel', function () use ($r) { return $r->rawCommand('GETDEL', k('a')); }, 'bulk');
    attempt($r, 'getdel-missing', function () use ($r) { return $r->rawCommand('GETDEL', k('a')); }, 'bulk');
    attempt($r, 'setnx', function () use ($r) { return $r->setnx(k('snx'), 'v'); }, 'flag');
    attempt($r, 'setnx-exists', function () use ($r) { return $r->setnx(k('snx'), 'w'); }, 'flag');
    $bin = k("bin\0\r\n\xff");
    attempt($r, 'set-binary', function () use ($r, $bin) { return $r->set($bin, "a\0b\r\nc\xff"); }, 'ok');
    attempt($r, 'get-binary', function () use ($r, $bin) { return $r->get($bin); }, 'bulk');
    attempt($r, 'strlen-binary', function () use ($r, $bin) { return $r->strlen($bin); }, 'integer');
    attempt($r, 'set-1mb', function () use ($r, $big) { return $r->set(k('big'), $big); }, 'ok');
    attempt($r, 'get-1mb', function () use ($r) { return $r->get(k('big')); },
            function ($v) use ($big) { return $v === $big ? 'same' : 'differs (' . strlen((string)$v) . ' bytes)'; });
    attempt($r, 'strlen-1mb', function () use ($r) { return $r->strlen(k('big')); }, 'integer');
    attempt($r, 'cleanup', function () use ($r, $bin) {
        return $r->del(array_merge(array_map('k', ['s', 'nx', 'ex', 'px', 'm1', 'm2', 'n', 'snx']),
                                   [$bin, k('big')]));
    }, 'integer');
}

function keys($r) {
    attempt($r, 'set-k1', function () use ($r) { return $r->set(k('k1'), 'a'); }, 'ok');
    attempt($r, 'set-k2', function () use ($r) { return $r->set(k('k2'), 'b'); }, 'ok');
    attempt($r, 'exists-multi', function () use ($r) {
        return $r->exists(k('k1'), k('k2'), k('missing'), k('k1'));
    }, 'integer');
    attempt($r, 'del-multi', function () use ($r) { return $r->del(k('k1'), k('missing')); }, 'integer');
    attempt($r, 'exists-deleted', function () use ($r) { return $r->exists(k('k1')); }, 'integer');
    attempt($r, 'type-string', function () use ($r) { return $r->type(k('k2')); }, 'type_name');
    attempt($r, 'type-none', function () use ($r) { return $r->type(k('missing')); }, 'type_name');
    attempt($r, 'ttl-no-expiry', function () use ($r) { return $r->ttl(k('k2')); }, 'integer');
    attempt($r, 'expire', function () use ($r) { return $r->expire(k('k2'), 100); }, 'flag');
    attempt($r, 'ttl', function () use ($r) { return $r->ttl(k('k2')); }, in_range(1, 100));
    attempt($r, 'pttl', function () use ($r) { return $r->pttl(k('k2')); }, in_range(1, 100000));
    attempt($r, 'persist', function () use ($r) { return $r->persist(k('k2')); }, 'flag');
    attempt($r, 'ttl-persisted', function () use ($r) { return $r->ttl(k('k2')); }, 'integer');
    attempt($r, 'persist-again', function () use ($r) { return $r->persist(k('k2')); }, 'flag');
    attempt($r, 'ttl-missing', function () use ($r) { return $r->ttl(k('missing')); }, 'integer');
    attempt($r, 'pttl-missing', function () use ($r) { return $r->pttl(k('missing')); }, 'integer');
    attempt($r, 'expire-missing', function () use ($r) { return $r->expire(k('missing'), 100); }, 'flag');
    attempt($r, 'set-k3', function () use ($r) { return $r->set(k('k3'), 'c'); }, 'ok');
    attempt($r, 'expire-0', function () use ($r) { return $r->expire(k('k3'), 0); }, 'flag');
    attempt($r, 'exists-expired', function () use ($r) { return $r->exists(k('k3')); }, 'integer');
    attempt($r, 'cleanup', function () use ($r) { return $r->del(k('k2')); }, 'integer');
}

function pipeline($r) {
    $p = $r->multi(Redis::PIPELINE);
    $wanted = [];
    for ($i = 0; $i < 400; $i++) { $p->set(k("p:$i"), "v$i"); $wanted[] = true; }
    for ($i = 0; $i < 100; $i++) { $p->incr(k('pc')); $wanted[] = $i + 1; }
    for ($i = 0; $i < 400; $i++) { $p->get(k("p:$i")); $wanted[] = "v$i"; }
    for ($i = 0; $i < 100; $i++) { $p->del(k("p:$i")); $wanted[] = 1; }
    $r->clearLastError();
    $replies = $p->exec();
    show('pipeline-replies', (string)count($replies));
    // An error reply inside a pipeline is false, and getLastError() holds the last one.
    $errors = 0;
    foreach ($replies as $i => $got) {
        if ($got === false && $wanted[$i] !== false) $errors++;
    }
    show('pipeline-errors', $r->getLastError() === null ? (string)$errors : "$errors: " . $r->getLastError());
    foreach ($replies as $i => $got) {
        if ($got !== false && $got !== $wanted[$i]) show('pipeline-unexpected', "$i " . var_export($got, true));
    }
    $range = function ($from, $to) { return array_map(function ($i) { return k("p:$i"); }, range($from, $to - 1)); };
    attempt($r, 'get-counter', function () use ($r) { return $r->get(k('pc')); }, 'bulk');
    attempt($r, 'exists-kept', function () use ($r, $range) { return $r->exists(...$range(0, 400)); }, 'integer');
    attempt($r, 'get-kept', function () use ($r) { return $r->get(k('p:123')); }, 'bulk');
    attempt($r, 'get-deleted', function () use ($r) { return $r->get(k('p:50')); }, 'bulk');
    attempt($r, 'cleanup', function () use ($r, $range) {
        return $r->del(array_merge([k('pc')], $range(100, 400)));
    }, 'integer');
}

function hashes($r) {
    $h = hk('h1');
    $s = k('hs');
    attempt($r, 'hset-new', function () use ($r, $h) {
        return $r->rawCommand('HSET', $h, 'name', 'Ada', 'email', 'ada@example.org', 'visits', '1', 'note', 'x');
    }, 'integer');
    attempt($r, 'hget', function () use ($r, $h) { return $r->hGet($h, 'name'); }, 'bulk');
    attempt($r, 'hexists', function () use ($r, $h) { return $r->hExists($h, 'email'); }, 'flag');
    attempt($r, 'hdel', function () use ($r, $h) { return $r->hDel($h, 'note'); }, 'integer');
    attempt($r, 'hdel-again', function () use ($r, $h) { return $r->hDel($h, 'note'); }, 'integer');
    attempt($r, 'hexists-deleted', function () use ($r, $h) { return $r->hExists($h, 'note'); }, 'flag');
    attempt($r, 'hget-deleted', function () use ($r, $h) { return $r->hGet($h, 'note'); }, 'bulk');
    attempt($r, 'hincrby', function () use ($r, $h) { return $r->hIncrBy($h, 'visits', 5); }, 'integer');
    attempt($r, 'hmget', function () use ($r, $h) { return $r->hMGet($h, ['name', 'visits', 'note']); },
            function ($v) { return is_array($v) ? lst([$v['name'], $v['visits'], $v['note']]) : what($v); });
    attempt($r, 'hlen', function () use ($r, $h) { return $r->hLen($h); }, 'integer');
    attempt($r, 'hgetall', function () use ($r, $h) { return $r->hGetAll($h); }, 'hash_text');
    attempt($r, 'hset-existing', function () use ($r, $h) { return $r->hSet($h, 'name', 'Grace'); }, 'integer');
    attempt($r, 'hget-updated', function () use ($r, $h) { return $r->hGet($h, 'name'); }, 'bulk');
    attempt($r, 'type-hash', function () use ($r, $h) { return $r->type($h); }, 'type_name');
    attempt($r, 'hgetall-missing', function () use ($r) { return $r->hGetAll(hk('missing')); }, 'hash_text');
    attempt($r, 'hlen-missing', function () use ($r) { return $r->hLen(hk('missing')); }, 'integer');
    attempt($r, 'set-string', function () use ($r, $s) { return $r->set($s, 'v'); }, 'ok');
    attempt($r, 'hget-wrongtype', function () use ($r, $s) { return $r->hGet($s, 'name'); }, 'bulk');
    attempt($r, 'del-hash', function () use ($r, $h) { return $r->del($h); }, 'integer');
    attempt($r, 'exists-hash-deleted', function () use ($r, $h) { return $r->exists($h); }, 'integer');
    attempt($r, 'cleanup', function () use ($r, $s) { return $r->del($s); }, 'integer');
}

function transactions($r) {
    attempt($r, 'exec', function () use ($r) {
        return $r->multi()->set(k('t1'), 'a')->incr(k('t2'))->get(k('t1'))->exec();
    }, function ($v) { return is_array($v) ? '[' . ok($v[0]) . ', ' . integer($v[1]) . ', ' . bulk($v[2]) . ']' : what($v); });
    attempt($r, 'after-exec', function () use ($r) { return $r->get(k('t2')); }, 'bulk');
    attempt($r, 'multi', function () use ($r) { return $r->multi(); },
            function ($v) { return $v instanceof Redis ? '+OK' : what($v); });
    attempt($r, 'queued', function () use ($r) { return $r->set(k('t3'), 'x'); }, 'queued');
    attempt($r, 'discard', function () use ($r) { return $r->discard(); }, 'ok');
    attempt($r, 'after-discard', function () use ($r) { return $r->exists(k('t3')); }, 'integer');
    attempt($r, 'multi-empty', function () use ($r) { return $r->multi(); },
            function ($v) { return $v instanceof Redis ? '+OK' : what($v); });
    attempt($r, 'exec-empty', function () use ($r) { return $r->exec(); },
            function ($v) { return $v === [] ? '[]' : what($v); });
    attempt($r, 'cleanup', function () use ($r) { return $r->del(k('t1'), k('t2')); }, 'integer');
}

$r = new Redis();
$r->connect($host, (int)$port, 5.0);
$r->setOption(Redis::OPT_READ_TIMEOUT, 5);
foreach ($sections as $section) {
    echo "[$section]\n";
    $section($r);
}
$r->close();
