# Talks rowsocket's text protocol (docs/PROTOCOL.md) over TCP, for the --perl
# blocks of the tests:
#   require "$ENV{MTR_SUITE_DIR}/include/wire.pl";
#   my $c = rs_connect($ENV{ROWSOCKET_PORT});
#   rs_request($c, "P", 0, "test", "t1", "PRIMARY", "k,v");
# rs_request sends one request line made of the given tokens (encoded: a byte
# below 0x10 travels as 0x01 and the byte + 0x40; undef is NULL) and reads its
# answer. Both are printed for the result file, tokens separated by spaces as
# PROTOCOL.md writes them, NULL as \N and other bytes below 0x20 as \xNN.
# Every wait is bounded (a test fails, it does not hang) without asserting
# anything about time.
use strict;
use warnings;
use IO::Socket::INET;

my $rs_wait_seconds = 60;
# Bytes rs_request has sent, over all its connections.
our $rs_bytes_sent = 0;

sub rs_connect {
  my ($port) = @_;
  my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
                                   Proto => 'tcp', Timeout => $rs_wait_seconds)
    or die "cannot connect to rowsocket on port $port: $!\n";
  binmode $sock;
  return $sock;
}

# Whether a listener accepts connections on the port now (1) or refuses them (0).
sub rs_accepts {
  my ($port) = @_;
  my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
                                   Proto => 'tcp', Timeout => $rs_wait_seconds);
  return 0 unless $sock;
  close $sock;
  return 1;
}

sub rs_encode {
  my ($token) = @_;
  return "\0" unless defined $token;
  $token =~ s/([\x00-\x0f])/"\x01" . chr(ord($1) + 0x40)/ge;
  return $token;
}

sub rs_decode {
  my ($token) = @_;
  return undef if $token eq "\0";
  $token =~ s/\x01([\x40-\x4f])/chr(ord($1) - 0x40)/ge;
  return $token;
}

sub rs_show_tokens {
  return join ' ', map {
    my $t = $_;
    if (!defined $t) { '\N' }
    else { $t =~ s/([\x00-\x1f\x7f])/sprintf('\\x%02x', ord($1))/ge; $t eq '' ? "''" : $t }
  } @_;
}

# Reads one answer line; dies when the connection ends first or nothing comes.
sub rs_read_answer {
  my ($sock) = @_;
  my $line;
  local $SIG{ALRM} = sub { die "no answer from rowsocket within $rs_wait_seconds s\n" };
  alarm $rs_wait_seconds;
  $line = <$sock>;
  alarm 0;
  die "rowsocket closed the connection instead of answering\n" unless defined $line;
  $line =~ s/\n\z// or die "answer without its LF: $line\n";
  return map { rs_decode($_) } split /\t/, $line, -1;
}

# Sends one request (its tokens), prints it and its answer; returns the answer's
# decoded tokens.
sub rs_request {
  my ($sock, @tokens) = @_;
  print "> ", rs_show_tokens(@tokens), "\n";
  my $line = join("\t", map { rs_encode($_) } @tokens) . "\n";
  print $sock $line;
  $rs_bytes_sent += length $line;
  my @answer = rs_read_answer($sock);
  print "< ", rs_show_tokens(@answer), "\n";
  return @answer;
}

1;
