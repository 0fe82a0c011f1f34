#!/usr/bin/env bash
# Builds rowsocket (plugin, tools, tests) into ./build after making sure the
# dependencies and the MariaDB header kit are in place. Prints the build dir.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ROWSOCKET_BUILD_DIR:-$root/build}
bash "$root/scripts/setup-deps.sh" >/dev/null
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} >/dev/null
cmake --build "$build" -j"$(nproc)" >&2
echo "$build"
