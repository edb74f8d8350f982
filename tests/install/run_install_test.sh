#!/usr/bin/env bash
# install.prefix: `cmake --install build/release --prefix P` into a fresh
# prefix, then, out of the tree and after moving the prefix elsewhere:
#   - what is installed: the four tools (--version: the project's version
#     and this checkout's commit), public headers only, static and shared
#     libraries (SONAME libsluice_<part>.so.<major>), the CMake package, the
#     .pc files, man pages, bash completions, Keal's resources;
#   - no installed file holds the build directory's path;
#   - a consumer project (tests/install/consumer, the one README.md shows)
#     built with find_package(sluice ...) queries the private MariaDB through
#     sluice::mariadb and runs a Tideweave transaction through
#     sluice::tideweave;
#   - the same program built by g++ with `pkg-config --cflags --libs`;
#   - the moved prefix's keal deploys a function into the private
#     PostgreSQL (and builds a native program).
#
# The release build is scripts/build's (build/release, which CI builds before
# ctest anyway; it builds the target sluice_installables): this test runs
# scripts/build first, a no-op when the tree is up to date.
#
#   run_install_test.sh WORK_DIR      ($SLUICE_ENV_FILE: the servers fixture)
set -euo pipefail
work=${1:?usage: run_install_test.sh WORK_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/release
: "${SLUICE_ENV_FILE:?the env file of the servers fixture}"
set -a
# shellcheck disable=SC1090
. "$SLUICE_ENV_FILE"
set +a

fail() {
  echo "install test: FAILED: $*" >&2
  exit 1
}
step() { echo "== $*"; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
moved=$work/moved/prefix

step "release build (scripts/build)"
"$root/scripts/build" >"$work/build.log" 2>&1 || {
  tail -n 30 "$work/build.log" >&2
  fail "scripts/build"
}

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
  tail -n 30 "$work/install.log" >&2
  fail "cmake --install"
}
libdir=$(grep -E '^CMAKE_INSTALL_LIBDIR:' "$build/CMakeCache.txt" | cut -d= -f2)
version=$(sed -nE 's/^project\(sluice VERSION ([0-9.]+).*/\1/p' "$root/CMakeLists.txt")
major=${version%%.*}
[ -n "$libdir" ] && [ -n "$version" ] || fail "cannot read CMAKE_INSTALL_LIBDIR or the version"

step "what is installed"
tools=(sluice-mariadb sluice-pipeline tideweave keal)
for tool in "${tools[@]}"; do
  [ -x "$prefix/bin/$tool" ] || fail "no executable bin/$tool"
  [ -s "$prefix/share/man/man1/$tool.1.gz" ] || fail "no man page share/man/man1/$tool.1.gz"
  [ -s "$prefix/share/bash-completion/completions/$tool" ] || fail "no completion for $tool"
done
for part in common mariadb tideweave postgres; do
  for f in "lib$part.a" "lib$part.so" "lib$part.so.$major" "lib$part.so.$version"; do
    f=${f/lib$part/libsluice_$part}
    [ -e "$prefix/$libdir/$f" ] || fail "no $libdir/$f"
  done
  soname=$(objdump -p "$prefix/$libdir/libsluice_$part.so" | awk '$1 == "SONAME" { print $2 }')
  [ "$soname" = "libsluice_$part.so.$major" ] || fail "libsluice_$part.so has SONAME '$soname'"
  [ -d "$prefix/include/sluice/$part" ] || fail "no include/sluice/$part"
  [ -s "$prefix/$libdir/pkgconfig/sluice-$part.pc" ] || fail "no sluice-$part.pc"
done
for f in sluiceConfig.cmake sluiceConfigVersion.cmake sluice-mariadb-targets.cmake; do
  [ -s "$prefix/$libdir/cmake/sluice/$f" ] || fail "no $libdir/cmake/sluice/$f"
done
for f in runtime/keal_rt.h libkeal_native_sql.a libsluice_postgres_standalone.a; do
  [ -s "$prefix/$libdir/sluice/keal/$f" ] || fail "no $libdir/sluice/keal/$f (keal's resources)"
done
# Public headers only: each installed header is one of a part's include/.
while IFS= read -r header; do
  relative=${header#"$prefix/include/"}
  part=$(echo "$relative" | cut -d/ -f2)
  [ -f "$root/$part/include/$relative" ] || fail "include/$relative is no public header ($part/include/$relative)"
done < <(find "$prefix/include" -type f)
[ -z "$(find "$prefix/include" -path '*/src/*' -o -name cli_exit.hpp -o -path '*/jetstream*')" ] ||
  fail "private or tool-only headers were installed"

step "--version: $version and this commit"
commit=$(git -C "$root" rev-parse --short=12 HEAD)
for tool in "${tools[@]}"; do
  line=$("$prefix/bin/$tool" --version)
  [[ $line =~ ^$tool\ $version\ \(git\ $commit(\+dirty)?\)$ ]] || fail "$tool --version said '$line'"
done

step "man pages: from --help, with the subcommands and EXAMPLES"
for tool in "${tools[@]}"; do
  page=$(MANWIDTH=200 man -l "$prefix/share/man/man1/$tool.1.gz" 2>/dev/null)
  grep -q '^EXAMPLES' <<<"$page" || fail "man $tool has no EXAMPLES"
  grep -qF -- "--help" <<<"$page" || fail "man $tool does not have the --help text"
done
grep -q 'keal deploy' <<<"$(MANWIDTH=200 man -l "$prefix/share/man/man1/keal.1.gz")" ||
  fail "man keal has no section for keal deploy"

step "bash completion"
completion() { # completion TOOL WORD...: the candidates for the last word, sorted
  local tool=$1
  shift
  PATH="$prefix/bin:$PATH" bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
    "$(complete -p "$1" | sed -E "s/.*-F ([^ ]+).*/\1/")"; printf "%s\n" "${COMPREPLY[@]}"' \
    "$prefix/share/bash-completion/completions/$tool" "$tool" "$@" | sort
}
[ "$(completion keal de)" = $'deploy\ndescribe' ] || fail "keal de<TAB> gave '$(completion keal de)'"
[ "$(completion keal deploy --li)" = "--lib-dir" ] || fail "keal deploy --li<TAB> gave '$(completion keal deploy --li)'"
[ "$(completion sluice-pipeline run --sink-t)" = "--sink-table" ] || fail "sluice-pipeline run --sink-t<TAB>"

step "no installed file holds $build"
if grep -rlF -- "$build" "$prefix"; then
  fail "the files above hold the build directory's path"
fi

step "move the prefix to $moved"
mkdir -p "$(dirname "$moved")"
mv "$prefix" "$moved"

step "consumer with find_package(sluice ...)"
consumer=$root/tests/install/consumer
# README.md's "Use it as a library" shows this CMakeLists.txt: the same text.
readme_cmake=$(awk '/^## Use it as a library/ { section = 1 } section && /^```cmake$/ { inside = 1; next }
                    inside && /^```$/ { exit } inside { print }' "$root/README.md")
[ "$readme_cmake" = "$(cat "$consumer/CMakeLists.txt")" ] ||
  fail "README.md's consumer CMakeLists.txt differs from tests/install/consumer/CMakeLists.txt"
cmake -S "$consumer" -B "$work/consumer-cmake" -G Ninja -DCMAKE_PREFIX_PATH="$moved" -DCMAKE_BUILD_TYPE=Release \
  >"$work/consumer-cmake.log" 2>&1 || {
  cat "$work/consumer-cmake.log" >&2
  fail "configuring the consumer"
}
cmake --build "$work/consumer-cmake" >>"$work/consumer-cmake.log" 2>&1 || {
  cat "$work/consumer-cmake.log" >&2
  fail "building the consumer"
}
expected="sluice $version: 2 readings from MariaDB -> session k [0, 15): count 2, sum 4"
out=$("$work/consumer-cmake/sluice_consumer" "$SLUICE_MARIADB_URL")
[ "$out" = "$expected" ] || fail "the find_package consumer printed '$out'"
# (ldd's output in a variable: grep -q on a pipe under pipefail would fail
# whenever it stops reading before ldd is done.)
libraries=$(ldd "$work/consumer-cmake/sluice_consumer")
grep -qF "$moved/$libdir/libsluice_mariadb.so.$major" <<<"$libraries" ||
  fail "the find_package consumer does not use the installed shared libsluice_mariadb"
out=$("$work/consumer-cmake/sluice_consumer_static" "$SLUICE_MARIADB_URL")
[ "$out" = "$expected" ] || fail "the find_package consumer linked statically printed '$out'"
libraries=$(ldd "$work/consumer-cmake/sluice_consumer_static")
if grep -q libsluice <<<"$libraries"; then
  fail "sluice_consumer_static loads a shared libsluice"
fi

step "consumer with pkg-config and g++"
export PKG_CONFIG_PATH="$moved/$libdir/pkgconfig"
# shellcheck disable=SC2046
g++ -std=c++20 -O1 -o "$work/consumer-pkg-config" "$consumer/main.cpp" \
  $(pkg-config --cflags --libs sluice-mariadb sluice-tideweave sluice-common) -Wl,-rpath,"$(pkg-config --variable=libdir sluice-mariadb)" ||
  fail "g++ with pkg-config"
out=$("$work/consumer-pkg-config" "$SLUICE_MARIADB_URL")
[ "$out" = "$expected" ] || fail "the pkg-config consumer printed '$out'"
pkg-config --exists sluice-postgres || fail "pkg-config does not know sluice-postgres"
[ "$(pkg-config --modversion sluice-mariadb)" = "$version" ] || fail "sluice-mariadb.pc's version"

step "the moved prefix's keal: deploy into PostgreSQL, a native program"
lib_dir=$work/keal-lib
mkdir -p "$lib_dir"
chmod 0755 "$work" "$lib_dir"
cat >"$work/install_check.keal" <<'KEAL'
/// Deployed by the install test from a moved prefix.
export fn sluice_install_check(n: int) -> int {
    return n * 2 + 1
}
KEAL
"$moved/bin/keal" deploy "$work/install_check.keal" --db "$SLUICE_PG_URL" --lib-dir "$lib_dir" ||
  fail "keal deploy from the moved prefix"
answer=$(psql "$SLUICE_PG_URL" -XAtqc 'select sluice_install_check(20)')
[ "$answer" = 41 ] || fail "sluice_install_check(20) gave '$answer'"
psql "$SLUICE_PG_URL" -XAtqc 'drop function sluice_install_check(bigint)' >/dev/null
"$moved/bin/keal" build "$root/keal/examples/hello.keal" --target native -o "$work/hello" ||
  fail "keal build --target native from the moved prefix"
[ "$("$work/hello")" = "hello from Keal: 42" ] || fail "the native program printed '$("$work/hello")'"

echo "install test: passed"
