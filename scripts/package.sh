#!/usr/bin/env bash
# Builds rowsocket's Debian packages, with dpkg-dev's own tools (no debhelper):
#
#   mariadb-plugin-rowsocket  rowsocket.so in the server's plugin directory, and the
#                             commented /etc/mysql/mariadb.conf.d/60-rowsocket.cnf;
#                             depends on exactly the MariaDB it was built against
#   rowsocket-client          rowsocket-cli and its man page (made from its --help)
#   librowsocket0             the client library
#   librowsocket-dev          its headers, pkg-config file and CMake package
#   python3-rowsocket         the Python client (clients/python)
#   <each>-dbgsym             their detached debug symbols, as Debian ships them
#
#   scripts/package.sh [--lint]
#
# The plugin must be compiled against the exact source of the mariadbd that loads
# it, so the packages are built for the MariaDB installed here (scripts/setup-deps.sh
# pins it and makes its header kit; this script runs it first) and are versioned
# <project version>+mariadb<server upstream version>-<revision>, e.g.
# 0.1.0+mariadb10.11.18-1. The build uses Debian's compiler flags (dpkg-buildflags,
# hardening=+all) in a build directory of its own.
#
# Prints, as its last line, the directory that holds the .deb files.
#
# --lint   run lintian on the packages (install it with `apt-get install lintian`)
#          and fail on any error or warning; without --lint, lintian runs when it
#          is installed and only reports.
#
# Environment:
#   ROWSOCKET_PKG_BUILD_DIR  CMake build directory        (build/pkg)
#   ROWSOCKET_PKG_OUT        where the .deb files go       (build/debs)
#   ROWSOCKET_PKG_REVISION   Debian revision               (1)
#   ROWSOCKET_PKG_VERSION    the whole version, overriding the above
#   ROWSOCKET_PKG_SKIP_SETUP=1  do not run scripts/setup-deps.sh (which needs root)
#   DEBFULLNAME, DEBEMAIL    maintainer                    (rowsocket authors)
#
# Adding a package: a stanza in packaging/debian/control.in,
# a stage_<name> function below that fills $work/debian/<name>/, and its name in
# PACKAGES. Everything after staging (docs, stripping, md5sums, dependencies,
# control file, lintian) is common to all packages.
set -euo pipefail
umask 022
export LC_ALL=C.UTF-8

root=$(cd "$(dirname "$0")/.." && pwd)
pkgsrc=$root/packaging
build=${ROWSOCKET_PKG_BUILD_DIR:-$root/build/pkg}
out=${ROWSOCKET_PKG_OUT:-$root/build/debs}
CACHE=${ROWSOCKET_CACHE:-/var/cache/rowsocket}
# In staging order: librowsocket0 before rowsocket-client, whose man page runs
# rowsocket-cli against it.
PACKAGES=(mariadb-plugin-rowsocket librowsocket0 librowsocket-dev rowsocket-client
          python3-rowsocket)

log() { printf 'package: %s\n' "$*" >&2; }
die() { printf 'package: error: %s\n' "$*" >&2; exit 1; }

lint=0
for arg in "$@"; do
  case "$arg" in
    --lint) lint=1 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) die "unknown argument: $arg (see --help)" ;;
  esac
done

# --- What to build against ------------------------------------------------------
if [ -z "${ROWSOCKET_PKG_SKIP_SETUP:-}" ]; then
  bash "$root/scripts/setup-deps.sh" >/dev/null
fi
for tool in cmake dpkg-deb dpkg-gencontrol dpkg-shlibdeps dpkg-architecture dpkg-buildflags \
            objcopy strip readelf gzip; do
  command -v "$tool" >/dev/null || die "$tool is missing (packages dpkg-dev, binutils, cmake)"
done
if [ "$lint" = 1 ] && ! command -v lintian >/dev/null; then
  die "--lint needs lintian: apt-get install --no-install-recommends lintian"
fi

kit=$(cat "$CACHE/current-kit" 2>/dev/null) || die "no MariaDB header kit: run scripts/setup-deps.sh"
[ -f "$kit/.complete" ] || die "the MariaDB header kit $kit is incomplete: run scripts/setup-deps.sh"
kit_version=$(cat "$kit/VERSION")
server_version=$(dpkg-query -W -f='${Version}' mariadb-server 2>/dev/null || true)
core_version=$(dpkg-query -W -f='${Version}' mariadb-server-core 2>/dev/null || true)
[ -n "$server_version" ] || die "mariadb-server is not installed: run scripts/setup-deps.sh"
if [ "$server_version" != "$kit_version" ] || [ "$core_version" != "$kit_version" ]; then
  die "the header kit is for MariaDB $kit_version, but mariadb-server $server_version and
  mariadb-server-core $core_version are installed: run scripts/setup-deps.sh"
fi
mariadb_version=$server_version                  # e.g. 1:10.11.18-0+deb12u1
mariadb_upstream=${mariadb_version#*:}
mariadb_upstream=${mariadb_upstream%%-*}         # e.g. 10.11.18

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
maintainer="${DEBFULLNAME:-rowsocket authors} <${DEBEMAIL:-dev@rowsocket.invalid}>"

# Reproducible dates: the last commit's, when there is one.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH
describe=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)

# --- Build ----------------------------------------------------------------------
# Debian's flags, computed in the source root (for -ffile-prefix-map).
flags() { (cd "$root" && DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1"); }
cxxflags="$(flags CPPFLAGS) $(flags CXXFLAGS)"
ldflags=$(flags LDFLAGS)

log "building for MariaDB $mariadb_version in $build"
cmake -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DROWSOCKET_BUILD_TESTS=OFF \
  -DROWSOCKET_BUILD_PLUGIN=ON \
  -DMARIADB_KIT="$kit" \
  -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_INSTALL_LIBDIR="lib/$multiarch" \
  -DROWSOCKET_PLUGIN_INSTALL_DIR=lib/mysql/plugin \
  -DCMAKE_CXX_FLAGS="$cxxflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$ldflags" \
  -DCMAKE_MODULE_LINKER_FLAGS="$ldflags" >/dev/null
cmake --build "$build" -j"$(nproc)" --target rowsocket rowsocket_client rowsocket-cli >&2

project_version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$project_version" ] || die "no project version in $build/CMakeCache.txt"
version=${ROWSOCKET_PKG_VERSION:-$project_version+mariadb$mariadb_upstream-${ROWSOCKET_PKG_REVISION:-1}}
log "version $version"

# --- Stage ----------------------------------------------------------------------
# $work is laid out as debhelper would: debian/control, debian/changelog and one
# debian/<package>/ tree per package; dpkg-shlibdeps and dpkg-gencontrol run in it.
work=$build/debian-work
install=$work/install
rm -rf "$work"
mkdir -p "$work/debian" "$install"
DESTDIR=$install cmake --install "$build" --component client >/dev/null
DESTDIR=$install cmake --install "$build" --component plugin >/dev/null

subst() {
  sed -e "s|@MARIADB_VERSION@|$mariadb_version|g" -e "s|@MAINTAINER@|$maintainer|g" \
      -e "s|@VERSION@|$version|g" "$@"
}

subst "$pkgsrc/debian/control.in" > "$work/debian/control"
{
  echo "rowsocket ($version) bookworm; urgency=medium"
  echo
  echo "  * Built from rowsocket $describe for MariaDB $mariadb_version."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} > "$work/debian/changelog"

# take PACKAGE PATH...: moves installed paths (relative to /) into the package.
take() {
  local pkg=$1 path; shift
  for path in "$@"; do
    [ -e "$install/$path" ] || [ -L "$install/$path" ] || die "the build did not install /$path"
    mkdir -p "$work/debian/$pkg/$(dirname "$path")"
    mv "$install/$path" "$work/debian/$pkg/$path"
  done
}

stage_mariadb-plugin-rowsocket() {
  local p=$work/debian/mariadb-plugin-rowsocket
  take mariadb-plugin-rowsocket usr/lib/mysql/plugin/rowsocket.so
  install -D -m 0644 /dev/null "$p/etc/mysql/mariadb.conf.d/60-rowsocket.cnf"
  subst "$pkgsrc/mariadb-plugin-rowsocket/60-rowsocket.cnf" > "$p/etc/mysql/mariadb.conf.d/60-rowsocket.cnf"
  mkdir -p "$p/DEBIAN"
  echo /etc/mysql/mariadb.conf.d/60-rowsocket.cnf > "$p/DEBIAN/conffiles"
  subst "$pkgsrc/mariadb-plugin-rowsocket/preinst" > "$p/DEBIAN/preinst"
  chmod 0755 "$p/DEBIAN/preinst"
}

stage_librowsocket0() {
  local p=$work/debian/librowsocket0 lib
  (cd "$install" && ls -d usr/lib/"$multiarch"/librowsocket.so.*) > "$work/lib0.list" \
    || die "the build did not install librowsocket.so.*"
  while read -r lib; do take librowsocket0 "$lib"; done < "$work/lib0.list"
  mkdir -p "$p/DEBIAN"
  local soname
  soname=$(readelf -d "$(ls "$p/usr/lib/$multiarch"/librowsocket.so.*.* | head -n1)" \
             | sed -n 's/.*(SONAME).*\[librowsocket\.so\.\([0-9]*\)\]/\1/p')
  [ "$soname" = 0 ] || die "librowsocket's SONAME is librowsocket.so.$soname: rename librowsocket0"
  echo "librowsocket $soname librowsocket0 (>= $project_version)" > "$p/DEBIAN/shlibs"
  cp "$pkgsrc/librowsocket0/triggers" "$p/DEBIAN/triggers"
}

stage_librowsocket-dev() {
  take librowsocket-dev usr/include/rowsocket usr/lib/"$multiarch"/librowsocket.so \
    usr/lib/"$multiarch"/pkgconfig/rowsocket.pc usr/lib/"$multiarch"/cmake/rowsocket
  # The installed .pc finds its prefix from its own place (relocatable); a
  # package knows it.
  sed -i 's|^prefix=.*|prefix=/usr|' \
    "$work/debian/librowsocket-dev/usr/lib/$multiarch/pkgconfig/rowsocket.pc"
}

stage_rowsocket-client() {
  local p=$work/debian/rowsocket-client
  take rowsocket-client usr/bin/rowsocket-cli
  mkdir -p "$p/usr/share/man/man1"
  LD_LIBRARY_PATH="$work/debian/librowsocket0/usr/lib/$multiarch" HOME="$work" \
    bash "$pkgsrc/rowsocket-client/make-manpage.sh" "$p/usr/bin/rowsocket-cli" \
      "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" > "$work/rowsocket-cli.1"
  gzip -9n < "$work/rowsocket-cli.1" > "$p/usr/share/man/man1/rowsocket-cli.1.gz"
}

# The Python client, built as a wheel offline by Debian's Python (its setuptools and
# wheel) from a copy of its sources, so that the build leaves nothing in the tree.
stage_python3-rowsocket() {
  local p=$work/debian/python3-rowsocket site=usr/lib/python3/dist-packages
  rm -rf "$work/python" && cp -r "$root/clients/python" "$work/python"
  /usr/bin/python3 -m pip wheel --quiet --no-build-isolation --no-index --no-deps \
    -w "$work/wheel" "$work/python" > "$work/wheel.log" 2>&1 \
    || { cat "$work/wheel.log" >&2; die "could not build the Python client's wheel"; }
  mkdir -p "$p/$site"
  /usr/bin/python3 -m zipfile -e "$work"/wheel/rowsocket-*.whl "$p/$site"
  # The wheel's RECORD lists hashes of files dpkg owns now; dpkg's md5sums do that.
  rm -f "$p/$site"/rowsocket-*.dist-info/RECORD
}

for pkg in "${PACKAGES[@]}"; do "stage_$pkg"; done
leftover=$(cd "$install" && find . ! -type d | sed 's|^\./|/|')
[ -z "$leftover" ] || die "installed but in no package (add them to a stage_ function):
$leftover"

# --- Common to every package ----------------------------------------------------
elf_files() { find "$1" -path "$1/DEBIAN" -prune -o -type f -print | while read -r f; do
  [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && echo "$f"; done; }

# Detached debug symbols, as dh_strip makes them: /usr/lib/debug/.build-id/xx/yyyy.debug
# in <package>-dbgsym; the binary keeps a debuglink to it.
split_debug() {
  local pkg=$1 p=$work/debian/$1 dbg=$work/debian/$1-dbgsym f id ids=()
  while read -r f; do
    id=$(readelf -n "$f" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n1)
    [ -n "$id" ] || die "$f has no build id"
    local debug=usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    mkdir -p "$dbg/$(dirname "$debug")"
    objcopy --only-keep-debug --compress-debug-sections "$f" "$dbg/$debug"
    chmod 0644 "$dbg/$debug"
    case "$f" in
      *.so|*.so.*) strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f" ;;
      *) strip --remove-section=.comment --remove-section=.note "$f" ;;
    esac
    objcopy --add-gnu-debuglink="$dbg/$debug" "$f"
    ids+=("$id")
  done < <(elf_files "$p")
  if [ ${#ids[@]} -gt 0 ]; then
    mkdir -p "$dbg/usr/share/doc"
    ln -s "$pkg" "$dbg/usr/share/doc/$pkg-dbgsym"
    echo "${ids[*]}" > "$work/$pkg.build-ids"
  fi
}

install_docs() {
  local pkg=$1 d=$work/debian/$1/usr/share/doc/$1
  mkdir -p "$d"
  cp "$pkgsrc/debian/copyright" "$d/copyright"
  gzip -9n < "$work/debian/changelog" > "$d/changelog.Debian.gz"
}

fix_modes() {
  local p=$1
  find "$p" -path "$p/DEBIAN" -prune -o -type d -exec chmod 0755 {} +
  find "$p" -path "$p/DEBIAN" -prune -o -type f -exec chmod 0644 {} +
  [ -d "$p/usr/bin" ] && find "$p/usr/bin" -type f -exec chmod 0755 {} +
  [ -d "$p/usr/sbin" ] && find "$p/usr/sbin" -type f -exec chmod 0755 {} +
  return 0
}

md5sums() {
  local p=$1
  (cd "$p" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort \
     | xargs -r -d '\n' md5sum) > "$p/DEBIAN/md5sums"
  [ -s "$p/DEBIAN/md5sums" ] || rm -f "$p/DEBIAN/md5sums"
}

gencontrol() {  # gencontrol PACKAGE [dpkg-gencontrol options...]
  local pkg=$1; shift
  (cd "$work" && dpkg-gencontrol -p"$pkg" -P"debian/$pkg" -T"debian/$pkg.substvars" \
     -v"$version" "$@")
}

mkdir -p "$out"
for pkg in "${PACKAGES[@]}"; do
  rm -f "$out/${pkg}_"*.deb "$out/${pkg}-dbgsym_"*.deb
done
debs=()
for pkg in "${PACKAGES[@]}"; do
  p=$work/debian/$pkg
  mkdir -p "$p/DEBIAN"
  install_docs "$pkg"
  fix_modes "$p"
  split_debug "$pkg"
  # Dependencies on shared libraries, from the ELF files (librowsocket's come
  # from debian/librowsocket0/DEBIAN/shlibs). The plugin's symbols from mariadbd
  # itself are found in no library: that is expected.
  : > "$work/debian/$pkg.substvars"
  mapfile -t elves < <(elf_files "$p")
  if [ ${#elves[@]} -gt 0 ]; then
    warn=7; [ "$pkg" = mariadb-plugin-rowsocket ] && warn=0
    (cd "$work" && dpkg-shlibdeps --warnings=$warn -T"debian/$pkg.substvars" \
       -l"debian/librowsocket0/usr/lib/$multiarch" "${elves[@]#$work/}")
  fi
  md5sums "$p"
  gencontrol "$pkg"
  pkg_arch=$(sed -n 's/^Architecture: //p' "$p/DEBIAN/control")   # "all" for a python3-*
  dpkg-deb --root-owner-group -Zxz --build "$p" "$out/${pkg}_${version}_$pkg_arch.deb" >/dev/null
  debs+=("$out/${pkg}_${version}_$pkg_arch.deb")

  if [ -f "$work/$pkg.build-ids" ]; then
    d=$work/debian/$pkg-dbgsym
    mkdir -p "$d/DEBIAN"
    fix_modes "$d"
    md5sums "$d"
    multi=(-UMulti-Arch)
    grep -q '^Multi-Arch: same' "$p/DEBIAN/control" && multi=(-DMulti-Arch=same)
    gencontrol "$pkg" -P"debian/$pkg-dbgsym" -UPre-Depends -URecommends -USuggests \
      -UEnhances -UProvides -UEssential -UConflicts -UReplaces -UBreaks "${multi[@]}" \
      -DPackage="$pkg-dbgsym" -DDepends="$pkg (= $version)" -DSection=debug \
      -DPriority=optional -DAuto-Built-Package=debug-symbols \
      -DBuild-Ids="$(cat "$work/$pkg.build-ids")" \
      -DDescription="debug symbols for $pkg"
    dpkg-deb --root-owner-group -Zxz --build "$d" \
      "$out/${pkg}-dbgsym_${version}_$pkg_arch.deb" >/dev/null
    debs+=("$out/${pkg}-dbgsym_${version}_$pkg_arch.deb")
  fi
done

for deb in "${debs[@]}"; do
  log "$(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
done

# --- lintian --------------------------------------------------------------------
if command -v lintian >/dev/null; then
  # Tags Debian's own MariaDB plugin packages carry too; see packaging/README.md.
  lint_out=$(lintian --suppress-tags-from-file "$pkgsrc/lintian-suppress" "${debs[@]}" 2>&1 \
    | grep -v "running with root privileges" || true)
  if [ -n "$lint_out" ]; then
    printf '%s\n' "$lint_out" >&2
    if [ "$lint" = 1 ] && printf '%s\n' "$lint_out" | grep -q '^[EW]: '; then
      die "lintian reports errors or warnings"
    fi
  else
    log "lintian: clean"
  fi
fi

echo "$out"
