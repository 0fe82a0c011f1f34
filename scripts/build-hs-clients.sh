#!/usr/bin/env bash
# Builds the original HandlerSocket's own clients, to run them against rowsocket in
# the tests (tests/integration/test_hs_clients.py): libhsclient, its `hsclient` tool,
# and Perl's Net::HandlerSocket, from plugin/handler_socket of the MariaDB source
# that scripts/setup-deps.sh already downloaded. Nothing of that source enters this
# repository: it is extracted and built in the cache, outside the work tree, once per
# MariaDB version, and its regression tests (regtest/) are run from there.
#
# Today's compilers and headers need a few stand-ins that do not touch the wire: the
# client sources include MariaDB's my_global.h, whose macros clash with Perl's
# headers, so they compile against three small headers of our own instead.
#
# Prints, as its last line, the directory of the build:
#   src/           the extracted plugin/handler_socket (regtest/ among it)
#   lib/libhsclient.a, include/   the C++ client library
#   bin/hsclient   the command-line tool
#   perl/          add to PERL5LIB for Net::HandlerSocket (perl/lib and perl/arch)
# Idempotent and safe to run concurrently (one build at a time, under a lock).
set -euo pipefail

CACHE=${ROWSOCKET_CACHE:-/var/cache/rowsocket}
log() { printf 'build-hs-clients: %s\n' "$*" >&2; }
die() { printf 'build-hs-clients: error: %s\n' "$*" >&2; exit 1; }

kit=$(cat "$CACHE/current-kit" 2>/dev/null) \
  || die "no MariaDB source yet: run scripts/setup-deps.sh (scripts/build.sh does)"
version=$(basename "$kit"); version=${version#kit-}
tarball=$(ls "$CACHE/src-$version"/mariadb_*.orig.tar.gz 2>/dev/null | head -n1) \
  || die "the MariaDB source of $version is not in $CACHE/src-$version"
[ -n "$tarball" ] || die "the MariaDB source of $version is not in $CACHE/src-$version"
out="$CACHE/hs-clients-$version"

exec 9>"$CACHE/hs-clients.lock"
flock 9
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi

log "building libhsclient, hsclient and Net::HandlerSocket from $(basename "$tarball")"
rm -rf "$out"; mkdir -p "$out/src" "$out/shim" "$out/lib" "$out/include" "$out/bin"
tar -xzf "$tarball" -C "$out/src" --strip-components=3 --wildcards '*/plugin/handler_socket/*'

# The stand-ins: what the sources take from MariaDB's headers is standard POSIX.
cat > "$out/shim/my_global.h" <<'EOF'
/* Stand-in for MariaDB's my_global.h when building the HandlerSocket clients. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#define SOCKET_SIZE_TYPE socklen_t
EOF
echo '#include <alloca.h>' > "$out/shim/my_alloca.h"
: > "$out/shim/config.h"

cxx=(g++ -O2 -g -fPIC -w -I"$out/shim")
src="$out/src/libhsclient"
objs=()
for f in config escape fatal hstcpcli socket string_util; do
  "${cxx[@]}" -c "$src/$f.cpp" -o "$out/lib/$f.o"
  objs+=("$out/lib/$f.o")
done
ar rcs "$out/lib/libhsclient.a" "${objs[@]}"
rm -f "${objs[@]}"
cp "$src"/*.hpp "$out/include/"

"${cxx[@]}" -I"$src" "$out/src/client/hsclient.cpp" -L"$out/lib" -lhsclient -o "$out/bin/hsclient"

# Net::HandlerSocket, built in its own source folder; its blib/ is what Perl loads.
perl_src="$out/src/perl-Net-HandlerSocket"
cat > "$perl_src/Makefile.PL" <<EOF
use ExtUtils::MakeMaker;
WriteMakefile(
    NAME => 'Net::HandlerSocket',
    VERSION_FROM => 'lib/Net/HandlerSocket.pm',
    CC => 'g++ -fPIC',
    LD => 'g++ -fPIC',
    LIBS => ['-L$out/lib -lhsclient'],
    INC => '-I. -I$out/shim -I$out/include',
    OPTIMIZE => '-g -O2 -w',
);
EOF
(cd "$perl_src" && perl Makefile.PL >/dev/null && make >"$out/perl-make.log" 2>&1) \
  || { cat "$out/perl-make.log" >&2; die "building Net::HandlerSocket failed"; }
mkdir -p "$out/perl"
cp -r "$perl_src/blib/lib" "$perl_src/blib/arch" "$out/perl/"
PERL5LIB="$out/perl/lib:$out/perl/arch" perl -MNet::HandlerSocket -e 1 \
  || die "Net::HandlerSocket was built but does not load"

touch "$out/.complete"
echo "$out"
