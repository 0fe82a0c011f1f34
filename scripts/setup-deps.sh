#!/usr/bin/env bash
# Installs everything rowsocket needs to build, test and run on Debian 12, and
# prepares the MariaDB "header kit" the plugin compiles against.
#
# The plugin uses the server's internal classes (THD, TABLE, handler), so it must be
# compiled against the exact source of the mariadbd binary that loads it. This
# script therefore:
#   1. picks one MariaDB 10.11 version for which Debian offers both the binaries and
#      the source (or the version already installed here),
#   2. installs and holds the server, client and -dev packages at that version,
#   3. downloads that version's Debian source once, cached outside the work tree,
#   4. extracts only the headers a plugin needs, plus Debian's generated headers.
#
# Idempotent: a second run with everything in place takes a few seconds.
# Prints, as its last line, the header-kit directory (also written to
# $ROWSOCKET_CACHE/current-kit).
set -euo pipefail

CACHE=${ROWSOCKET_CACHE:-/var/cache/rowsocket}
export DEBIAN_FRONTEND=noninteractive
log() { printf 'setup-deps: %s\n' "$*" >&2; }
die() { printf 'setup-deps: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it installs Debian packages)"
mkdir -p "$CACHE"

# --- apt sources: the plugin needs deb-src for the server's private headers -------
enable_deb_src() {
  local f=/etc/apt/sources.list.d/debian.sources changed=0
  if [ -f "$f" ] && grep -q '^Types: deb$' "$f"; then
    sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"; changed=1
  fi
  if [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list \
     && ! grep -q '^deb-src ' /etc/apt/sources.list; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >> /etc/apt/sources.list; changed=1
  fi
  local stamp="$CACHE/apt-updated"
  if [ $changed = 1 ] || [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +720)" ]; then
    log "apt-get update"
    apt-get update -q >/dev/null
    touch "$stamp"
  fi
}

installed_version() { dpkg-query -W -f='${Version}' mariadb-server-core 2>/dev/null || true; }

# Newest first: every version apt knows for the server binaries.
binary_versions() {
  apt-cache madison mariadb-server-core | awk -F'|' '{gsub(/ /,"",$2); print $2}' \
    | sort -u | sort -rV
}

# Downloads the Debian source of version $1 into the cache; fails if unavailable.
fetch_source() {
  local v=$1 dir="$CACHE/src-${1//:/_}"
  if ls "$dir"/mariadb_*.orig.tar.gz >/dev/null 2>&1 && [ -f "$dir/.complete" ]; then
    return 0
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  log "downloading MariaDB source $v (about 115 MB)"
  if (cd "$dir" && apt-get source -q --download-only "mariadb=$v" >/dev/null 2>&1); then
    touch "$dir/.complete"; return 0
  fi
  rm -rf "$dir"; return 1
}

choose_version() {
  local v
  v=$(installed_version)
  if [ -n "$v" ]; then
    fetch_source "$v" || die "MariaDB $v is installed but its Debian source cannot be downloaded;
  install a version with source (see README) or remove the installed server"
    echo "$v"; return
  fi
  for v in $(binary_versions); do
    case "$v" in 1:10.11.*) ;; *) continue ;; esac
    if fetch_source "$v"; then echo "$v"; return; fi
    log "source for $v is not downloadable; trying an older version"
  done
  die "no MariaDB 10.11 version has both binaries and source in the apt sources"
}

install_packages() {
  local v=$1 pkgs=() p
  for p in mariadb-server mariadb-server-core mariadb-client mariadb-client-core \
           mariadb-common libmariadb3 libmariadb-dev libmariadbd-dev libmariadbd19 \
           mariadb-plugin-handlersocket mariadb-backup mariadb-test mariadb-test-data; do
    apt-cache show "$p=$v" >/dev/null 2>&1 && pkgs+=("$p=$v")
  done
  # perl, libperl-dev, libdbi-perl and libdbd-mariadb-perl: the original HandlerSocket's
  # Perl client and regression tests, run against rowsocket (scripts/build-hs-clients.sh).
  # memcached, php-cli, php-memcached, php-memcache, python3-pylibmc, python3-memcache,
  # python3-pymemcache, python3-django, libcache-memcached-perl,
  # libcache-memcached-fast-perl and libmemcached-tools: the real memcached clients of
  # test_memcached_clients.py, each run against memcached itself and then rowsocket
  # (node's come from npm at test time: scripts/node-clients.sh).
  # libssl-dev: TLS and the SHA1 of account login (OpenSSL 3, the one mariadbd links);
  # openssl: test_tls.py makes its certificates. liburing-dev: the io_uring event
  # loop (rowsocket_io; the plugin then needs liburing2 at run time).
  # memcached, python3-pymemcache, python3-pylibmc, libmemcached-tools: the memcached
  # listener's reference daemon and real clients (memcslap, memcaslap; pylibmc's SASL).
  # redis-server, redis-tools, python3-redis: the Redis protocol's reference daemon
  # (private instances only: tests/integration/redis_reference.py), redis-cli and
  # redis-benchmark, and redis-py. php-redis and libredis-perl: with redis-cli,
  # redis-py and ioredis, the real Redis clients of test_redis_clients.py, each run
  # against redis-server itself and then rowsocket (ioredis comes from npm at test
  # time: scripts/node-clients.sh).
  local tools=(cmake g++ make dpkg-dev clang libclang-rt-14-dev pkg-config libgtest-dev libgmock-dev libedit-dev netcat-openbsd
               libssl-dev openssl liburing-dev
               php-cli php-memcached php-memcache python3-pylibmc python3-memcache python3-django
               libcache-memcached-perl libcache-memcached-fast-perl
               python3 python3-pytest python3-pymysql python3-pip python3-setuptools python3-wheel
               python3-venv mypy procps xz-utils memcached tmux gnuplot-nox
               python3-pymemcache python3-pylibmc libmemcached-tools
               redis-server redis-tools python3-redis php-redis libredis-perl
               perl libperl-dev libdbi-perl libdbd-mariadb-perl)
  local missing=()
  for p in "${pkgs[@]}"; do
    # A held package reads "hold ok installed".
    case "$(dpkg-query -W -f='${Status} ${Version}' "${p%%=*}" 2>/dev/null)" in
      "install ok installed $v"|"hold ok installed $v") ;;
      *) missing+=("$p") ;;
    esac
  done
  for p in "${tools[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing: ${missing[*]}"
    # Never let the package start the system's mariadb: tests run private servers.
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
    apt-get install -y -q --no-install-recommends --allow-downgrades \
      --allow-change-held-packages "${missing[@]}" >/dev/null \
      || { rm -f /usr/sbin/policy-rc.d; die "apt-get install failed"; }
    rm -f /usr/sbin/policy-rc.d
  fi
  apt-mark hold "${pkgs[@]%%=*}" >/dev/null
  stop_system_redis
}

# Debian's redis-server package enables a system service on port 6379; the tests run
# private daemons only, so a service that a package (or an earlier set-up) started is
# stopped and disabled. Daemons the tests started are not services and are left alone.
stop_system_redis() {
  if command -v systemctl >/dev/null && systemctl is-enabled --quiet redis-server 2>/dev/null; then
    systemctl disable --now redis-server >/dev/null 2>&1 || true
  fi
  if [ -x /etc/init.d/redis-server ] && /etc/init.d/redis-server status >/dev/null 2>&1; then
    /etc/init.d/redis-server stop >/dev/null 2>&1 || true
  fi
}

make_kit() {
  local v=$1 src="$CACHE/src-${1//:/_}" kit="$CACHE/kit-${1//:/_}"
  if [ -f "$kit/.complete" ]; then echo "$kit"; return; fi
  rm -rf "$kit"; mkdir -p "$kit/generated"
  local tarball; tarball=$(ls "$src"/mariadb_*.orig.tar.gz | head -n1)
  local top; top=$(tar -tzf "$tarball" | head -n1 | cut -d/ -f1)
  log "extracting headers from $(basename "$tarball")"
  tar -xzf "$tarball" -C "$kit" --strip-components=1 --wildcards \
    "$top/include" "$top/sql/*.h" "$top/wsrep-lib/include" "$top/wsrep-lib/wsrep-API/v26"
  local gen=/usr/include/mariadb/server
  for h in my_config.h mysql_version.h mysqld_error.h mysqld_ername.h sql_state.h; do
    cp "$gen/$h" "$kit/generated/"
  done
  cp "$kit/include/probes_mysql_nodtrace.h.in" "$kit/generated/probes_mysql_nodtrace.h"
  cp /usr/lib/x86_64-linux-gnu/libmysqlservices.a "$kit/"
  echo "$v" > "$kit/VERSION"
  touch "$kit/.complete"
  echo "$kit"
}

enable_deb_src
version=$(choose_version)
log "MariaDB version: $version"
install_packages "$version"
kit=$(make_kit "$version")
echo "$kit" > "$CACHE/current-kit"
echo "$kit"
