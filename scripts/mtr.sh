#!/usr/bin/env bash
# Runs rowsocket's mtr suite (mysql-test/rowsocket, the layout MariaDB's own plugins
# are tested in) with Debian's mariadb-test-run, against a built plugin.
#
#   scripts/mtr.sh [PLUGIN.so] [mtr options...]
#
# PLUGIN.so: the plugin to test (default $ROWSOCKET_PLUGIN, else
# build/src/plugin/rowsocket.so). Further arguments go to mtr: test names (e.g.
# find_insert; none runs them all), --record with test names to rewrite their
# r/*.result files (review them by hand afterwards), --verbose.
#
# Needs the package mariadb-test at the installed server's version
# (scripts/setup-deps.sh installs it). Writes only under a temporary directory
# (kept, and its path printed, when a test fails). Exits non-zero if any test
# fails or if fewer tests passed than the suite has.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
die() { printf 'mtr.sh: error: %s\n' "$*" >&2; exit 1; }

plugin=${ROWSOCKET_PLUGIN:-$root/build/src/plugin/rowsocket.so}
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ] && [ "${1%.so}" != "$1" ]; then plugin=$1; shift; fi
[ -f "$plugin" ] || die "no plugin at $plugin (build it first: scripts/build.sh)"
plugin=$(readlink -f "$plugin")

mtr_home=/usr/share/mysql/mysql-test
mtr=$mtr_home/mariadb-test-run.pl
[ -f "$mtr" ] || die "$mtr not found: install mariadb-test (scripts/setup-deps.sh)"
server_v=$(dpkg-query -W -f='${Version}' mariadb-server-core 2>/dev/null || true)
test_v=$(dpkg-query -W -f='${Version}' mariadb-test 2>/dev/null || true)
[ "$server_v" = "$test_v" ] \
  || die "mariadb-test ($test_v) is not the installed server's version ($server_v): run scripts/setup-deps.sh"

suite_src=$root/mysql-test/rowsocket
ntests=$(find "$suite_src/t" -maxdepth 1 -name '*.test' | wc -l)
[ "$ntests" -gt 0 ] || die "no tests in $suite_src/t"

# A short path (socket paths are limited to about 100 bytes) without '-': mtr reads
# --suite=<dir> as a directory only when the name has no '-' (it splits suite names
# at '-' for overlays), so the suite is reached through a link named rowsocket.
tmp=$(mktemp -d /tmp/rsmtrXXXXXX)
keep=0
cleanup() { if [ $keep = 0 ]; then rm -rf "$tmp"; else echo "mtr.sh: logs kept in $tmp/var" >&2; fi; }
trap cleanup EXIT
mkdir -p "$tmp/suite" "$tmp/plugin"
ln -s "$suite_src" "$tmp/suite/rowsocket"

# The server's plugin directory: Debian's plugins (mtr's bootstrap and tests load
# some of them) plus the rowsocket.so under test.
for f in /usr/lib/mysql/plugin/*; do ln -s "$f" "$tmp/plugin/"; done
ln -sfn "$plugin" "$tmp/plugin/rowsocket.so"
# What the suite loads (t/*.opt: --plugin-load-add=$ROWSOCKET_SO); suite.pm skips
# the suite without it.
export ROWSOCKET_SO=rowsocket.so

args=(--suite="$tmp/suite/rowsocket" --vardir="$tmp/var" --tmpdir="$tmp/tmp"
      --parallel="${ROWSOCKET_MTR_PARALLEL:-2}" --force --max-test-fail=0
      --testcase-timeout=5 --suite-timeout=10
      --mysqld=--plugin-dir="$tmp/plugin"
      --mysqld=--plugin-maturity=experimental)
# --plugin-maturity: the lowest maturity the server then loads is experimental, what
# rowsocket declares now (a later gamma or stable passes too); mtr's own my.cnf
# would accept any. As root, mtr starts mysqld with --user=root by itself (its own
# --user is the SQL account the tests connect as, root by default).

log=$tmp/mtr.log
set +e
# mtr must start in its own directory; it writes nothing there with --vardir.
(cd "$mtr_home" && perl "$mtr" "${args[@]}" "$@") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
passed=$(grep -c '\[ pass \]' "$log" || true)
if [ "$rc" != 0 ]; then
  keep=1; die "mtr failed (exit $rc)"
fi
# Guards against a suite silently skipped (suite.pm, a missing include) or
# partly run; a run limited to named tests passes them all.
named=0
for a in "$@"; do [ "${a#-}" = "$a" ] && named=1; done
if [ $named = 0 ] && [ "$passed" -lt "$ntests" ]; then
  keep=1; die "only $passed of $ntests tests passed"
fi
[ "$passed" -gt 0 ] || { keep=1; die "no test passed"; }
echo "mtr.sh: $passed tests passed"
