#!/usr/bin/env bash
# docs.benchmark_captures (issue 32): docs/benchmarks/ keeps one capture per
# report (a new capture replaces the old; git keeps the history), so:
#   - no numbered or labelled copies (NAME-2.json, NAME-quiet-3.json,
#     NAME.hC-loop.json, NAME-before-hB.json);
#   - every capture is read by a report or a script: no orphans;
#   - every capture a report links to or a script reads exists.
#   benchmark_captures.sh SOURCE_DIR
set -euo pipefail
root=${1:?usage: benchmark_captures.sh SOURCE_DIR}
bench=$root/docs/benchmarks
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

for f in "$bench"/*.json; do
  name=$(basename "$f")
  if [[ "$name" =~ -[0-9]+\.json$ || "$name" =~ -(quiet|before)[-.] || "$name" =~ -quiet\.json$ || "$name" =~ \.[^.]+\.json$ ]]; then
    fail "$name is a copy of a capture: keep one per report (git keeps the earlier ones)"
  fi
  { grep -qF "$name" "$bench"/*.md "$root"/docs/*.md || grep -rqF "$name" "$root/scripts/bench"; } ||
    fail "$name is read by no report or script"
done

# Links [x](NAME.json) in the reports, and docs/benchmarks/NAME.json in the
# benchmark scripts' code (their comments may name old captures).
while IFS= read -r name; do
  [ -f "$bench/$name" ] || fail "a report links to $name, which does not exist"
done < <(grep -ohE '\]\([A-Za-z0-9_.-]+\.json\)' "$bench"/*.md | sed -E 's/^\]\((.*)\)$/\1/' | sort -u)
while IFS= read -r name; do
  [ -f "$bench/$name" ] || fail "a benchmark script reads $name, which does not exist"
done < <(grep -rvhE '^\s*#' "$root/scripts/bench" | grep -oE '(docs/benchmarks/|benchmarks/)?[A-Za-z0-9_-]+-(capture|samples)[A-Za-z0-9_.-]*\.json' |
         sed -E 's|.*/||' | sort -u)

[ $failed = 0 ] && echo "ok: one capture per report in $bench"
exit $failed
