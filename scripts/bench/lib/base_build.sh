# A commit's mariadb_speed_bench, built beside this tree for an A/B: its
# tree from git archive (no checkout), a release build of the mariadb part
# with the benches. Sourced by the A/B scripts:
#
#   source "$here/scripts/bench/lib/base_build.sh"
#   bin=$(bench_base_build 35dcb6d)   # prints the binary's path; build output on stderr

bench_base_build() {
  local commit=$1 root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
  local src=$root/build/ab-base-$commit/src build=$root/build/ab-base-$commit/build
  if [ ! -f "$src/CMakeLists.txt" ]; then
    mkdir -p "$src"
    git -C "$root" archive "$commit" | tar -x -C "$src"
  fi
  if [ ! -f "$build/CMakeCache.txt" ]; then
    (cd "$src" && cmake --preset release -B "$build" -DSLUICE_PARTS=mariadb -DSLUICE_BUILD_BENCH=ON >/dev/null)
  fi
  cmake --build "$build" -j2 --target mariadb_speed_bench >&2
  echo "$build/mariadb/bench/speed/mariadb_speed_bench"
}
