#!/usr/bin/env bash
# readme.from_tmp_copy (issue 32): run_readme.sh works for a checkout under
# /tmp. It used to mount a tmpfs over /tmp, which hid such a checkout and the
# script it had just written there. A copy of run_readme.sh under /tmp runs a
# README of two blocks: one reads a file of the checkout, the other writes a
# file in /tmp, which must land in the private /tmp, not the real one.
#
#   from_tmp_copy.sh     (as root: run_readme.sh needs a mount namespace)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
copy=$(mktemp -d /tmp/sluice-readme-copy.XXXXXX)
trap 'rm -rf "$copy"' EXIT
mkdir -p "$copy/tests/readme" "$copy/build"
cp "$here/run_readme.sh" "$copy/tests/readme/"
marker=readme-copy-marker-${copy##*.}
echo "the checkout's own file" >"$copy/checkout-file"
cat >"$copy/README.md" <<README
# A README under /tmp

\`\`\`sh
grep -q "the checkout's own file" checkout-file
test "\$(pwd -P)" = "$(cd "$copy" && pwd -P)"
\`\`\`

\`\`\`sh
echo private >/tmp/$marker
test -f /tmp/$marker
\`\`\`
README

status=0
"$copy/tests/readme/run_readme.sh" "$copy/build" >"$copy/out" 2>&1 || status=$?
if [ $status != 0 ]; then
  cat "$copy/out" >&2
  echo "FAIL: run_readme.sh from a copy under /tmp exited $status" >&2
  exit 1
fi
grep -q "running 2 blocks of $copy/README.md" "$copy/out" || { cat "$copy/out" >&2; echo "FAIL: not 2 blocks" >&2; exit 1; }
if [ -e "/tmp/$marker" ]; then
  rm -f "/tmp/$marker"
  echo "FAIL: the README's /tmp was the real /tmp" >&2
  exit 1
fi
echo "ok: run_readme.sh ran both blocks from $copy, with a private /tmp"
