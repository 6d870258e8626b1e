#!/usr/bin/env bash
# `npm run test:busy`: the whole test suite (`npm test`) with two CPU-bound processes beside it,
# as on a busy laptop or a shared CI machine. Tests assert behaviour, never speed, so it must
# pass all the same. Starts the two hogs by PID, prints the suite's time, stops exactly those
# two (also on Ctrl-C), and exits with npm test's status. Extra arguments go to `npm test --`.
set -uo pipefail
cd "$(dirname "$0")/.."
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in 1 2; do
  # A busy loop, bounded in time in case this script is killed without its trap.
  timeout 3600 sh -c 'while :; do :; done' &
  hogs+=("$!")
done
echo "test:busy: two CPU hogs running (PIDs ${hogs[*]}) beside npm test"
started=$(date +%s)
npm test -- "$@"
status=$?
echo "test:busy: npm test exited $status after $(( $(date +%s) - started )) s with two CPU hogs beside it"
exit "$status"
