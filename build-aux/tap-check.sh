# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the install checks: check NAME COMMAND… runs the command and
# prints one TAP line (its output as comments when it fails).
n=0 failed=0
check () {
  name=$1; shift
  n=$((n + 1))
  if out=$("$@" 2>&1); then
    echo "ok $n $name"
  else
    echo "not ok $n $name"
    printf '%s\n' "$out" | sed 's/^/# /'
    failed=1
  fi
}
