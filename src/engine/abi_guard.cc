// ABI guard: the plugin uses THD, TABLE and handler directly, so it must see the
// exact class layouts of the server that loads it. A header kit with another
// feature set (no profiling, no WSREP) or another version still compiles and loads,
// then corrupts memory; this check turns that into a build failure.
#include "engine/server_headers.h"

static_assert(sizeof(THD) == ROWSOCKET_EXPECTED_THD_SIZE,
              "sizeof(THD) differs from the target server's: wrong MariaDB header kit");
