#!/usr/bin/env bash
# Kit test (Kit.RunnerBesideTheProgram): a suites program does not run its kernel on a case itself;
# the runner beside it (PROGRAM-runner) does, and the judge's checker decides the case from what that
# runner hands back (tests/support/suite.cpp's Judging). Three copies of the reference program of 03:
#   alone              no runner beside it: every kernel case fails, saying the runner is missing
#   with a mutant's    the runner of a planted mistake (a loop without its barrier) beside the
#   runner             reference program: the case fails as that mistake does
#   with its own       the runner built with it: the case passes
#   usage: runner_beside_the_program.sh LAB_CASE PROGRAM ITS_RUNNER MUTANT_RUNNER WORK_DIR
set -euo pipefail
lab_case="$1" program="$2" runner="$3" mutant_runner="$4" work="$5"
rm -rf "$work" && mkdir -p "$work"
filter='*Sum.MatchesReference/int_n1856_b256'
run() {  # run NAME [RUNNER]: the copy of the program in WORK/NAME, with RUNNER beside it
  mkdir -p "$work/$1"
  cp "$program" "$work/$1/test_03_sequential"
  [[ -z "${2:-}" ]] || cp "$2" "$work/$1/test_03_sequential-runner"
  "$lab_case" batch --rung 03_sequential --exe "$work/$1/test_03_sequential" --backend cpu --timeout 60 \
    --filter "$filter" --junit "$work/$1/batch.xml" >"$work/$1/batch.log" 2>&1 && echo passed || echo failed
}
fail() { echo "FAIL: $*"; exit 1; }
[[ $(run alone) == failed ]] || fail "the program passed with no runner beside it"
grep -q "runner for this program, .* is missing" "$work/alone/batch.xml" || fail "no word of the missing runner: $(cat "$work/alone/batch.log")"
[[ $(run mutant "$mutant_runner") == failed ]] || fail "the reference program passed with a planted mistake's runner beside it"
grep -q "block results wrong" "$work/mutant/batch.xml" || fail "the mistake's wrong answers were not reported: $(cat "$work/mutant/batch.log")"
[[ $(run own "$runner") == passed ]] || fail "the reference program failed with its own runner: $(cat "$work/own/batch.log")"
echo "the kernel cases' verdicts come from the runner beside the program"
