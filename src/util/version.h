// rowsocket's own version (the project's, from CMake), for the plugin's declaration,
// its start-up log line and memcached's `stats` (`rowsocket_version`).
#pragma once

#ifndef ROWSOCKET_VERSION
#error "ROWSOCKET_VERSION comes from CMake (src/util/CMakeLists.txt)"
#endif
