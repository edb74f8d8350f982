#!/usr/bin/env bash
# Keeps docs/keal.md honest: every ```keal block in it must pass `keal check`;
# a block right after the line <!-- keal: rejected --> must be rejected with a
# diagnostic instead (the examples of compile errors). A block after
# <!-- keal: target native --> is checked with --target native.
#
#   check_doc_examples.sh KEAL DOC.md
set -euo pipefail

keal=${1:?usage: check_doc_examples.sh KEAL DOC.md}
doc=${2:?usage: check_doc_examples.sh KEAL DOC.md}
work=$(mktemp -d "${TMPDIR:-/tmp}/keal-doc-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Split the blocks into files: <n>.keal, with <n>.mode (accepted|rejected)
# and <n>.line (where the block starts in the document).
awk -v dir="$work" '
  /^<!-- keal: rejected -->/      { mode = "rejected"; next }
  /^<!-- keal: target native -->/ { mode = "native"; next }
  /^```keal[[:space:]]*$/ && !inside {
    inside = 1; n++
    file = sprintf("%s/example%03d.keal", dir, n)
    printf "" > file
    print (mode == "" ? "accepted" : mode) > (dir "/" n ".mode")
    print NR > (dir "/" n ".line")
    mode = ""
    next
  }
  /^```[[:space:]]*$/ && inside { inside = 0; close(file); next }
  inside { print >> file; next }
  /^[^[:space:]]/ && !/^<!--/ { mode = "" }
' "$doc"

count=0
failed=0
for file in "$work"/example*.keal; do
  [ -e "$file" ] || break
  n=$(basename "$file" .keal); n=$((10#${n#example}))
  mode=$(cat "$work/$n.mode")
  line=$(cat "$work/$n.line")
  count=$((count + 1))
  args=(check "$file")
  [ "$mode" = native ] && args+=(--target native)
  set +e
  output=$("$keal" "${args[@]}" 2>&1)
  status=$?
  set -e
  case "$mode" in
    accepted|native)
      if [ "$status" -ne 0 ]; then
        echo "FAIL: $doc:$line: example is rejected by keal check (exit $status):"
        echo "$output" | sed 's/^/    /'
        failed=$((failed + 1))
      fi ;;
    rejected)
      if [ "$status" -eq 0 ] || ! grep -q "error:" <<<"$output"; then
        echo "FAIL: $doc:$line: example marked rejected was not rejected with a diagnostic (exit $status):"
        echo "$output" | sed 's/^/    /'
        failed=$((failed + 1))
      fi ;;
  esac
  if [ "$status" -gt 1 ] && [ "$mode" = rejected ]; then
    # A crash is never a diagnostic (exit 1 is the compiler's error exit).
    echo "FAIL: $doc:$line: keal check exited with $status"
    failed=$((failed + 1))
  fi
done

if [ "$count" -eq 0 ]; then
  echo "FAIL: no \`\`\`keal examples found in $doc"
  exit 1
fi
echo "$count examples checked, $failed failed"
[ "$failed" -eq 0 ]
