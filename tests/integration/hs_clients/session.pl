#!/usr/bin/perl
# A session of Perl's Net::HandlerSocket, the original HandlerSocket's own client,
# as its documentation shows it: open an index, find by id, then pipelines of finds
# and writes with execute_multi. test_hs_clients.py runs it against rowsocket and
# against the original plugin in the same server, and compares what it prints.
# Arguments: host, read port, write port. Prints one line per answer: the error
# code, then the values, `|`-separated, NULL as `NULL`.
use strict;
use warnings;
use Net::HandlerSocket;

my ($host, $port, $port_wr) = @ARGV;

sub show {
  my ($what, $res) = @_;
  print "$what: ", join('|', map { defined($_) ? $_ : 'NULL' } @$res), "\n";
}

# The synopsis: open the primary key, find the row whose id is 101.
my $hs = new Net::HandlerSocket({ host => $host, port => $port });
my $err = $hs->open_index(0, 'test', 'user', 'PRIMARY', 'user_name,user_email,created');
die $hs->get_error() if $err != 0;
my $res = $hs->execute_single(0, '=', [ '101' ], 1, 0);
die $hs->get_error() if $res->[0] != 0;
shift(@$res);
print join("\t", @$res), "\n";

# The primary key by its empty name, a secondary index, IN and a filter.
show('open empty name', [ $hs->open_index(1, 'test', 'user', '', 'user_name') ]);
show('find empty name', $hs->execute_single(1, '=', [ '101' ], 1, 0));
show('open secondary', [ $hs->open_index(2, 'test', 'hsc', 'k_name', 'id,name,n', 'n') ]);
show('find secondary', $hs->execute_single(2, '=', [ 'bob' ], 10, 0));
show('find secondary default limit', $hs->execute_single(2, '>=', [ 'a' ], 0, 0));
show('find with offset', $hs->execute_single(2, '>=', [ 'a' ], 2, 1));
show('find with filter', $hs->execute_single(2, '>=', [ 'a' ], 10, 0, undef, undef,
                                             [ [ 'F', '>', 0, '15' ] ]));
show('find with IN', $hs->execute_single(2, '=', [ '' ], 10, 0, undef, undef, undef, 0,
                                         [ 'carol', 'alice' ]));

# Pipelines on the write port: reads, every write, an error in the middle.
my $wr = new Net::HandlerSocket({ host => $host, port => $port_wr });
show('open write', [ $wr->open_index(3, 'test', 'hsc', 'PRIMARY', 'id,name,n') ]);
show('open write n', [ $wr->open_index(4, 'test', 'hsc', 'PRIMARY', 'n') ]);
my $all = $wr->execute_multi([
  [ 3, '>=', [ 0 ], 100, 0 ],
  [ 3, '+', [ 10, 'dave', 40 ] ],
  [ 3, '=', [ 2 ], 1, 0, 'U', [ 2, 'bobby', 21 ] ],
  [ 4, '=', [ 1 ], 1, 0, '+', [ 5 ] ],
  [ 4, '=', [ 3 ], 1, 0, '-', [ 1 ] ],
  [ 9, '=', [ 1 ], 1, 0 ],
  [ 3, '=', [ 10 ], 1, 0, 'D' ],
  [ 3, '>=', [ 0 ], 0, 0, 'U?', [ 1, 'first', 16 ] ],
  [ 3, '>=', [ 0 ], 100, 0 ],
]);
my $i = 0;
show('multi ' . $i++, $_) for @$all;
show('after multi', $wr->execute_single(3, '>=', [ 0 ], 100, 0));
