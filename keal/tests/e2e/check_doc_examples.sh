#!/usr/bin/env bash
# Keeps docs/keal.md honest: every ```keal block in it must pass `keal check`.
# An HTML comment on the line(s) before a block changes that:
#   <!-- keal: rejected -->                 the block must be rejected with a diagnostic
#   <!-- keal: target native -->            checked with --target native
#   <!-- keal: rejected, target native -->  both
#   <!-- keal: rejected, expect "may be null" -->
#                                           and the diagnostic must say that
#
#   check_doc_examples.sh KEAL DOC.md
set -euo pipefail

keal=${1:?usage: check_doc_examples.sh KEAL DOC.md}
doc=${2:?usage: check_doc_examples.sh KEAL DOC.md}
work=$(mktemp -d "${TMPDIR:-/tmp}/keal-doc-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Split the blocks into files: <n>.keal, with <n>.mode (accepted|rejected),
# <n>.target (any|pg|native|sqlite|mariadb) and <n>.line (where the block starts).
awk -v dir="$work" '
  /^<!-- keal:.*-->/ {
    mode = ($0 ~ /rejected/) ? "rejected" : "accepted"
    target = "any"
    if (match($0, /target (pg|native|sqlite|mariadb)/)) target = substr($0, RSTART + 7, RLENGTH - 7)
    expect = ""
    if (match($0, /expect "[^"]*"/)) expect = substr($0, RSTART + 8, RLENGTH - 9)
    next
  }
  /^```keal[[:space:]]*$/ && !inside {
    inside = 1; n++
    file = sprintf("%s/example%03d.keal", dir, n)
    printf "" > file
    print (mode == "" ? "accepted" : mode) > (dir "/" n ".mode")
    print (target == "" ? "any" : target) > (dir "/" n ".target")
    printf "%s", expect > (dir "/" n ".expect")
    print NR > (dir "/" n ".line")
    mode = ""; target = ""; expect = ""
    next
  }
  /^```[[:space:]]*$/ && inside { inside = 0; close(file); next }
  inside { print >> file; next }
  /^[^[:space:]]/ { mode = ""; target = ""; expect = "" }
' "$doc"

count=0
failed=0
for file in "$work"/example*.keal; do
  [ -e "$file" ] || break
  n=$(basename "$file" .keal); n=$((10#${n#example}))
  mode=$(cat "$work/$n.mode")
  target=$(cat "$work/$n.target")
  expect=$(cat "$work/$n.expect")
  line=$(cat "$work/$n.line")
  count=$((count + 1))
  args=(check "$file")
  [ "$target" != any ] && args+=(--target "$target")
  set +e
  output=$("$keal" "${args[@]}" 2>&1)
  status=$?
  set -e
  case "$mode" in
    accepted)
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
      elif [ -n "$expect" ] && ! grep -qF -- "$expect" <<<"$output"; then
        echo "FAIL: $doc:$line: the diagnostic does not say \"$expect\":"
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
