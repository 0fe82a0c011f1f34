package My::Suite::Rowsocket;

@ISA = qw(My::Suite);

# scripts/mtr.sh puts rowsocket.so into the server's plugin directory and sets
# ROWSOCKET_SO; without it there is nothing to test.
return "No rowsocket plugin (run the suite with scripts/mtr.sh)"
  unless $ENV{ROWSOCKET_SO};

return "Not run for embedded server" if $::opt_embedded_server;

bless { };
