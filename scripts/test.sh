#!/usr/bin/env bash
# Runs every test: installs what is missing (scripts/setup-deps.sh), builds, then
# runs the GoogleTest units, the integration tests (each starts and stops its own
# private mariadbd) and the mtr suite (mysql-test/rowsocket) through ctest; then the
# libFuzzer parser fuzzers for a bounded time (scripts/fuzz.sh; skip them with
# ROWSOCKET_SKIP_PARSER_FUZZ=1); then the Debian packages' test (installs them, runs
# Debian's own MariaDB service, removes them; skip it with ROWSOCKET_SKIP_PACKAGING=1);
# then the AddressSanitizer job (scripts/test-asan.sh; skip it with
# ROWSOCKET_SKIP_ASAN=1). Extra arguments go to ctest (e.g. -R find).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(bash "$root/scripts/build.sh")
(cd "$build" && ctest --output-on-failure --timeout 900 -j"$(nproc)" "$@")
if [ -z "${ROWSOCKET_SKIP_PARSER_FUZZ:-}" ]; then
  echo "== parser fuzzers (scripts/fuzz.sh)"
  bash "$root/scripts/fuzz.sh"
fi
if [ -z "${ROWSOCKET_SKIP_PACKAGING:-}" ]; then
  echo "== Debian packages (tests/packaging/test_packages.sh)"
  bash "$root/tests/packaging/test_packages.sh" || [ $? = 77 ]
fi
if [ -z "${ROWSOCKET_SKIP_ASAN:-}" ]; then
  echo "== AddressSanitizer job (scripts/test-asan.sh)"
  bash "$root/scripts/test-asan.sh"
fi
