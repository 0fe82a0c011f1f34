#!/usr/bin/perl
# Perl's memcached clients as applications use them: Cache::Memcached (Debian's
# libcache-memcached-perl, pure Perl) and Cache::Memcached::Fast (its XS successor):
# stats or server versions on connect, Storable-serialized references and compressed
# large values through flags, multi-gets, CAS (Fast), incr/decr, expiry, key hashing
# over two servers (Fast: ketama), and reconnecting after a restart. Run as
# `perl perl_client.pl MODULE HOST:PORT HOST:PORT PREFIX`; prints `ok <check>` or
# `FAIL <check>: <why>` per check and `restart` where the test restarts the first
# server (then reads a line); exits 0 only when every check passed.
use strict;
use warnings;
use Compress::Zlib ();
use IO::Socket::INET;
use Storable ();
use Time::HiRes qw(time sleep);

my ($module, $a, $b, $prefix) = @ARGV;
eval "require $module" or die $@;
my $fast = $module eq 'Cache::Memcached::Fast';
my $failed = 0;
my @STATS_FIELDS = qw(pid uptime time version curr_connections total_connections cmd_get
                      cmd_set get_hits get_misses curr_items bytes limit_maxbytes threads
                      evictions);
$| = 1;

sub k { "$prefix:$_[0]" }
sub check {
    my ($name, $fn) = @_;
    if (eval { $fn->(); 1 }) { print "ok $name\n" }
    else { $failed++; (my $e = $@) =~ s/\s+$//; print "FAIL $name: $e\n" }
}
sub shown { my $s = defined $_[0] ? (ref $_[0] ? Storable::freeze($_[0]) : $_[0]) : 'undef';
            length $s > 200 ? substr($s, 0, 200) . '...' : $s }
sub expect {
    my ($got, $wanted, $what) = @_;
    my $same = (defined $got && defined $wanted)
        ? (ref $wanted ? do { local $Storable::canonical = 1;
                              Storable::freeze($got) eq Storable::freeze($wanted) }
                       : $got eq $wanted)
        : !defined $got && !defined $wanted;
    die(($what // 'value') . ': got ' . shown($got) . ', expected ' . shown($wanted) . "\n")
        unless $same;
}
sub client {
    my (@servers) = @_;
    my %options = (servers => [@servers], compress_threshold => 10_000);
    if ($fast) { $options{connect_timeout} = 5; $options{io_timeout} = 10;
                 $options{max_failures} = 0; $options{ketama_points} = 150 if @servers > 1 }
    return $module->new(\%options);
}
# The item as the server stores it, read over the text protocol by hand.
sub stored {
    my ($server, $key) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => $server, Timeout => 5) or die "connect: $!\n";
    print $s "get $key\r\n";
    my $head = <$s>;
    return undef unless $head =~ /^VALUE \S+ (\d+) (\d+)\r\n$/;
    my ($flags, $n) = ($1, $2);
    read($s, my $data, $n + 2) == $n + 2 or die "short read\n";
    return { flags => $flags, value => substr($data, 0, $n) };
}

my $mc = client($a);
$mc->set(k('ttl'), 'soon', 1);
my $expiring_since = time;  # the expiry wait counts from here
$mc->set(k('stays'), 'long', 3600);

check(($fast ? 'server versions' : 'stats') . ' on connect', sub {
    if ($fast) {
        my $versions = $mc->server_versions;
        die "no version\n" unless $versions->{$a};
        die "version = '$versions->{$a}'\n" unless $versions->{$a} =~ /^\d+\.\d+\.\d+$/;
    } else {
        my $stats = $mc->stats(['misc'])->{hosts}{$a}{misc} or die "no stats\n";
        my @missing = grep { !exists $stats->{$_} } @STATS_FIELDS;
        die "stats lacks @missing\n" if @missing;
        die "version = '$stats->{version}'\n" unless $stats->{version} =~ /^\d+\.\d+\.\d+$/;
    }
});

check('Storable-serialized references through flags', sub {
    my $value = { user => 'ann', roles => [qw(admin dev)], prefs => { lang => 'ja' } };
    $mc->set(k('ref'), $value) or die "set failed\n";
    expect(scalar $mc->get(k('ref')), $value);
    my $raw = stored($a, k('ref'));
    die "flags $raw->{flags} do not say serialized\n" unless $raw->{flags} & 1;
});

check('compressed large values', sub {
    my $big = 'a line that compresses well ' x 4000;
    $mc->set(k('big'), $big) or die "set failed\n";
    expect(scalar $mc->get(k('big')), $big);
    my $raw = stored($a, k('big'));
    die "not stored compressed\n" unless $raw->{flags} & 2
        && length($raw->{value}) < length($big) / 10;
    expect(Compress::Zlib::memGunzip($raw->{value}) // Compress::Zlib::uncompress($raw->{value}),
           $big, 'the stored bytes inflated');
});

check('multi-get of 200 keys', sub {
    my %items = map { (k("m$_") => "v$_") } 0 .. 199;
    $mc->set($_, $items{$_}) or die "set $_ failed\n" for keys %items;
    my $got = $mc->get_multi(keys %items, k('absent'));
    expect($got, \%items);
});

if ($fast) {
    check('cas', sub {
        $mc->set(k('cas'), 'one');
        my $r = $mc->gets(k('cas')) or die "gets failed\n";
        expect($r->[1], 'one');
        $mc->cas(k('cas'), $r->[0], 'two') or die "cas failed\n";
        die "a stale CAS was accepted\n" if $mc->cas(k('cas'), $r->[0], 'three');
        expect(scalar $mc->get(k('cas')), 'two');
    });
}

check('incr and decr', sub {
    $mc->set(k('n'), 20);
    expect($mc->incr(k('n'), 22), 42);
    my $zero = $mc->decr(k('n'), 100);
    die "decr below zero: " . shown($zero) . "\n" unless defined $zero && $zero == 0;
    die "incr of a missing key answered true\n" if $mc->incr(k('absent-n'));
});

check('add, replace, delete', sub {
    $mc->add(k('ar'), 'first') or die "add failed\n";
    die "add of a present key succeeded\n" if $mc->add(k('ar'), 'second');
    $mc->replace(k('ar'), 'new') or die "replace failed\n";
    die "replace of a missing key succeeded\n" if $mc->replace(k('absent-ar'), 'x');
    expect(scalar $mc->get(k('ar')), 'new');
    $mc->delete(k('ar')) or die "delete failed\n";
    die "a second delete succeeded\n" if $mc->delete(k('ar'));
    expect(scalar $mc->get(k('ar')), undef);
});

check('key hashing over two servers' . ($fast ? ' (ketama)' : ''), sub {
    my $ring = client($a, $b);
    my @keys = map { k("h$_") } 0 .. 99;
    $ring->set($_, $_) or die "set $_ failed\n" for @keys;
    expect($ring->get_multi(@keys), { map { ($_ => $_) } @keys });
    my @on = map { my $g = client($_)->get_multi(@keys); [keys %$g] } $a, $b;
    die "keys on each server: " . @{$on[0]} . ", " . @{$on[1]} . "\n"
        unless @{$on[0]} && @{$on[1]};
    my %seen; $seen{$_}++ for @{$on[0]}, @{$on[1]};
    die "a key not on exactly one server\n"
        if grep({ $_ != 1 } values %seen) || keys %seen != 100;
    $ring->delete($_) for @keys;
});

check('expiry', sub {
    sleep(max0($expiring_since + 2.2 - time));
    expect(scalar $mc->get(k('ttl')), undef, 'an item past its exptime');
    expect(scalar $mc->get(k('stays')), 'long');
});
sub max0 { $_[0] > 0 ? $_[0] : 0 }

print "restart\n";
<STDIN>;

check('reconnect after a restart', sub {
    my $deadline = time + 15;
    # Cache::Memcached marks a server dead for 30 s after an error; applications
    # that expect restarts forget that (forget_dead_hosts) before retrying.
    until ($mc->set(k('after'), 'back')) {
        die "no reconnect within 15 s\n" if time > $deadline;
        $mc->forget_dead_hosts unless $fast;
        sleep 0.2;
    }
    expect(scalar $mc->get(k('after')), 'back');
});
exit($failed ? 1 : 0);
