#!/usr/bin/env bash
# Kit test (Kit.BatchMatchesCtest): lab-case batch, which runs a rung's cases in one process (./lab
# run, the GPU check), gives every case of the catalogue the verdict ctest gives it with a process
# per case (each through `lab-case run`, as the rung's ctest file declares them). Three rungs:
#   07_coarsening      the reference: every case passes (and the kit skips the GPU-only ones)
#   11_single_pass     host_crash_at_1856: the rung's runner dies of SIGSEGV in some cases; the judge
#                      must blame those alone and go on with the rest in a fresh runner
#   03_sequential      stride_never_changes: every kernel case hangs; after three cases stopped at the
#                      time limit the rest fail at once, in both
#   usage: batch_matches_ctest.sh LAB_CASE TESTS_DIR WORK_DIR
set -euo pipefail
rm -rf "$3" && mkdir -p "$3"
lab_case="$(realpath "$1")" tests="$(realpath "$2")" work="$(realpath "$3")"
export LAB_CPU_LAUNCH_SECONDS=2  # the hanging program's launches are stopped sooner

compare() {
  local rung="$1" exe="$tests/$2" dir="$work/$2"
  [[ -x "$exe" ]] || { echo "FAIL: $exe was not built"; exit 1; }
  mkdir -p "$dir/ctest"
  # ctest, a process per case: the very file the build declares a rung's tests with.
  "$lab_case" ctest --rung "$rung" --exe "$exe" --backend cpu --timeout 60 --out "$dir/ctest/tests.cmake"
  echo "include(\"$dir/ctest/tests.cmake\")" >"$dir/ctest/CTestTestfile.cmake"
  rm -f "$exe.hung"
  ctest --test-dir "$dir/ctest" -j 2 --output-junit "$dir/ctest.xml" >"$dir/ctest.log" 2>&1 || true
  rm -f "$exe.hung"
  "$lab_case" batch --rung "$rung" --exe "$exe" --backend cpu --timeout 60 --junit "$dir/batch.xml" >"$dir/batch.log" || true
  python3 - "$dir/ctest.xml" "$dir/batch.xml" "$rung" "$2" <<'EOF'
import sys, xml.etree.ElementTree as ET
def verdicts(path):
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status")
        out[case.get("name")] = {"run": "passed", "fail": "failed", "notrun": "skipped"}.get(status, status)
    return out
ctest, batch = verdicts(sys.argv[1]), verdicts(sys.argv[2])
rung, program = sys.argv[3], sys.argv[4]
differ = sorted(n for n in ctest.keys() | batch.keys() if ctest.get(n) != batch.get(n))
counts = {s: sum(1 for v in batch.values() if v == s) for s in ("passed", "failed", "skipped")}
print(f"{rung} ({program}): {len(ctest)} cases through ctest, {len(batch)} in one batch; "
      f"batch: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped; {len(differ)} differ")
for name in differ[:10]:
    print(f"  DIFFERS {name}: ctest {ctest.get(name, 'absent')}, batch {batch.get(name, 'absent')}")
if differ or not ctest:
    sys.exit(1)
EOF
}

compare 07_coarsening test_07_coarsening
compare 11_single_pass mutant_host_crash_at_1856
compare 03_sequential mutant_stride_never_changes
# The two programs that fail must have failed, in the way they were planted: the crash is the
# runner's (the judge's runner runs the kernel cases), said in the failed cases' messages.
grep -q "runner was killed by signal 11" "$work/mutant_host_crash_at_1856/batch.xml" || { echo "FAIL: the crash was not reported as one"; exit 1; }
grep -q "stopped at the time limit" "$work/mutant_stride_never_changes/batch.log" || { echo "FAIL: the hang was not reported as one"; exit 1; }
echo "lab-case batch gives every case ctest's verdict"
