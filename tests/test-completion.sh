#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for memplan-cli (data/completions/memplan-cli): what a Tab
# offers after each kind of word. Prints TAP.
#   test-completion.sh COMPLETION_FILE MEMPLAN_CLI SOURCE_ROOT
shopt -s extglob
completion=$1 cli=$2 src=$3
PATH="$(dirname "$cli"):$PATH"
# shellcheck source=/dev/null
source "$completion"
cd "$src" || exit 1

n=0 failed=0
expect () { # "WORDS…" "EXPECTED REPLIES" (sorted, space-separated)
  local -a words
  read -r -a words <<< "$1"
  [[ $1 == *" " ]] && words+=("")
  COMP_WORDS=("${words[@]}")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _memplan_cli
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
  n=$((n + 1))
  if [[ $got == "$2" ]]; then
    echo "ok $n '$1' -> $2"
  else
    echo "not ok $n '$1' -> '$got', expected '$2'"
    failed=1
  fi
}

echo "1..11"
expect "memplan-cli be" "bench bench-optimal bench-order"
expect "memplan-cli help ex" "exec explain"
expect "memplan-cli plan -p gr" "greedy-by-breadth greedy-by-size"
expect "memplan-cli plan --planner=op" "optimal"
expect "memplan-cli plan --order p" "post-order"
expect "memplan-cli exec --schedule " "concurrent sequential"
expect "memplan-cli compare --format " "json markdown table"
expect "memplan-cli import -f " "csv json"
expect "memplan-cli gen mo" "mobilenet-v2"
expect "memplan-cli plan --max-p" "--max-parallel-ops"
expect "memplan-cli plan data/two" "data/two-towers.json"
exit $failed
