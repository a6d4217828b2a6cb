#!/usr/bin/env bash
# Kit test (Kit.BatchMatchesCtest): a rung's suites program run on the whole rung in one process (./lab
# run, ./lab test, the GPU check) gives every case of the catalogue the verdict it gives with a
# process per case, as ctest runs it (the very file the program writes for ctest, --lab_ctest_file).
# Three programs:
#   test_07_coarsening           the reference: every case passes (and the kit skips the GPU-only ones)
#   mutant_host_crash_at_1856    (11) the rung's runner dies of SIGSEGV in some cases; the judge must
#                                blame those alone and go on with the rest in a fresh runner
#   mutant_stride_never_changes  (03) every kernel case hangs; after three cases stopped at the time
#                                limit the rest fail at once, in both (with a process per case, by
#                                the record the program keeps beside its runner)
#   usage: batch_matches_ctest.sh TEST_07 MUTANT_HOST_CRASH MUTANT_STRIDE_NEVER_CHANGES WORK_DIR
set -euo pipefail
rm -rf "$4" && mkdir -p "$4"
work="$(realpath "$4")"
export LAB_CPU_LAUNCH_SECONDS=2 LAB_CASE_SECONDS=48  # the hanging program's launches are stopped sooner

compare() {
  local exe="$1" name dir
  name="$(basename "$exe")" dir="$work/$(basename "$exe")"
  [[ -x "$exe" ]] || { echo "FAIL: $exe was not built"; exit 1; }
  mkdir -p "$dir/ctest"
  # ctest, a process per case: the very file the build declares a rung's tests with.
  "$exe" --lab_ctest_file="$dir/ctest/tests.cmake"
  echo "include(\"$dir/ctest/tests.cmake\")" >"$dir/ctest/CTestTestfile.cmake"
  rm -f "$exe-runner.hung"
  ctest --test-dir "$dir/ctest" -j 2 --output-junit "$dir/ctest.xml" >"$dir/ctest.log" 2>&1 || true
  rm -f "$exe-runner.hung"
  "$exe" --gtest_color=no --lab_junit="$dir/batch.xml" >"$dir/batch.log" 2>&1 || true
  python3 - "$dir/ctest.xml" "$dir/batch.xml" "$name" <<'PY'
import sys, xml.etree.ElementTree as ET
def verdicts(path):
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status")
        out[case.get("name")] = {"run": "passed", "fail": "failed", "notrun": "skipped"}.get(status, status)
    return out
ctest, batch = verdicts(sys.argv[1]), verdicts(sys.argv[2])
program = sys.argv[3]
differ = sorted(n for n in ctest.keys() | batch.keys() if ctest.get(n) != batch.get(n))
counts = {s: sum(1 for v in batch.values() if v == s) for s in ("passed", "failed", "skipped")}
print(f"{program}: {len(ctest)} cases through ctest, {len(batch)} in one run; "
      f"one run: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped; {len(differ)} differ")
for name in differ[:10]:
    print(f"  DIFFERS {name}: ctest {ctest.get(name, 'absent')}, one run {batch.get(name, 'absent')}")
if differ or not ctest:
    sys.exit(1)
PY
}

compare "$1"
compare "$2"
compare "$3"
# The two programs that fail must have failed, in the way they were planted: the crash is the
# runner's (the judge's runner runs the kernel cases), said in the failed cases' messages.
grep -q "runner was killed by signal 11" "$work/$(basename "$2")/batch.xml" || { echo "FAIL: the crash was not reported as one"; exit 1; }
grep -q "stopped at the time limit" "$work/$(basename "$3")/batch.xml" || { echo "FAIL: the hang was not reported as one"; exit 1; }
echo "a rung's program run on the whole rung gives every case ctest's verdict"
