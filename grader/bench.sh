#!/usr/bin/env bash
# The grader's throughput: grades N copies of the reference solutions (all nine rungs built and
# every case of the rubric run: the most work a submission can cause) one after another, with the
# default rubric, and prints each time and the total.
#   grader/bench.sh [N] [BUILD]   (default 20 and build/cpu-solutions or build/cuda-solutions)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
count="${1:-20}"
build="${2:-}"
if [[ -z "$build" ]]; then
  for b in build/cuda-solutions build/cpu-solutions; do [[ -x $b/grader/lab-grade ]] && build=$b && break; done
fi
[[ -x "$build/grader/lab-grade" ]] || { echo "bench: no lab-grade built; run ./lab grade once first" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
SECONDS=0
for i in $(seq "$count"); do
  mkdir -p "$work/s$i/exercises"
  cp solutions/*.cu "$work/s$i/exercises/"
  start=$SECONDS
  line="$("$build/grader/lab-grade" grade "$work/s$i" --out "$work/r$i" | tail -n1)"
  echo "submission $i: $((SECONDS - start)) s: $line"
done
echo "graded $count submissions in $SECONDS s ($((SECONDS / count)) s each) with $build/grader/lab-grade"
