#!/usr/bin/env bash
# Installs the npm clients the tests run against rowsocket, at pinned versions, into
# the cache outside the work tree (nothing of them enters this repository): memjs and
# memcached (tests/integration/test_memcached_clients.py), node-handlersocket
# (tests/integration/test_hs_clients.py) and ioredis
# (tests/integration/test_redis_clients.py). Installs Debian's nodejs and npm first where
# the machine has no node or npm. Idempotent and safe to run concurrently (one install
# at a time, under a lock). Prints, as its last line, the node_modules directory to
# put on NODE_PATH.
set -euo pipefail
CACHE=${ROWSOCKET_CACHE:-/var/cache/rowsocket}
PACKAGES=(memjs@1.3.2 memcached@2.2.2 node-handlersocket@0.1.0 ioredis@6.0.0)
die() { printf 'node-clients: error: %s\n' "$*" >&2; exit 1; }

out="$CACHE/node-clients"
mkdir -p "$out"
exec 9>"$CACHE/node-clients.lock"
flock 9
stamp="$out/.complete-$(printf '%s\n' "${PACKAGES[@]}" | md5sum | cut -c1-12)"
if [ -f "$stamp" ]; then echo "$out/node_modules"; exit 0; fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  [ "$(id -u)" = 0 ] || die "node and npm are missing: install Debian's nodejs and npm"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm \
    >/dev/null || die "apt-get install nodejs npm failed"
fi
rm -rf "$out/node_modules" "$out"/.complete-*
(cd "$out" && npm install --prefix "$out" --no-audit --no-fund --no-save --silent \
   "${PACKAGES[@]}" >&2) || die "npm install ${PACKAGES[*]} failed"
touch "$stamp"
echo "$out/node_modules"
