#!/usr/bin/env bash
# readme.commands: runs README.md's command blocks as written. Every block
# whose info string is exactly `sh` runs, in README order, in one bash (so
# `set -a; . /tmp/sl/env; set +a` carries into the next block), from the top
# of the checkout, stopping at the first failing command. A ```sh norun block
# is shown to readers but not run; blocks in other languages are not run.
#
# The commands name /tmp/sl, /tmp/keal-lib, ...: they run in a private mount
# namespace with a /tmp of its own (tmpfs), so that nothing they make or
# start collides with a user's /tmp/sl or with another run of this test.
# Servers a failed block left running there are stopped at the end. A
# checkout (or WORK_DIR) under /tmp stays where it is: it is bound into the
# private /tmp at its own path before that replaces /tmp (a plain tmpfs over
# /tmp hid the checkout and the script, issue 32).
#
#   run_readme.sh WORK_DIR     (WORK_DIR: where the extracted script goes)
set -euo pipefail
work=${1:?usage: run_readme.sh WORK_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
script=$work/readme_commands.sh

{
  echo "cd '$root'"
  # Anything left running in the private /tmp is stopped on the way out.
  echo "trap 'for d in /tmp/*/; do [ -f \"\$d/datadir\" ] && scripts/servers/stop --dir \"\$d\" >/dev/null 2>&1; done; true' EXIT"
  echo "PS4='+ README: '"
  echo "set -x"
  awk '
    /^```sh[ \t]*$/ { inside = 1; blocks++; printf "# README.md line %d\n", NR; next }
    /^```/          { inside = 0; next }
    inside          { print }
    END             { if (blocks == 0) { print "echo \"no sh blocks in README.md\" >&2; exit 1" } }
  ' "$root/README.md"
} >"$script"

echo "readme: running $(grep -c '^# README.md line' "$script") blocks of $root/README.md ($script)"
# The private /tmp is made at a mount point under WORK_DIR (which is
# reachable), the paths under /tmp that must stay reachable are bound into
# it, and then it is moved onto /tmp.
stage=$work/private-tmp
mkdir -p "$stage"
keep=()
for path in "$root" "$work"; do
  physical=$(cd "$path" && pwd -P)
  case "$physical" in /tmp/*) keep+=("$physical") ;; esac
done
# TMPDIR unset: the commands as a reader runs them, all under the private /tmp.
exec unshare --mount --propagation private -- env -u TMPDIR bash -c '
  set -eu
  script=$1 stage=$2
  shift 2
  mount -t tmpfs -o mode=1777 sluice-readme "$stage"
  for path in "$@"; do
    mkdir -p "$stage/${path#/tmp/}"
    mount --bind "$path" "$stage/${path#/tmp/}"
  done
  mount --move "$stage" /tmp
  exec bash -euo pipefail "$script"' bash "$script" "$stage" "${keep[@]}"
