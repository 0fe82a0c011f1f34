#!/usr/bin/env bash
# Installs the client component of a build into a temporary prefix, then builds the
# example of docs/CLIENT.md against it twice, as a user would: with pkg-config and with
# find_package(rowsocket). Usage: install_test.sh <build dir> <source dir>
set -euo pipefail
build=$1
source=$2
prefix=$(mktemp -d /tmp/rs-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --component client --prefix "$prefix" >/dev/null
test -x "$prefix/bin/rowsocket-cli"
test -f "$prefix/include/rowsocket/client.h"

libdir=$(dirname "$(find "$prefix" -name 'librowsocket.so' | head -1)")
PKG_CONFIG_PATH="$libdir/pkgconfig" g++ -std=c++17 -Wall -Wextra -Werror \
  "$source/examples/client_example.cc" -o "$prefix/with-pkg-config" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs rowsocket) \
  -Wl,-rpath,"$libdir"
# Port 1 has no server: the example must start, try, and report an I/O error.
out=$("$prefix/with-pkg-config" 127.0.0.1 1 1 2>&1 || true)
grep -q "I/O error: cannot connect" <<<"$out"

mkdir "$prefix/user"
cat > "$prefix/user/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(user LANGUAGES CXX)
find_package(rowsocket 0.1 REQUIRED)
add_executable(example "$source/examples/client_example.cc")
target_link_libraries(example PRIVATE rowsocket::rowsocket)
CMAKE
cmake -S "$prefix/user" -B "$prefix/user/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/user/build" >/dev/null
out=$("$prefix/user/build/example" 127.0.0.1 1 1 2>&1 || true)
grep -q "I/O error: cannot connect" <<<"$out"
echo "installed and built the example with pkg-config and find_package"
