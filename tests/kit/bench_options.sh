#!/usr/bin/env bash
# Kit.Bench.ChoosesRungsAndSizes: lab-bench --rungs times the rungs it names and no other (beside
# CUB and the CPU loop on a GPU), --sizes the sizes it names; a rung that does not exist, or an
# option that cannot go with another, is refused with exit status 2 and says why.
#   bench_options.sh LAB_BENCH WORK
set -uo pipefail
bench="$1" work="$2"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"

"$bench" --rungs 03,11_single_pass --sizes 10 >"$work/chosen" 2>"$work/chosen.err" ||
  fail "--rungs 03,11_single_pass --sizes 10 failed: $(cat "$work/chosen" "$work/chosen.err")"
for timed in 03_sequential 11_single_pass; do
  grep -q "$timed" "$work/chosen" || fail "$timed was named but not timed: $(cat "$work/chosen")"
done
for other in 01_interleaved 08_warp_shuffle 10_any_length 12_real_kernels; do
  grep -q "$other" "$work/chosen" && fail "$other was timed though --rungs did not name it: $(cat "$work/chosen")"
done
# On a GPU, the table has a column for 2^10 alone and CUB beside the rungs.
if grep -q '^| kernel |' "$work/chosen"; then
  grep -q '^| kernel | 2^10 |$' "$work/chosen" || fail "--sizes 10 gave other columns: $(grep '^| kernel |' "$work/chosen")"
  grep -q '^| cub |' "$work/chosen" || fail "no CUB line beside the rungs"
fi

refused() {  # refused WORDS ARGS...: exit status 2, and the message says WORDS
  local says="$1"; shift
  "$bench" "$@" >"$work/refused" 2>&1
  local status=$?
  [[ $status -eq 2 ]] || fail "lab-bench $* exited $status, not 2: $(cat "$work/refused")"
  grep -qF -- "$says" "$work/refused" || fail "lab-bench $* did not say '$says': $(cat "$work/refused")"
}
refused "no rung '14'" --rungs 14
refused "the rungs: 01_interleaved" --rungs 11,14
refused "--calibrate excludes --rungs" --rungs 11 --calibrate "$work/speed.json"
refused "--full excludes --sizes" --sizes 10 --full
refused "not in range" --sizes 40
[[ -e "$work/speed.json" ]] && fail "a refused --calibrate wrote $work/speed.json"
echo "lab-bench chose its rungs and sizes, and refused 5 bad command lines"
