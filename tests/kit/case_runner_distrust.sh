#!/usr/bin/env bash
# Kit test (Kit.CaseRunnerDistrustsItsProgram): lab-case takes a test's verdict from the results file
# the suites' program appends to, held against the kit's plan and against how the program ended
# (judge/case_runner.hpp). The program holds no student code now, so nothing a student writes can
# make it lie; this keeps that distrust honest against a broken program, with stand-ins that speak
# the results file's protocol (tests/support/main.cpp) and lie in each of its ways:
#   silent      exits 0 without reporting the test         -> failed, "without reporting this test"
#   own_skip    reports the test skipped for its own reason -> failed, "no reason to skip it here"
#   late_exit   reports it failed, then exits 0             -> failed, "contradicts its own result"
#   honest      reports it passed and exits 0               -> passed
#   usage: case_runner_distrust.sh LAB_CASE WORK_DIR
set -euo pipefail
lab_case="$1" work="$2"
rm -rf "$work" && mkdir -p "$work"
test_name='Ex03/Sum.MatchesReference/int_n33_b64'
stand_in() {  # stand_in NAME RESULT EXIT: a program that reports RESULT ("" for nothing) and exits EXIT
  cat >"$work/$1" <<SCRIPT
#!/usr/bin/env bash
if [[ -n "$2" ]]; then
  echo '{"event":"start","test":"$test_name"}' >>"\$LAB_RESULTS"
  echo '{"event":"end","test":"$test_name","result":"$2","message":"made up","sticky":false}' >>"\$LAB_RESULTS"
fi
exit $3
SCRIPT
  chmod +x "$work/$1"
}
verdict() {  # verdict NAME: lab-case's exit status on the stand-in NAME (0 passed, 1 failed, 77 skipped)
  local status=0
  "$lab_case" run --rung 03_sequential --exe "$work/$1" --backend cpu --test "$test_name" --timeout 30 \
    >"$work/$1.log" 2>&1 || status=$?
  echo "$status"
}
fail() { echo "FAIL: $*"; exit 1; }
stand_in silent "" 0
stand_in own_skip skipped 0
stand_in late_exit failed 0
stand_in honest passed 0
[[ $(verdict silent) == 1 ]] || fail "a program that reported nothing passed: $(cat "$work/silent.log")"
grep -q "without reporting this test" "$work/silent.log" || fail "no word of the unreported test: $(cat "$work/silent.log")"
[[ $(verdict own_skip) == 1 ]] || fail "a skip the kit did not give was taken: $(cat "$work/own_skip.log")"
grep -q "no reason to skip it here" "$work/own_skip.log" || fail "no word of the skip: $(cat "$work/own_skip.log")"
[[ $(verdict late_exit) == 1 ]] || fail "a failure followed by exit status 0 passed: $(cat "$work/late_exit.log")"
grep -q "contradicts its own result" "$work/late_exit.log" || fail "no word of the exit status: $(cat "$work/late_exit.log")"
[[ $(verdict honest) == 0 ]] || fail "an honest pass was not taken: $(cat "$work/honest.log")"
echo "lab-case distrusts its program: 3 lies failed, 1 honest pass taken"
