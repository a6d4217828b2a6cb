#!/usr/bin/env bash
# Kit test (Kit.JudgesAgree): a student's `./lab check` and `./lab run` (the rung's suites program,
# its runner run as it is) and the instructor's `./lab grade` (lab-grade, the runner in a sandbox)
# give every visible case of a kernel the same verdict. Both
# draw the visible cases' inputs from tests/cases.json's base seed (lab-grade --seed gives it), so
# they judge the same numbers. The kernels: the reference of 07, and planted mistakes of every kind
# (tests/mutants.json): wrong sums, a kernel that writes past its output, one that races without a
# barrier (the thread orders), an identity wrong only for negative inputs, a host crash in some
# cases, a row kernel, a driver rung's scheme, and two files that try to fool a judge (gtest's pass
# lines printed from a static object; exit(0) before any case ends), which run in the runner only.
# Where the grader refuses a file outright (its screen), no case is run there: the suites must then
# fail it too, and that is the stricter verdict standing.
#   usage: judges_agree.sh LAB_GRADE PROGRAMS_DIR KIT MUTANTS_DIR WORK_DIR
#     PROGRAMS_DIR: the build's bin/ (the suites programs); MUTANTS_DIR: the planted mistakes' files
set -euo pipefail
rm -rf "$5" && mkdir -p "$5"
lab_grade="$(realpath "$1")" programs="$(realpath "$2")" kit="$(realpath "$3")" mutants="$(realpath "$4")" work="$(realpath "$5")"
seed="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["base_seed"])' "$kit/tests/cases.json")"

compare() {
  local rung="$1" program="$2" mutant="${3:-}" dir="$work/$2"
  local exe="$programs/$program"
  [[ -x "$exe" ]] || { echo "FAIL: $exe was not built"; exit 1; }
  mkdir -p "$dir/submission/exercises"
  if [[ -n "$mutant" ]]; then
    cp "$mutants/$mutant/$rung.cu" "$dir/submission/exercises/$rung.cu"
  else
    cp "$kit/solutions/$rung.cu" "$dir/submission/exercises/$rung.cu"
  fi
  LAB_CASE_SECONDS=48 TMPDIR="$dir" "$exe" --gtest_color=no --lab_junit="$dir/batch.xml" >"$dir/batch.log" 2>&1 || true
  "$lab_grade" grade "$dir/submission" --out "$dir/report" --seed "$seed" --rubric "$kit/grader/corpus/rubric.toml" \
    >"$dir/grade.log" 2>&1 || { echo "FAIL: lab-grade could not grade $program (its output: $dir/grade.log)"; tail -5 "$dir/grade.log"; exit 1; }
  python3 - "$dir/batch.xml" "$dir/report/grade.json" "$rung" "$program" "$kit" <<'EOF'
import json, sys
batch_xml, grade_json, rung, program, kit = sys.argv[1:]
sys.path.insert(0, kit + "/grader/corpus")
sys.dont_write_bytecode = True  # (no __pycache__ in the kit's corpus folder)
import verdicts
batch = verdicts.suites(batch_xml)
graded = [r for r in json.load(open(grade_json))["rungs"] if r["id"] == rung][0]
grade = verdicts.grader(graded)
judged = verdicts.judged
both = sorted(k for k in batch.keys() & grade.keys() if judged(batch[k]) and judged(grade[k]))
differ = [k for k in both if batch[k] != grade[k]]
failed = sum(1 for k in both if batch[k] == "failed")
print(f"{rung} ({program}): {len(batch)} kernel cases in the suites, {len(grade)} visible in the grading; "
      f"{len(both)} judged by both, {failed} of them failed; {len(differ)} differ")
for k in differ[:10]:
    print(f"  DIFFERS {k}: the suites say {batch[k]}, the grader {grade[k]}")
if not grade:
    # Refused before any case ran: the suites must not pass it either.
    print(f"  the grader ran no case ({graded.get('unrun') or 'refused'}); the suites failed "
          f"{sum(1 for v in batch.values() if v == 'failed')} of {len(batch)}")
    sys.exit(0 if any(v == "failed" for v in batch.values()) else 1)
if differ or len(both) < 20:
    sys.exit(1)
expected_failures = program != "test_07_coarsening"
if expected_failures != (failed > 0):
    print(f"  FAIL: {program} should {'fail' if expected_failures else 'pass'} some case in both")
    sys.exit(1)
EOF
}

compare 07_coarsening test_07_coarsening
compare 03_sequential mutant_fake_pass fake_pass
compare 03_sequential mutant_early_exit early_exit
compare 04_first_add mutant_writes_past_output writes_past_output
compare 06_complete_unroll mutant_step_without_barrier step_without_barrier
compare 09_max mutant_zero_identity zero_identity
compare 10_any_length mutant_tail_not_cleared tail_not_cleared
compare 11_single_pass mutant_host_crash_at_1856 host_crash_at_1856
compare 12_real_kernels mutant_softmax_without_max softmax_without_max
echo "the suites and the grader give every visible case judged by both the same verdict"
