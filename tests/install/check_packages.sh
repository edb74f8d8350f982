#!/usr/bin/env bash
# The packages' test (scripts/package --check runs it on what it built):
# each .deb's fields (dpkg-deb --info), its files (dpkg-deb --contents) and
# lintian, which must report no error (warnings are printed, not fatal).
#
#   check_packages.sh SLUICE_TOOLS.deb LIBSLUICE_DEV.deb
set -euo pipefail
fail() {
  echo "packages: FAILED: $*" >&2
  exit 1
}
tools_deb="" dev_deb=""
for deb in "$@"; do
  case "$(dpkg-deb --field "$deb" Package)" in
    sluice-tools) tools_deb=$deb ;;
    libsluice-dev) dev_deb=$deb ;;
    *) fail "$deb is neither sluice-tools nor libsluice-dev" ;;
  esac
done
[ -n "$tools_deb" ] && [ -n "$dev_deb" ] || fail "usage: check_packages.sh SLUICE_TOOLS.deb LIBSLUICE_DEV.deb"
root=$(cd "$(dirname "$0")/../.." && pwd)
version=$(sed -nE 's/^project\(sluice VERSION ([0-9.]+).*/\1/p' "$root/CMakeLists.txt")

# has DEB PATH...: every path is in the package (dpkg-deb --contents)
has() {
  local deb=$1 contents path
  shift
  contents=$(dpkg-deb --contents "$deb" | awk '{ print $6 }')
  for path in "$@"; do
    grep -qxE "\./$path" <<<"$contents" || fail "$(basename "$deb") has no $path"
  done
}
# lacks DEB REGEX: no path of the package matches
# (Outputs go through variables: grep -q on a pipe under pipefail fails
# whenever it stops reading before the writer is done.)
lacks() {
  local contents
  contents=$(dpkg-deb --contents "$1" | awk '{ print $6 }')
  if grep -qE "$2" <<<"$contents"; then
    fail "$(basename "$1") has files matching $2"
  fi
}

echo "== dpkg-deb --info"
for deb in "$tools_deb" "$dev_deb"; do
  dpkg-deb --info "$deb" | sed -n '/^ [A-Z][A-Za-z-]*:/,$p'
  [ "$(dpkg-deb --field "$deb" Version)" = "$version" ] || fail "$(basename "$deb") is not version $version"
done
# Depends computed from the shared libraries the tools use (dpkg-shlibdeps):
# the C++ runtime, OpenSSL, libpq, libnats ... with their versions.
tools_depends=$(dpkg-deb --field "$tools_deb" Depends)
# The package names of a Depends field, one a line ("a (>= 1), b | c" -> a, b, c).
names() { tr ',|' '\n\n' <<<"$1" | sed -E 's/^ *//; s/ .*//' | grep -v '^$' || true; }
# depends_on FIELD NAME: NAME is one of the field's packages
depends_on() {
  local all
  all=$(names "$1")
  grep -qxF "$2" <<<"$all"
}
for lib in libc6 libstdc++6 libssl3 libpq5 libnats3.4 libsimdjson14; do
  depends_on "$tools_depends" "$lib" ||
    fail "sluice-tools Depends lacks $lib (computed from the tools' shared libraries): $tools_depends"
done
depends_on "$tools_depends" postgresql-server-dev-15 || fail "sluice-tools Depends lacks what keal compiles with"
dev_depends=$(dpkg-deb --field "$dev_deb" Depends)
for lib in libssl-dev libsodium-dev libpq-dev libsimdjson-dev libssl3 libsodium23; do
  depends_on "$dev_depends" "$lib" || fail "libsluice-dev Depends lacks $lib: $dev_depends"
done

echo "== dpkg-deb --contents"
tools=(sluice-mariadb sluice-pipeline tideweave keal)
tools_paths=()
for tool in "${tools[@]}"; do
  tools_paths+=("usr/bin/$tool" "usr/share/man/man1/$tool.1.gz" "usr/share/bash-completion/completions/$tool")
done
has "$tools_deb" "${tools_paths[@]}" usr/share/doc/sluice-tools/copyright usr/share/doc/sluice-tools/changelog.gz \
  'usr/lib/([^/]+/)?sluice/keal/runtime/keal_rt.h' 'usr/lib/([^/]+/)?sluice/keal/libkeal_native_sql.a'
lacks "$tools_deb" '^\./usr/include/|\.pc$|/cmake/'
dev_paths=(usr/share/doc/libsluice-dev/copyright)
for part in common mariadb tideweave postgres; do
  dev_paths+=("usr/lib/([^/]+/)?libsluice_$part.a" "usr/lib/([^/]+/)?libsluice_$part.so"
              "usr/lib/([^/]+/)?libsluice_$part.so.${version%%.*}" "usr/lib/([^/]+/)?pkgconfig/sluice-$part.pc"
              "usr/include/sluice/$part/")
done
has "$dev_deb" "${dev_paths[@]}" usr/include/sluice/mariadb/connection.hpp 'usr/lib/([^/]+/)?cmake/sluice/sluiceConfig.cmake'
lacks "$dev_deb" '^\./usr/bin/|/src/|jetstream|cli_exit'

echo "== lintian"
# --fail-on error: a warning is reported, an error fails the test.
lintian --fail-on error --tag-display-limit 0 "$tools_deb" "$dev_deb" || fail "lintian reported errors (above)"
echo "packages: passed"
