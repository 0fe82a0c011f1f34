#!/usr/bin/env bash
# Runs rowsocket: a private MariaDB (own datadir, socket and ports, nothing of the
# system's MariaDB is touched) with the rowsocket plugin loaded and sample data.
#
#   scripts/run.sh          set up, build, start (in the background), load sample data
#   scripts/run.sh stop     stop it
#   scripts/run.sh status   is it running?
#
# Ports: SQL 3307 (socket ./run/mariadb.sock), rowsocket read 9998, write 9999.
# Override with ROWSOCKET_SQL_PORT, ROWSOCKET_PORT, ROWSOCKET_PORT_WR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state=${ROWSOCKET_RUN_DIR:-$root/run}
sql_port=${ROWSOCKET_SQL_PORT:-3307}
port=${ROWSOCKET_PORT:-9998}
port_wr=${ROWSOCKET_PORT_WR:-9999}
sock=$state/mariadb.sock
pidfile=$state/mariadb.pid

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

stop() {
  if running; then
    local pid; pid=$(cat "$pidfile")
    kill "$pid"
    for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then echo "mariadbd ($pid) did not stop" >&2; exit 1; fi
    echo "stopped"
  else
    echo "not running"
  fi
}

case "${1:-start}" in
  stop) stop; exit 0 ;;
  status) if running; then echo "running (pid $(cat "$pidfile"))"; else echo "not running"; exit 1; fi; exit 0 ;;
  start) ;;
  *) echo "usage: $0 [start|stop|status]" >&2; exit 2 ;;
esac

build=$(bash "$root/scripts/build.sh")
if running; then
  echo "already running (pid $(cat "$pidfile")); restarting with the fresh build"
  stop >/dev/null
fi

mkdir -p "$state/plugins"
# The plugin dir holds Debian's plugins (links) and ours.
for f in /usr/lib/mysql/plugin/*; do ln -sf "$f" "$state/plugins/"; done
rm -f "$state/plugins/rowsocket.so"   # a link into the plugin dir: do not write through it
cp "$build/src/plugin/rowsocket.so" "$state/plugins/rowsocket.so"

if [ ! -d "$state/data/mysql" ]; then
  mariadb-install-db --no-defaults --datadir="$state/data" --user=root \
    --auth-root-authentication-method=normal >"$state/install-db.log" 2>&1 \
    || { cat "$state/install-db.log" >&2; exit 1; }
fi

mariadbd --no-defaults --datadir="$state/data" --socket="$sock" --port="$sql_port" \
  --bind-address=127.0.0.1 --plugin-dir="$state/plugins" --user=root \
  --pid-file="$pidfile" --log-error="$state/error.log" \
  --plugin-load-add=rowsocket.so \
  --loose-rowsocket-port="$port" --loose-rowsocket-port-wr="$port_wr" \
  --innodb-buffer-pool-size=256M ${ROWSOCKET_MARIADBD_ARGS:-} >/dev/null 2>&1 &

for _ in $(seq 1 300); do
  [ -S "$sock" ] && mariadb --no-defaults -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
  if ! kill -0 $! 2>/dev/null; then echo "mariadbd failed to start; see $state/error.log" >&2; tail -20 "$state/error.log" >&2; exit 1; fi
  sleep 0.1
done

mariadb --no-defaults -S "$sock" -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS test;
CREATE TABLE IF NOT EXISTS test.user (
  user_id INT UNSIGNED PRIMARY KEY,
  user_name VARCHAR(50),
  user_email VARCHAR(255),
  created DATETIME
) ENGINE=InnoDB;
INSERT IGNORE INTO test.user VALUES
  (101, 'Yukari Takeba', 'yukari.takeba@dena.jp', '2010-02-03 11:22:33'),
  (102, 'Naoto Yokoyama', 'naoto.yokoyama@example.com', '2010-02-04 09:10:11'),
  (103, 'Akira Hayashi', 'akira.hayashi@example.com', '2010-02-05 18:00:00');
SQL

cat <<EOF2
rowsocket is running (pid $(cat "$pidfile")).
  read port:  127.0.0.1:$port     write port: 127.0.0.1:$port_wr
  SQL:        mariadb --no-defaults -S $sock -uroot      (or -h127.0.0.1 -P$sql_port)
  error log:  $state/error.log
  stop:       scripts/run.sh stop
Try:  printf 'P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email,created\n0\t=\t1\t101\n' | nc -q1 127.0.0.1 $port
EOF2
