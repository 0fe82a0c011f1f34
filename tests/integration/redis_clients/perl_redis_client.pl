#!/usr/bin/perl
# Perl's Redis (Debian's libredis-perl) runs the scenario of README.md.
#
# Usage: perl perl_redis_client.pl HOST PORT PREFIX HPREFIX SECTION...
#
# Every command is a method of the Redis object (its AUTOLOAD sends any command); an
# error reply dies with `[command] TEXT, at ...`. Pipelining is Redis.pm's own: a
# callback per command, then wait_all_responses. RESP2 only: Redis.pm has no RESP3.
# Perl does not tell an integer reply from a string one, so each step's form is the
# reply type Redis gives that command.
use strict;
use warnings;
use Redis;

my ($host, $port, $prefix, $hprefix, @sections) = @ARGV;
my $big = join('', map { chr } 0 .. 255) x 4096;

sub key { return "$prefix:$_[0]" }
sub hkey { return "$hprefix:$_[0]" }

# Redis's own repr of a string (sdscatrepr), quoted.
sub repr {
    my ($s) = @_;
    my $out = '"';
    for my $c (split //, $s) {
        my $b = ord $c;
        if ($c eq '\\' || $c eq '"') { $out .= "\\$c" }
        elsif ($c eq "\n") { $out .= '\n' }
        elsif ($c eq "\r") { $out .= '\r' }
        elsif ($c eq "\t") { $out .= '\t' }
        elsif ($b == 7) { $out .= '\a' }
        elsif ($b == 8) { $out .= '\b' }
        elsif ($b >= 0x20 && $b < 0x7f) { $out .= $c }
        else { $out .= sprintf('\x%02x', $b) }
    }
    return "$out\"";
}

sub what { my ($v) = @_; return 'TYPE? ' . (defined $v ? (ref $v ? ref $v : "'$v'") : 'undef') }
sub bulk { my ($v) = @_; return !defined $v ? 'nil' : ref $v ? what($v) : repr($v) }
sub integer { my ($v) = @_; return defined $v && $v =~ /^-?\d+$/ ? ":$v" : what($v) }
sub ok { my ($v) = @_; return !defined $v ? 'nil' : $v eq 'OK' ? '+OK' : what($v) }
sub status { my ($v) = @_; return defined $v && !ref $v ? "+$v" : what($v) }
sub lst { my ($v) = @_; return ref $v eq 'ARRAY' ? '[' . join(', ', map { bulk($_) } @$v) . ']' : what($v) }
sub in_range {
    my ($low, $high) = @_;
    return sub {
        my ($v) = @_;
        return defined $v && $v =~ /^-?\d+$/ && $v >= $low && $v <= $high
            ? "in $low..$high" : "out of $low..$high: " . (defined $v ? $v : 'undef');
    };
}
sub hash_text {
    my ($v) = @_;
    return what($v) unless ref $v eq 'ARRAY';
    my %h = @$v;
    return '{' . join(', ', map { repr($_) . ': ' . bulk($h{$_}) } sort keys %h) . '}';
}

sub show { print "$_[0] $_[1]\n" }

# An error reply's text out of Redis.pm's `[command] TEXT, at FILE line N.`
sub error_text {
    my ($e) = @_;
    $e =~ s/^\[[^\]]*\] //;
    $e =~ s/,\s+at \S+ line \d+\.?\s*\z//;
    return "-$e";
}

sub attempt {
    my ($step, $fn, $fmt) = @_;
    my $v;
    if (eval { $v = $fn->(); 1 }) { show($step, $fmt->($v)) }
    else { show($step, error_text($@)) }
}

sub connect_section {
    my ($r) = @_;
    attempt('ping', sub { $r->ping }, \&status);
    attempt('echo', sub { $r->echo('hello world') }, \&bulk);
    my %fields = @{ scalar $r->hello(2) };
    show('hello-fields', join(',', sort keys %fields));
    show('hello-proto', ($fields{proto} // '') eq '2' ? 'same' : 'differs ' . join(' ', %fields));
    attempt('select-0', sub { $r->select(0) }, \&ok);
    attempt('client-setname', sub { $r->client_setname('rctest') }, \&ok);
    attempt('client-getname', sub { $r->client_getname }, \&bulk);
    attempt('client-id', sub { $r->client('ID') },
            sub { defined $_[0] && $_[0] =~ /^[1-9]\d*$/ ? 'positive' : what($_[0]) });
}

sub strings {
    my ($r) = @_;
    attempt('set', sub { $r->set(key('s'), 'v1') }, \&ok);
    attempt('get', sub { $r->get(key('s')) }, \&bulk);
    attempt('get-missing', sub { $r->get(key('missing')) }, \&bulk);
    attempt('set-xx', sub { $r->set(key('s'), 'v2', 'XX') }, \&ok);
    attempt('set-xx-missing', sub { $r->set(key('x'), 'v', 'XX') }, \&ok);
    attempt('set-nx', sub { $r->set(key('nx'), 'v', 'NX') }, \&ok);
    attempt('set-nx-exists', sub { $r->set(key('nx'), 'w', 'NX') }, \&ok);
    attempt('set-get', sub { $r->set(key('s'), 'v3', 'GET') }, \&bulk);
    attempt('get-after-set-get', sub { $r->get(key('s')) }, \&bulk);
    attempt('set-ex', sub { $r->set(key('ex'), 'v', 'EX', 100) }, \&ok);
    attempt('ttl-ex', sub { $r->ttl(key('ex')) }, in_range(1, 100));
    attempt('set-px', sub { $r->set(key('px'), 'v', 'PX', 100000) }, \&ok);
    attempt('pttl-px', sub { $r->pttl(key('px')) }, in_range(1, 100000));
    attempt('mset', sub { $r->mset(key('m1'), 'a', key('m2'), 'b') }, \&ok);
    attempt('mget', sub { [$r->mget(key('m1'), key('missing'), key('m2'))] }, \&lst);
    attempt('incr', sub { $r->incr(key('n')) }, \&integer);
    attempt('incrby', sub { $r->incrby(key('n'), 10) }, \&integer);
    attempt('decr', sub { $r->decr(key('n')) }, \&integer);
    attempt('decrby', sub { $r->decrby(key('n'), 3) }, \&integer);
    attempt('get-counter', sub { $r->get(key('n')) }, \&bulk);
    attempt('incr-not-integer', sub { $r->incr(key('s')) }, \&integer);
    attempt('append-new', sub { $r->append(key('a'), 'hello') }, \&integer);
    attempt('append', sub { $r->append(key('a'), ' world') }, \&integer);
    attempt('strlen', sub { $r->strlen(key('a')) }, \&integer);
    attempt('strlen-missing', sub { $r->strlen(key('missing')) }, \&integer);
    attempt('getset', sub { $r->getset(key('a'), 'x') }, \&bulk);
    attempt('getdel', sub { $r->getdel(key('a')) }, \&bulk);
    attempt('getdel-missing', sub { $r->getdel(key('a')) }, \&bulk);
    attempt('setnx', sub { $r->setnx(key('snx'), 'v') }, \&integer);
    attempt('setnx-exists', sub { $r->setnx(key('snx'), 'w') }, \&integer);
    my $bin = key("bin\0\r\n\xff");
    attempt('set-binary', sub { $r->set($bin, "a\0b\r\nc\xff") }, \&ok);
    attempt('get-binary', sub { $r->get($bin) }, \&bulk);
    attempt('strlen-binary', sub { $r->strlen($bin) }, \&integer);
    attempt('set-1mb', sub { $r->set(key('big'), $big) }, \&ok);
    attempt('get-1mb', sub { $r->get(key('big')) },
            sub { defined $_[0] && $_[0] eq $big ? 'same' : 'differs (' . length($_[0] // '') . ' bytes)' });
    attempt('strlen-1mb', sub { $r->strlen(key('big')) }, \&integer);
    attempt('cleanup', sub { $r->del((map { key($_) } qw(s nx ex px m1 m2 n snx)), $bin, key('big')) },
            \&integer);
}

sub keys_section {
    my ($r) = @_;
    attempt('set-k1', sub { $r->set(key('k1'), 'a') }, \&ok);
    attempt('set-k2', sub { $r->set(key('k2'), 'b') }, \&ok);
    attempt('exists-multi', sub { $r->exists(key('k1'), key('k2'), key('missing'), key('k1')) }, \&integer);
    attempt('del-multi', sub { $r->del(key('k1'), key('missing')) }, \&integer);
    attempt('exists-deleted', sub { $r->exists(key('k1')) }, \&integer);
    attempt('type-string', sub { $r->type(key('k2')) }, \&status);
    attempt('type-none', sub { $r->type(key('missing')) }, \&status);
    attempt('ttl-no-expiry', sub { $r->ttl(key('k2')) }, \&integer);
    attempt('expire', sub { $r->expire(key('k2'), 100) }, \&integer);
    attempt('ttl', sub { $r->ttl(key('k2')) }, in_range(1, 100));
    attempt('pttl', sub { $r->pttl(key('k2')) }, in_range(1, 100000));
    attempt('persist', sub { $r->persist(key('k2')) }, \&integer);
    attempt('ttl-persisted', sub { $r->ttl(key('k2')) }, \&integer);
    attempt('persist-again', sub { $r->persist(key('k2')) }, \&integer);
    attempt('ttl-missing', sub { $r->ttl(key('missing')) }, \&integer);
    attempt('pttl-missing', sub { $r->pttl(key('missing')) }, \&integer);
    attempt('expire-missing', sub { $r->expire(key('missing'), 100) }, \&integer);
    attempt('set-k3', sub { $r->set(key('k3'), 'c') }, \&ok);
    attempt('expire-0', sub { $r->expire(key('k3'), 0) }, \&integer);
    attempt('exists-expired', sub { $r->exists(key('k3')) }, \&integer);
    attempt('cleanup', sub { $r->del(key('k2')) }, \&integer);
}

sub pipeline {
    my ($r) = @_;
    my (@got, @errors, @wanted);
    my $i = 0;
    my $collect = sub { my $n = $i++; return sub { $got[$n] = $_[0]; push @errors, $n if defined $_[1] } };
    for my $n (0 .. 399) { $r->set(key("p:$n"), "v$n", $collect->()); push @wanted, 'OK' }
    for my $n (0 .. 99) { $r->incr(key('pc'), $collect->()); push @wanted, $n + 1 }
    for my $n (0 .. 399) { $r->get(key("p:$n"), $collect->()); push @wanted, "v$n" }
    for my $n (0 .. 99) { $r->del(key("p:$n"), $collect->()); push @wanted, 1 }
    $r->wait_all_responses;
    show('pipeline-replies', scalar @got);
    show('pipeline-errors', scalar @errors);
    for my $n (0 .. $#got) {
        show('pipeline-unexpected', "$n " . ($got[$n] // 'undef'))
            unless defined $got[$n] && $got[$n] eq $wanted[$n];
    }
    attempt('get-counter', sub { $r->get(key('pc')) }, \&bulk);
    attempt('exists-kept', sub { $r->exists(map { key("p:$_") } 0 .. 399) }, \&integer);
    attempt('get-kept', sub { $r->get(key('p:123')) }, \&bulk);
    attempt('get-deleted', sub { $r->get(key('p:50')) }, \&bulk);
    attempt('cleanup', sub { $r->del(key('pc'), map { key("p:$_") } 100 .. 399) }, \&integer);
}

sub hashes {
    my ($r) = @_;
    my ($h, $s) = (hkey('h1'), key('hs'));
    attempt('hset-new', sub { $r->hset($h, name => 'Ada', email => 'ada@example.org', visits => 1, note => 'x') },
            \&integer);
    attempt('hget', sub { $r->hget($h, 'name') }, \&bulk);
    attempt('hexists', sub { $r->hexists($h, 'email') }, \&integer);
    attempt('hdel', sub { $r->hdel($h, 'note') }, \&integer);
    attempt('hdel-again', sub { $r->hdel($h, 'note') }, \&integer);
    attempt('hexists-deleted', sub { $r->hexists($h, 'note') }, \&integer);
    attempt('hget-deleted', sub { $r->hget($h, 'note') }, \&bulk);
    attempt('hincrby', sub { $r->hincrby($h, 'visits', 5) }, \&integer);
    attempt('hmget', sub { [$r->hmget($h, 'name', 'visits', 'note')] }, \&lst);
    attempt('hlen', sub { $r->hlen($h) }, \&integer);
    attempt('hgetall', sub { [$r->hgetall($h)] }, \&hash_text);
    attempt('hset-existing', sub { $r->hset($h, 'name', 'Grace') }, \&integer);
    attempt('hget-updated', sub { $r->hget($h, 'name') }, \&bulk);
    attempt('type-hash', sub { $r->type($h) }, \&status);
    attempt('hgetall-missing', sub { [$r->hgetall(hkey('missing'))] }, \&hash_text);
    attempt('hlen-missing', sub { $r->hlen(hkey('missing')) }, \&integer);
    attempt('set-string', sub { $r->set($s, 'v') }, \&ok);
    attempt('hget-wrongtype', sub { $r->hget($s, 'name') }, \&bulk);
    attempt('del-hash', sub { $r->del($h) }, \&integer);
    attempt('exists-hash-deleted', sub { $r->exists($h) }, \&integer);
    attempt('cleanup', sub { $r->del($s) }, \&integer);
}

sub transactions {
    my ($r) = @_;
    attempt('exec', sub {
        $r->multi;
        $r->set(key('t1'), 'a');
        $r->incr(key('t2'));
        $r->get(key('t1'));
        return [$r->exec];
    }, sub { my ($v) = @_; '[' . ok($v->[0]) . ', ' . integer($v->[1]) . ', ' . bulk($v->[2]) . ']' });
    attempt('after-exec', sub { $r->get(key('t2')) }, \&bulk);
    attempt('multi', sub { $r->multi }, \&ok);
    attempt('queued', sub { $r->set(key('t3'), 'x') }, \&status);
    attempt('discard', sub { $r->discard }, \&ok);
    attempt('after-discard', sub { $r->exists(key('t3')) }, \&integer);
    attempt('multi-empty', sub { $r->multi }, \&ok);
    attempt('exec-empty', sub { [$r->exec] }, sub { ref $_[0] eq 'ARRAY' && !@{ $_[0] } ? '[]' : lst($_[0]) });
    attempt('cleanup', sub { $r->del(key('t1'), key('t2')) }, \&integer);
}

sub execabort {
    my ($r) = @_;
    attempt('multi', sub { $r->multi }, \&ok);
    attempt('queued', sub { $r->set(key('t4'), 'a') }, \&status);
    attempt('queue-error', sub { $r->set(key('t5')) }, \&status);
    attempt('execabort', sub { [$r->exec] }, \&lst);
    attempt('after-execabort', sub { $r->exists(key('t4'), key('t5')) }, \&integer);
}

my %run = (connect => \&connect_section, strings => \&strings, keys => \&keys_section,
           pipeline => \&pipeline, hashes => \&hashes, transactions => \&transactions,
           execabort => \&execabort);
$| = 1;
my $r = Redis->new(server => "$host:$port", reconnect => 0, cnx_timeout => 5, read_timeout => 5);
for my $section (@sections) {
    print "[$section]\n";
    $run{$section}->($r);
}
$r->quit;
