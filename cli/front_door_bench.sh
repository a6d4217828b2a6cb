#!/usr/bin/env bash
# The front door, timed: the README's two commands on a fresh copy of this kit, from nothing to
# their last line (the Debian packages already installed; ./lab's own build included), as a newcomer
# runs them, and ./lab run a second time (the build reused). The goals (issue 26): ./lab run within
# 6 min on a 2-core machine without a GPU and 3 min on one H100; ./lab selftest within 10 min on 2
# cores; a second ./lab run within 3 min on 2 cores.
#   cli/front_door_bench.sh [run] [again] [selftest]     (default: all three, in that order)
# Prints one line per command: its seconds and exit status, and where its output is. With OUT set,
# also writes them to $OUT/front_door.txt and the commands' output to $OUT/front_door_*.log.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(run again selftest)
work="$(mktemp -d)"
# A path as long as CI's: the kit must not care where it lives.
kit="$work/$(printf 'a-path-longer-than-a-hundred-characters/%.0s' 1 2 3)kit"
mkdir -p "$(dirname "$kit")"
# A clone of the checkout's commit; FRESH=copy (or a tree without git) copies its files instead, no
# builds (a machine the working tree was copied to, whose git history may lag behind its files).
if [[ "${FRESH:-clone}" != copy ]] && git -C "$here" rev-parse --git-dir >/dev/null 2>&1; then
  git clone -q "$here" "$kit"
else
  mkdir "$kit" && tar -C "$here" --exclude=./build --exclude=./.lab --exclude=./.exp --exclude=./.deps -cf - . | tar -C "$kit" -xf -
fi
logs="${OUT:-$work}"
gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)"
machine="$(nproc) cores, ${gpu:-no GPU}, $(uname -m)"
echo "front door on $machine; a fresh copy at $kit"
status=0
for step in "${steps[@]}"; do
  case "$step" in
    run|again) command=(./lab run) ;;
    selftest) command=(./lab selftest) ;;
    *) echo "front_door_bench: no step '$step' (run, again, selftest)"; exit 2 ;;
  esac
  log="$logs/front_door_$step.log"
  start=$(date +%s%N)
  (cd "$kit" && "${command[@]}") >"$log" 2>&1
  code=$?
  seconds=$(awk -v ns="$(( $(date +%s%N) - start ))" 'BEGIN { printf "%.1f", ns / 1e9 }')
  line=$(printf '%-9s %-15s %6s s  exit %d  (%s)' "$step" "${command[*]}" "$seconds" "$code" "$machine")
  echo "$line"
  [[ -n "${OUT:-}" ]] && echo "$line" >>"$OUT/front_door.txt"
  if [[ $code != 0 ]]; then
    status=1
    echo "  its last lines ($log):"
    tail -n 25 "$log" | sed 's/^/    /'
  fi
done
[[ -z "${OUT:-}" ]] && echo "(the commands' output: $logs/front_door_*.log)"
rm -rf "$kit"
exit $status
