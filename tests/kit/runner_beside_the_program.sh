#!/usr/bin/env bash
# Kit test (Kit.RunnerBesideTheProgram): a suites program does not run its kernel on a case itself;
# the runner beside it (PROGRAM-runner) does, and the judge's checker decides the case from what that
# runner hands back (tests/support/judging.cpp). Copies of the reference program of 03:
#   alone              no runner beside it: every kernel case fails, saying the runner is missing
#   with a mutant's    the runner of a planted mistake (a loop without its barrier) beside the
#   runner             reference program: the case fails as that mistake does, and nothing of the
#                      program's or its runner's is left in TMPDIR
#   with its own       the runner built with it: the case passes
#   killed             a runner whose kernel never ends, the program killed (SIGKILL) while it
#                      runs: the runner goes with it
#   usage: runner_beside_the_program.sh PROGRAM ITS_RUNNER MUTANT_RUNNER HANGING_RUNNER WORK_DIR
set -euo pipefail
program="$1" runner="$2" mutant_runner="$3" hanging_runner="$4" work="$5"
rm -rf "$work" && mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"
filter='*Sum.MatchesReference/int_n1856_b256'
run() {  # run NAME [RUNNER]: the copy of the program in WORK/NAME, with RUNNER beside it
  mkdir -p "$work/$1"
  cp "$program" "$work/$1/test_03_sequential"
  [[ -z "${2:-}" ]] || cp "$2" "$work/$1/test_03_sequential-runner"
  LAB_CASE_SECONDS=60 "$work/$1/test_03_sequential" --gtest_filter="$filter" --lab_junit="$work/$1/results.xml" \
    >"$work/$1/log" 2>&1 && echo passed || echo failed
}
fail() { echo "FAIL: $*"; exit 1; }
[[ $(run alone) == failed ]] || fail "the program passed with no runner beside it"
grep -q "runner for this program, .* is missing" "$work/alone/results.xml" || fail "no word of the missing runner: $(cat "$work/alone/log")"
[[ $(run mutant "$mutant_runner") == failed ]] || fail "the reference program passed with a planted mistake's runner beside it"
grep -q "block results wrong" "$work/mutant/results.xml" || fail "the mistake's wrong answers were not reported: $(cat "$work/mutant/log")"
left=$(find "$work/tmp" -mindepth 1 | head -n 5)
[[ -z "$left" ]] || fail "left behind in TMPDIR: $left"
[[ $(run own "$runner") == passed ]] || fail "the reference program failed with its own runner: $(cat "$work/own/log")"
mkdir -p "$work/killed"
cp "$program" "$work/killed/test_03_sequential"
cp "$hanging_runner" "$work/killed/test_03_sequential-runner"
LAB_CASE_SECONDS=100 "$work/killed/test_03_sequential" --gtest_filter="$filter" >"$work/killed/log" 2>&1 &
program_pid=$!
for _ in $(seq 100); do pgrep -f "$work/killed/test_03_sequential-runner" >/dev/null && break; sleep 0.1; done
pgrep -f "$work/killed/test_03_sequential-runner" >/dev/null || fail "the runner never started: $(cat "$work/killed/log")"
{ kill -KILL "$program_pid"; wait "$program_pid"; } 2>/dev/null || true
for _ in $(seq 50); do pgrep -f "$work/killed/test_03_sequential-runner" >/dev/null || break; sleep 0.1; done
if pgrep -f "$work/killed/test_03_sequential-runner" >/dev/null; then
  pkill -KILL -f "$work/killed/test_03_sequential-runner"
  fail "the runner outlived the program that started it"
fi
echo "the kernel cases' verdicts come from the runner beside the program"
