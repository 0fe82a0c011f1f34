#!/usr/bin/env bash
# Tests rowsocket's Debian packages on this machine, with Debian's own MariaDB
# service (its init script, through `service mariadb`), not a private server:
#
#   1. the plugin package refuses a server of another version, and says why;
#   2. the packages install (apt-get install ./*.deb); the snippet
#      /etc/mysql/mariadb.conf.d/60-rowsocket.cnf is all comments and lists every
#      option of the plugin with its real default;
#   3. with its plugin-load-add line and two free ports uncommented, the service
#      starts with rowsocket ACTIVE; rowsocket-cli finds and inserts rows of a
#      table made over SQL; programs built against librowsocket-dev (pkg-config
#      and CMake) find them too; the man page is there;
#   4. removed (not purged), with the enabled snippet left behind, the server
#      still starts, without the plugin;
#   5. purged, the snippet is gone and the server starts as before.
#
#   tests/packaging/test_packages.sh [DEB_DIR]
#
# DEB_DIR holds the built .deb files; without it, scripts/package.sh builds them.
# Runs as root (it installs packages and starts the system's MariaDB); exits 77
# (skipped) otherwise. It leaves the machine as it found it, on failure too: our
# packages purged, the snippet and its own files gone, its test database dropped,
# and the service stopped, or running again if it was running before. It refuses
# to run while any of our packages is installed.
#
# The service is stopped the way its init script stops it (mariadb-admin shutdown),
# but not with `service mariadb stop`: on a failed shutdown that script kills every
# mariadbd on the machine by name, private test servers included.
set -euo pipefail
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

root=$(cd "$(dirname "$0")/../.." && pwd)
PACKAGES=(mariadb-plugin-rowsocket rowsocket-client librowsocket0 librowsocket-dev
          python3-rowsocket)
ALL_PACKAGES=("${PACKAGES[@]}" "${PACKAGES[@]/%/-dbgsym}")
CNF=/etc/mysql/mariadb.conf.d/60-rowsocket.cnf
OVERLAY=/etc/mysql/mariadb.conf.d/99-rowsocket-packaging-test.cnf
PLUGIN=/usr/lib/mysql/plugin/rowsocket.so
SOCK=/run/mysqld/mysqld.sock
PIDFILE=/run/mysqld/mysqld.pid
DATADIR=/var/lib/mysql
DB=rowsocket_pkgtest

t0=$SECONDS
step() { printf '== [%3ds] %s\n' $((SECONDS - t0)) "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
ok() { printf '   ok: %s\n' "$*"; }

[ "$(id -u)" = 0 ] || { echo "SKIP: must run as root (installs packages, starts MariaDB)"; exit 77; }
command -v mariadbd >/dev/null && [ -x /etc/init.d/mariadb ] \
  || { echo "SKIP: Debian's mariadb-server is not installed"; exit 77; }

lockdir=/run/lock; [ -d "$lockdir" ] || lockdir=/tmp
exec 8>"$lockdir/rowsocket-packaging-test.lock"
flock -n 8 || fail "another run of this test holds the lock"

installed_state() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | tr -d ' ' || true; }
for p in "${ALL_PACKAGES[@]}"; do
  case "$(installed_state "$p")" in
    ""|un|pn) ;;
    *) fail "$p is installed ($(installed_state "$p")); this test installs and purges it itself:
  remove it first (apt-get purge $p)" ;;
  esac
done
[ ! -e "$CNF" ] || fail "$CNF exists but no package of ours is installed; move it away first"

sql() { mariadb --no-defaults -S "$SOCK" -uroot -N -B "$@"; }
server_alive() { mariadb-admin --no-defaults -S "$SOCK" -uroot ping >/dev/null 2>&1; }

# --- Cleanup: whatever happened, put the machine back ------------------------------
was_running=0
server_alive && was_running=1
tmp=$(mktemp -d /tmp/rowsocket-pkgtest.XXXXXX)
chmod 0755 "$tmp"
datadir_before=
created_datadir=0
created_datadir_dir=0
started=0

stop_server() {
  local pid safe_pid
  server_alive || { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; } || return 0
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  # debian-start runs mariadb-upgrade in the background after each start; let it end.
  for _ in $(seq 1 60); do
    pgrep -f '^/usr/bin/mysql_upgrade --defaults-extra-file=/etc/mysql/debian.cnf' >/dev/null \
      || break
    sleep 0.5
  done
  mariadb-admin --no-defaults -S "$SOCK" -uroot shutdown >/dev/null 2>&1 || true
  for _ in $(seq 1 600); do
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    # Hung: stop mysqld_safe (so it does not restart it), then the server, by pid.
    safe_pid=$(ps -o ppid= -p "$pid" | tr -d ' ')
    [ -n "$safe_pid" ] && [ "$safe_pid" != 1 ] && kill "$safe_pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  # mysqld_safe leaves when mariadbd shuts down; give it a moment.
  sleep 0.5
  ! server_alive
}

cleanup() {
  local rc=$?
  set +e
  trap - EXIT
  if [ $rc != 0 ] && [ -s "$tmp/error.log" ]; then
    echo "--- the test failed; the service's error log (last 40 lines):"
    tail -n 40 "$tmp/error.log"
    echo "---"
  fi
  if server_alive; then
    [ "$started" = 1 ] && sql -e "DROP DATABASE IF EXISTS $DB" 2>/dev/null
    stop_server || echo "cleanup: the MariaDB service did not stop" >&2
  fi
  local left=()
  for p in "${ALL_PACKAGES[@]}"; do
    case "$(installed_state "$p")" in ""|un|pn) ;; *) left+=("$p") ;; esac
  done
  if [ ${#left[@]} -gt 0 ]; then
    echo "cleanup: purging ${left[*]}"
    dpkg --purge "${left[@]}" >/dev/null 2>&1 || echo "cleanup: dpkg --purge failed" >&2
  fi
  rm -f "$CNF" "$OVERLAY"
  if [ "$created_datadir" = 1 ]; then
    # Only what this test's mariadb-install-db added.
    comm -13 <(printf '%s\n' "$datadir_before") <(ls -A "$DATADIR") \
      | while read -r f; do [ -n "$f" ] && rm -rf "${DATADIR:?}/$f"; done
    [ "$created_datadir_dir" = 1 ] && rmdir "$DATADIR"
  fi
  if [ "$was_running" = 1 ]; then
    echo "cleanup: starting the MariaDB service again, as it was running before"
    service mariadb start >/dev/null 2>&1 || echo "cleanup: could not restart MariaDB" >&2
  fi
  rm -rf "$tmp"
  if [ $rc = 0 ]; then echo "PASS ($((SECONDS - t0)) s)"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- The packages -------------------------------------------------------------------
if [ $# -ge 1 ]; then
  debdir=$(cd "$1" && pwd)
else
  step "building the packages (scripts/package.sh)"
  debdir=$(bash "$root/scripts/package.sh" 2> "$tmp/package.log" | tail -n1) \
    || { tail -n 30 "$tmp/package.log" >&2; fail "scripts/package.sh failed"; }
fi
debs=()
for p in "${ALL_PACKAGES[@]}"; do
  f=$(ls "$debdir/${p}_"*.deb 2>/dev/null | head -n1 || true)
  case "$p" in *-dbgsym) [ -n "$f" ] || continue ;; *) [ -n "$f" ] || fail "no ${p}_*.deb in $debdir" ;; esac
  debs+=("$f")
done
plugin_deb=${debs[0]}
server_version=$(dpkg-query -W -f='${Version}' mariadb-server)
step "packages from $debdir, for mariadb-server $server_version"

# --- 1. Another server version is refused, with the reason --------------------------
step "a plugin package built for another MariaDB"
dpkg-deb -f "$plugin_deb" Depends | grep -qF "mariadb-server (= $server_version)" \
  || fail "the plugin does not depend on mariadb-server (= $server_version): $(dpkg-deb -f "$plugin_deb" Depends)"
dpkg-deb -f "$plugin_deb" Description | grep -q "exact" \
  || fail "the plugin's description does not say it needs the exact server version"
other=1:10.11.999-0+deb12u1
dpkg-deb -R "$plugin_deb" "$tmp/other"
sed -i "s/$(printf '%s' "$server_version" | sed 's/[.]/\\./g')/$other/g" \
  "$tmp/other/DEBIAN/control" "$tmp/other/DEBIAN/preinst"
dpkg-deb --root-owner-group -b "$tmp/other" "$tmp/other.deb" >/dev/null
if apt-get install -s --no-install-recommends "$tmp/other.deb" > "$tmp/other.log" 2>&1; then
  cat "$tmp/other.log"; fail "apt would install a plugin built for MariaDB $other"
fi
grep -qF "Depends: mariadb-server (= $other)" "$tmp/other.log" \
  || { cat "$tmp/other.log"; fail "apt's refusal does not name the version the plugin needs"; }
ok "apt refuses it: $(grep -F "Depends: mariadb-server (= $other)" "$tmp/other.log" | head -n1 | sed 's/^ *//')"
sh "$tmp/other/DEBIAN/preinst" install 2> "$tmp/preinst.log" || fail "preinst failed"
grep -q "built for MariaDB $other" "$tmp/preinst.log" || fail "preinst says nothing about the mismatch"
ok "its preinst explains: $(head -n1 "$tmp/preinst.log")"

# --- 2. Install ---------------------------------------------------------------------
step "apt-get install $(for f in "${debs[@]}"; do printf '%s ' "${f##*/}"; done | sed 's/_[^ ]*//g')(.deb)"
apt-get install -y -q --no-install-recommends "${debs[@]}" > "$tmp/apt-install.log" 2>&1 \
  || { tail -n 30 "$tmp/apt-install.log"; fail "apt-get install failed"; }
for p in "${PACKAGES[@]}"; do
  [ "$(installed_state "$p")" = ii ] || fail "$p is not installed ($(installed_state "$p"))"
done
for f in "$PLUGIN" "$CNF" /usr/bin/rowsocket-cli /usr/share/man/man1/rowsocket-cli.1.gz \
         /usr/include/rowsocket/client.h; do
  [ -f "$f" ] || fail "$f is missing"
done
dpkg-query -W -f='${Conffiles}\n' mariadb-plugin-rowsocket | grep -q "$CNF" \
  || fail "$CNF is not a conffile"
ldd_out=$(ldd /usr/bin/rowsocket-cli)
grep -q "librowsocket.so.0 => /.*/librowsocket.so.0 " <<< "$ldd_out" \
  || fail "rowsocket-cli does not find the installed librowsocket.so.0: $ldd_out"
[ "$(pkg-config --modversion rowsocket)" != "" ] || fail "pkg-config does not know rowsocket"
if command -v man >/dev/null; then
  MANWIDTH=80 man /usr/share/man/man1/rowsocket-cli.1.gz 2>"$tmp/man.err" | grep -q -- "--port-wr" \
    || fail "the man page does not list --port-wr"
  [ ! -s "$tmp/man.err" ] || fail "man reports: $(cat "$tmp/man.err")"
fi
ok "installed: $(for p in "${PACKAGES[@]}"; do printf '%s ' "$p=$(dpkg-query -W -f='${Version}' "$p")"; done)"

# The snippet: nothing active, every option of the plugin with its default.
active=$(grep -Ev '^[[:space:]]*(#|$)' "$CNF")
[ "$active" = "[mariadbd]" ] || fail "$CNF has active lines: $active"
grep -qx '#plugin-load-add = rowsocket.so' "$CNF" || fail "$CNF has no '#plugin-load-add = rowsocket.so'"
grep -q 'handlersocket_port  *-> rowsocket_port' "$CNF" || fail "$CNF lacks the handlersocket_* translation"
my_print_defaults --mariadbd | grep -q rowsocket && fail "the server sees rowsocket options already"
cp "$CNF" "$tmp/pristine.cnf"
ok "$CNF is all comments"

# --- 3. Enable it and start Debian's service ------------------------------------------
if [ "$was_running" = 1 ]; then
  step "the service was running: stopping it for the test (it is started again at the end)"
  stop_server || fail "could not stop the running MariaDB service"
fi
if [ ! -d "$DATADIR/mysql" ]; then
  step "no system tables in $DATADIR yet: mariadb-install-db"
  if [ ! -d "$DATADIR" ]; then
    mkdir -p "$DATADIR"; chown mysql:mysql "$DATADIR"; created_datadir_dir=1
  fi
  datadir_before=$(ls -A "$DATADIR")
  created_datadir=1
  mariadb-install-db --user=mysql --datadir="$DATADIR" --skip-test-db \
    > "$tmp/install-db.log" 2>&1 || { cat "$tmp/install-db.log"; fail "mariadb-install-db failed"; }
fi

read -r port port_wr < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
step "enabling the snippet (ports $port, $port_wr) and starting the service"
sed -i -e 's/^#plugin-load-add = rowsocket.so$/plugin-load-add = rowsocket.so/' \
       -e "s/^#loose-rowsocket_port = 9998\$/loose-rowsocket_port = $port/" \
       -e "s/^#loose-rowsocket_port_wr = 9999\$/loose-rowsocket_port_wr = $port_wr/" "$CNF"
my_print_defaults --mariadbd | grep -qx -- "--plugin-load-add=rowsocket.so" \
  || fail "uncommenting plugin-load-add did not reach the server's options"
my_print_defaults --mariadbd | grep -qx -- "--loose-rowsocket_port_wr=$port_wr" \
  || fail "uncommenting rowsocket_port_wr did not reach the server's options"

# The service logs to syslog, which a container may not have: its error log goes to
# our directory instead (removed at the end).
chown mysql "$tmp"
cat > "$OVERLAY" <<EOF
# Written by rowsocket's tests/packaging/test_packages.sh, removed when it ends.
[mysqld_safe]
skip-syslog
log-error = $tmp/error.log
EOF

start_service() {
  started=1
  service mariadb start > "$tmp/service.log" 2>&1 \
    || { cat "$tmp/service.log"; fail "service mariadb start failed"; }
  server_alive || fail "the service started but the server does not answer on $SOCK"
}
start_service
status=$(sql -e "SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME='rowsocket'")
[ "$status" = ACTIVE ] || fail "rowsocket's PLUGIN_STATUS is '$status', not ACTIVE"
ok "rowsocket is $status in Debian's MariaDB $(sql -e 'SELECT VERSION()') (plugin_maturity=$(sql -e 'SELECT @@plugin_maturity'))"

# Every option in the snippet is one of the plugin's, with the plugin's default, and
# every variable of the plugin is in the snippet (the secrets are options only).
sed -n 's/^#loose-rowsocket_\([a-z_]*\) *= *\(.*\)$/\1=\2/p' "$tmp/pristine.cnf" \
  | grep -Ev '^plain_secret(_wr)?=' | sort > "$tmp/cnf.defaults"
sql -e "SELECT CONCAT(LOWER(SUBSTRING(VARIABLE_NAME, 11)), '=', IFNULL(DEFAULT_VALUE, ''))
        FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME LIKE 'ROWSOCKET\\_%'" \
  | sort > "$tmp/server.defaults"
diff -u --label "defaults in $CNF" --label "the plugin's defaults (SYSTEM_VARIABLES)" \
  "$tmp/cnf.defaults" "$tmp/server.defaults" || fail "the snippet's options differ from the plugin's"
[ "$(sql -e "SELECT @@rowsocket_port, @@rowsocket_port_wr")" = "$port	$port_wr" ] \
  || fail "the ports set in the snippet are not the ones in use"
ok "the snippet lists all $(wc -l < "$tmp/server.defaults") variables with their defaults (and the 2 secrets)"

step "rowsocket-cli and librowsocket against the service"
sql <<SQL
CREATE DATABASE $DB;
CREATE TABLE $DB.items (id INT PRIMARY KEY, name VARCHAR(32)) ENGINE=InnoDB;
INSERT INTO $DB.items VALUES (1, 'apple'), (2, 'banana'), (3, 'cherry');
SQL
cli() {
  HOME=$tmp rowsocket-cli -h 127.0.0.1 -P "$port" -W "$port_wr" --sql-socket "$SOCK" -u root \
    --history-file= "$@"
}
got=$(cli -e "find $DB.items = 2") || fail "rowsocket-cli find failed: $got"
[ "$got" = $'2\tbanana' ] || fail "rowsocket-cli find printed '$got'"
ok "rowsocket-cli: find $DB.items = 2 -> $(printf '%s' "$got" | tr '\t' ' ')"
cli -e "insert $DB.items 4 durian" > "$tmp/cli-insert.out" \
  || fail "rowsocket-cli insert failed: $(cat "$tmp/cli-insert.out")"
[ "$(sql -e "SELECT name FROM $DB.items WHERE id = 4")" = durian ] \
  || fail "the row rowsocket-cli inserted is not in the table"
got=$(cli -e "find $DB.items >= 1 limit 10" | wc -l)
[ "$got" = 4 ] || fail "find >= 1 limit 10 gave $got rows, not 4"
ok "rowsocket-cli: insert through the write port, seen by SQL; range find of 4 rows"

# The Python client as installed (run from / so that the work tree's copy is not it).
got=$(cd / && /usr/bin/python3 - "$DB" "$port" "$port_wr" <<'PY'
import sys
import rowsocket
db, port, port_wr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
assert rowsocket.__file__.startswith("/usr/lib/python3/dist-packages/"), rowsocket.__file__
items = rowsocket.Index(db, "items", "PRIMARY", ["id", "name"])
with rowsocket.Pool(readers=[("127.0.0.1", port)], writers=[("127.0.0.1", port_wr)]) as pool:
    pool.insert(items, [5, "elderberry"])
    print(pool.find(items, "=", 5)[0][1])
PY
) || fail "the Python client failed: $got"
[ "$got" = elderberry ] || fail "the Python client printed '$got'"
[ "$(sql -e "SELECT name FROM $DB.items WHERE id = 5")" = elderberry ] \
  || fail "the row the Python client inserted is not in the table"
ok "python3-rowsocket: insert and find through a Pool, seen by SQL"

mkdir -p "$tmp/app"
cat > "$tmp/app/app.cc" <<'EOF'
#include <rowsocket/client.h>
#include <cstdio>
#include <cstdlib>
namespace rs = rowsocket::client;
int main(int argc, char** argv) {
  rs::PoolOptions options;
  options.readers.push_back({"127.0.0.1", static_cast<uint16_t>(std::atoi(argv[2]))});
  options.writers.push_back({"127.0.0.1", static_cast<uint16_t>(std::atoi(argv[3]))});
  rs::Pool pool(options);
  rs::Index items(argv[1], "items", "PRIMARY", {"id", "name"});
  rs::Result<rs::Rows> rows = pool.Find(items, rs::Query("=", {3}));
  if (!rows.ok()) {
    std::fprintf(stderr, "%s\n", rows.error().ToString().c_str());
    return 1;
  }
  for (const rs::Row& row : rows.value()) std::printf("%s %s\n", row[0].str().c_str(), row[1].str().c_str());
  return 0;
}
EOF
read -ra pc_flags < <(pkg-config --cflags --libs rowsocket)
g++ -std=c++17 "$tmp/app/app.cc" -o "$tmp/app/app-pc" "${pc_flags[@]}" \
  2> "$tmp/app/pc.log" || { cat "$tmp/app/pc.log"; fail "building with pkg-config rowsocket failed"; }
got=$("$tmp/app/app-pc" "$DB" "$port" "$port_wr") || fail "the pkg-config program failed: $got"
[ "$got" = "3 cherry" ] || fail "the pkg-config program printed '$got'"
cat > "$tmp/app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(app CXX)
find_package(rowsocket REQUIRED)
add_executable(app app.cc)
target_link_libraries(app PRIVATE rowsocket::rowsocket)
EOF
{ cmake -S "$tmp/app" -B "$tmp/app/build" && cmake --build "$tmp/app/build"; } > "$tmp/app/cmake.log" 2>&1 \
  || { cat "$tmp/app/cmake.log"; fail "building with find_package(rowsocket) failed"; }
got=$("$tmp/app/build/app" "$DB" "$port" "$port_wr") || fail "the CMake program failed: $got"
[ "$got" = "3 cherry" ] || fail "the CMake program printed '$got'"
ok "librowsocket-dev: programs built with pkg-config and with find_package(rowsocket) find 3 cherry"

sql -e "DROP DATABASE $DB"
stop_server || fail "the service did not stop"
started=0
ok "service stopped"

# --- 4. Removed, not purged: the enabled snippet stays, the server still starts -------
step "apt-get remove (the enabled snippet stays behind)"
apt-get remove -y -q "${PACKAGES[@]}" > "$tmp/apt-remove.log" 2>&1 \
  || { tail -n 30 "$tmp/apt-remove.log"; fail "apt-get remove failed"; }
[ ! -e "$PLUGIN" ] || fail "$PLUGIN is still there after remove"
grep -qx 'plugin-load-add = rowsocket.so' "$CNF" || fail "remove did not keep the (changed) conffile"
start_service
[ "$(sql -e "SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME='rowsocket'")" = 0 ] \
  || fail "rowsocket is loaded although its package is removed"
stop_server || fail "the service did not stop"
started=0
ok "the server starts without the plugin despite the enabled snippet (loose- options)"

# --- 5. Purged: the snippet is gone, the server starts --------------------------------
step "apt-get purge"
known=()
for p in "${ALL_PACKAGES[@]}"; do
  case "$(installed_state "$p")" in ""|un|pn) ;; *) known+=("$p") ;; esac
done
[ ${#known[@]} -gt 0 ] || fail "no package of ours is left after remove: the conffile should be"
apt-get purge -y -q "${known[@]}" > "$tmp/apt-purge.log" 2>&1 \
  || { tail -n 30 "$tmp/apt-purge.log"; fail "apt-get purge failed"; }
for p in "${ALL_PACKAGES[@]}"; do
  case "$(installed_state "$p")" in ""|un|pn) ;; *) fail "$p is still $(installed_state "$p")" ;; esac
done
[ ! -e "$CNF" ] || fail "$CNF is still there after purge"
start_service
[ "$(sql -e 'SELECT 1')" = 1 ] || fail "the server does not answer after the purge"
[ "$(sql -e "SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME='rowsocket'")" = 0 ] \
  || fail "rowsocket is loaded after the purge"
stop_server || fail "the service did not stop"
started=0
ok "purged: no snippet, no plugin, and the server starts and stops"
