#!/usr/bin/env bash
# Writes a tool's man page (section 1) with help2man from the tool's own
# --help and --version, plus a COMMANDS section with each subcommand's
# --help and the hand-written EXAMPLES (a help2man include file), then the
# gzip'd copy that is installed (cmake/SluiceManPages.cmake runs this).
#
#   man_page.sh TOOL_DIR TOOL NAME_LINE EXAMPLES.h2m OUT.1 [SUBCOMMAND ...]
#
# The tool runs by its bare name from PATH, so that CLI11's usage lines say
# "keal", not the build tree's path to it.
set -euo pipefail
tool_dir=$1 tool=$2 name_line=$3 examples=$4 out=$5
shift 5
export PATH="$tool_dir:$PATH"
include="$out.h2m"

# help text -> roff lines shown as written (.nf): backslashes and leading
# control characters escaped.
as_roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

{
  if [ $# -gt 0 ]; then
    echo "[COMMANDS]"
    for command in "$@"; do
      echo ".SS \"$tool $command\""
      echo ".nf"
      "$tool" "$command" --help | as_roff
      echo ".fi"
    done
  fi
  cat "$examples"
} >"$include"

help2man --no-info --section=1 --name="$name_line" --include="$include" --output="$out" "$tool"
# -n: no name or time stamp in the .gz, so that a rebuild gives the same bytes.
gzip -9 -n -c "$out" >"$out.gz"
rm -f "$include"
