// ABI guard: the plugin uses THD, TABLE and handler directly, so it must see the
// exact class layouts of the server that loads it. A header kit with another
// feature set (no profiling, no WSREP) or another version still compiles and loads,
// then corrupts memory; this check turns that into a build failure. And a plugin
// built for one release refuses to load into another (ServerIsTheBuildTarget).
#include "engine/server_headers.h"

#include <cstdio>
#include <string>

#include "engine/engine.h"

static_assert(sizeof(THD) == ROWSOCKET_EXPECTED_THD_SIZE,
              "sizeof(THD) differs from the target server's: wrong MariaDB header kit");

namespace rowsocket {

bool ServerIsTheBuildTarget(std::string* error) {
  unsigned major = 0, minor = 0, patch = 0;
  if (std::sscanf(server_version, "%u.%u.%u", &major, &minor, &patch) == 3 &&
      major * 10000 + minor * 100 + patch == MYSQL_VERSION_ID)
    return true;
  *error = std::string("rowsocket was built for MariaDB ") + MYSQL_SERVER_VERSION +
           " and this server is " + server_version +
           "; install the rowsocket build for this release";
  return false;
}

}  // namespace rowsocket
