#!/usr/bin/env bash
# The AddressSanitizer job: builds the plugin with -fsanitize=address into
# build-asan/, then runs the integration suites that exercise lifecycle (INSTALL /
# UNINSTALL under load, shutdown with hundreds of connections), bad input, limits,
# pipelines, writes, deadlocks, Galera write transactions (one node) and the fuzzer
# against a mariadbd that preloads libasan; the lifecycle suites also with
# rowsocket_io=io_uring. A memory error in the plugin aborts mariadbd, which fails the
# test that caused it.
# (mariadbd itself is not instrumented, so leak checking is off.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ROWSOCKET_ASAN_BUILD_DIR:-$root/build-asan}
bash "$root/scripts/setup-deps.sh" >/dev/null
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DROWSOCKET_BUILD_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=address -fno-omit-frame-pointer -O1" >/dev/null
cmake --build "$build" -j"$(nproc)" --target rowsocket >&2
export ROWSOCKET_PLUGIN="$build/src/plugin/rowsocket.so"
export ROWSOCKET_MARIADBD_PRELOAD="$(gcc -print-file-name=libasan.so)"
cd "$root/tests/integration"
# The fuzzer gets a short budget here: ASan slows the plugin, and the main job runs it
# for longer.
export ROWSOCKET_FUZZ_SECONDS=${ROWSOCKET_FUZZ_SECONDS:-20}
# The io_uring loop's lifetimes (connections closed with operations in flight, rings
# torn down at UNINSTALL under load) first, on the suites that exercise them most.
ROWSOCKET_IO=io_uring /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  test_lifecycle.py test_pipeline.py test_write_concurrency.py test_tls.py test_memcached.py \
  test_io_loop.py "$@"
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  test_lifecycle.py test_errors.py test_pipeline.py test_safety.py test_modify.py \
  test_types.py test_write_concurrency.py test_observability.py test_modify_atomic.py \
  test_modify_moving_rows.py test_fuzz.py test_tls.py test_accounts.py test_memcached.py \
  test_memcached_accounts.py test_redis_listener.py test_redis_accounts.py test_galera.py "$@"
