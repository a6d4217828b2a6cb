#!/usr/bin/env bash
# The student's loop, timed: from saving a one-line edit of a rung's exercise to the first verdict
# of ./lab check (the line that says how the small cases went), and to its last (every case of the
# rung has run: "rung NN is correct"), build included. Works on a fresh clone of this kit in a
# temporary folder, so the tree it is run from is left as it is.
#   cli/loop_bench.sh [RUNG] [ROUNDS]      (default: 01 and 5 rounds of a broken and a fixed edit)
# Prints each round's seconds and the medians, for a mistake (its first verdict says what failed,
# and the check ends there) and for its fix (the first verdict: the small cases pass; the last:
# every case passes). The goal: the first verdict within 3 s and every case within 15 s on a
# 2-core machine without a GPU.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rung="${1:-01}"
rounds="${2:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if git -C "$here" rev-parse --git-dir >/dev/null 2>&1; then
  git clone -q "$here" "$work/kit"
else  # a copy of the kit without its history (a machine the tree was copied to): its files, no builds
  mkdir "$work/kit" && tar -C "$here" --exclude=./build --exclude=./.lab -cf - . | tar -C "$work/kit" -xf -
fi
cd "$work/kit"
id="$(./lab list --ids | grep "^$rung" | head -n1)"
[[ -n "$id" ]] || { echo "loop_bench: no rung $rung"; exit 2; }
file="exercises/$id.cu"

# The student's solved file: the reference without its TODO regions' markers, instructions and stubs.
python3 tests/kit/solve_exercise.py "solutions/$id.cu" "$file"
cp "$file" "$work/solved.cu"
# The mistake: the first bound test on n in the file made always true, so that threads read past
# the end of the input (rung 01: partial[tid] = i < n ? ... becomes i < n + 64); in a file without
# one (rungs 12 and 13), the rung's first planted mistake of tests/mutants.json.
if grep -q 'i < n' "$file"; then
  sed '0,/i < n/s//i < n + 64/' "$work/solved.cu" >"$work/broken.cu"
else
  python3 - "$id" "$work/solved.cu" "$work/broken.cu" <<'PY' || exit 2
import json, sys
rung, solved, broken = sys.argv[1:4]
text = open(solved).read()
for m in json.load(open("tests/mutants.json"))["mutants"]:
    if m["rung"] == rung and m["replace"] in text:
        open(broken, "w").write(text.replace(m["replace"], m["with"], 1))
        print(f"the mistake: tests/mutants.json's {m['name']}")
        break
else:
    sys.exit(f"loop_bench: {solved} has no 'i < n' and no planted mistake of tests/mutants.json applies")
PY
fi

echo "setting up (configure and first build, untimed) ..."
./lab check "$rung" >"$work/setup.log" 2>&1 || { tail -n 30 "$work/setup.log"; exit 1; }

# Nanoseconds from the save to the first verdict line of ./lab check, and to its "is correct" line
# ("none" where it printed none: a check that failed has no last verdict).
verdicts() {
  local start=$1 line first=none last=none
  while IFS= read -r line; do
    if [[ "$first" == none && "$line" =~ ^\ \ [0-9]+\ (passed|of\ [0-9]+\ failed) ]]; then
      first=$(( $(date +%s%N) - start ))
    elif [[ "$line" =~ ^rung\ .*\ is\ correct: ]]; then
      last=$(( $(date +%s%N) - start ))
    fi
  done
  echo "$first $last"
}

measure() {  # measure SOURCE: one round
  local start
  sleep 1  # a fresh modification time
  start=$(date +%s%N)
  cp "$1" "$file"
  # Never from the compiler cache: the rounds alternate two files, which a student's new edit is not.
  { CCACHE_DISABLE=1 ./lab check "$rung" 2>&1 || true; } | verdicts "$start"
}

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1e9 }'; }

broken=() fixed=() whole=()
for ((r = 1; r <= rounds; r++)); do
  read -r b _ < <(measure "$work/broken.cu")
  read -r f w < <(measure "$work/solved.cu")
  [[ "$b" != none && "$f" != none && "$w" != none ]] || { echo "loop_bench: a check printed no verdict (or the fix failed)"; exit 1; }
  broken+=("$b"); fixed+=("$f"); whole+=("$w")
  awk -v r="$r" -v b="$b" -v f="$f" -v w="$w" \
    'BEGIN { printf "round %d: mistake %.2f s; fix %.2f s to the first verdict, %.2f s to every case\n", r, b / 1e9, f / 1e9, w / 1e9 }'
done
device="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 || true)"
echo "rung $id, $(nproc) cores, ${device:-no GPU (the CPU backend)}: from saving a one-line edit to the first verdict of ./lab check, build included"
echo "  a mistake: median $(printf '%s\n' "${broken[@]}" | median) s over $rounds rounds"
echo "  its fix:   median $(printf '%s\n' "${fixed[@]}" | median) s over $rounds rounds"
echo "  every case of the rung, after the fix: median $(printf '%s\n' "${whole[@]}" | median) s over $rounds rounds"
