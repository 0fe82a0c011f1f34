# Loaded (perl -MRegtestShims) into each of the original HandlerSocket's regression
# tests (plugin/handler_socket/regtest), run from the MariaDB source by
# test_hs_clients.py. The tests were written for the Perl of 2011 and for DBD::mysql;
# these shims let them run unchanged on today's Perl and DBD::MariaDB. None changes
# a byte that Net::HandlerSocket sends or reads.
package RegtestShims;
use strict;
use warnings;
use lib "../common";
use DBI;
use Math::BigInt;
require hstest;
require Net::HandlerSocket;

no warnings 'redefine';

# The tests hard-code 9999 for the write listener; the harness picks free ports.
my $get_hs = \&hstest::get_hs_connection;
*hstest::get_hs_connection = sub {
  my ($host, $port) = @_;
  $port = $ENV{HSPORT_WR} if defined($port) && $port == 9999;
  return $get_hs->($host, $port);
};

# DBD::MariaDB sends a Perl byte string as UTF-8 unless it is bound as binary;
# DBD::mysql, which the expected outputs were made with, sent its bytes.
my $get_dbi = \&hstest::get_dbi_connection;
*hstest::get_dbi_connection = sub {
  my $dbh = $get_dbi->(@_);
  $dbh->{Callbacks} = { ChildCallbacks => { execute => sub {
    my $sth = $_[0];
    for my $i (1 .. $#_) {
      my $v = $_[$i];
      next if !defined($v) || ref($v) || utf8::is_utf8($v);
      $sth->bind_param($i, $v, DBI::SQL_BINARY());
    }
    return;
  } } };
  return $dbh;
};

# bigint's `/` rounds toward minus infinity today; when the expected outputs were
# made it truncated toward zero (-128 / 3 was -42).
*Math::BigInt::bdiv = \&Math::BigInt::btdiv;

# Net::HandlerSocket answers NULL as Perl's read-only undef, and today's Perl refuses
# the tests' `$fld = 'NULL' if !defined($fld)` on it; a copy of each answer is
# writable.
for my $m (qw(execute_single execute_find execute_update execute_delete execute_insert)) {
  my $orig = Net::HandlerSocket->can($m);
  no strict 'refs';
  *{"Net::HandlerSocket::$m"} = sub { my $r = $orig->(@_); return ref($r) ? [@$r] : $r; };
}
my $multi = \&Net::HandlerSocket::execute_multi;
*Net::HandlerSocket::execute_multi = sub {
  my $r = $multi->(@_);
  return ref($r) ? [map { ref($_) ? [@$_] : $_ } @$r] : $r;
};

1;
