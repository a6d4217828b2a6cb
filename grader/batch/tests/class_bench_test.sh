#!/usr/bin/env bash
# Kit.Grader.ClassBench: grader/batch/class_bench.sh grades a class of two and reports its figures
# (OUT/bench.json: each student graded, the wall time, a class of 200 projected).
#   class_bench_test.sh KIT BUILD WORK
# The students hand in every rung; the corpus's course rubric grades rungs 01 to 03 of them, so that
# the class takes a minute on two cores, not half an hour.
set -uo pipefail
kit="$1" build="$2" work="$3"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$kit/grader/batch/class_bench.sh" -n 2 -r "$kit/grader/corpus/course_01_to_03.toml" -b "$build" -o "$work" \
  >"$work/bench.log" 2>&1 || { rc=$?; cat "$work/bench.log"; fail "class_bench.sh exited with $rc"; }
[[ -f "$work/bench.json" ]] || { cat "$work/bench.log"; fail "no bench.json"; }
"${LAB_SYSTEM_PYTHON:-python3}" - "$work/bench.json" <<'PY' || fail "bench.json does not hold the class"
import json, sys
bench = json.load(open(sys.argv[1]))
print(json.dumps({k: v for k, v in bench.items() if not isinstance(v, (list, dict))}, indent=1))
assert bench.get("students") == 2, f"{bench.get('students')} students in bench.json, not 2"
assert bench.get("wall_seconds", 0) > 0, "no wall time"
assert bench.get("let_others_in") == [], f"gradings that let others in beside an old hold, with no GPU: {bench.get('let_others_in')}"
PY
# The report names a grading whose lock let the others' rungs run beside an old hold (it says so in
# its log, gpu_lock.cpp): a copy of the class with that line planted in one student's log.
cp -r "$work" "$work-planted" && first=$(ls "$work-planted/grades/students" | head -n 1)
echo "  the GPU is held by a rung that has run for more than 20 s (a kernel that never ends?): the other gradings' rungs run meanwhile" \
  >>"$work-planted/grades/students/$first/grade.log"
"${LAB_SYSTEM_PYTHON:-python3}" "$kit/grader/batch/class_bench_report.py" "$work-planted" 0 60 1 reference >"$work-planted/report.log" 2>&1 ||
  { cat "$work-planted/report.log"; fail "class_bench_report.py failed on the planted class"; }
"${LAB_SYSTEM_PYTHON:-python3}" -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))['let_others_in'] != [sys.argv[2]])" \
  "$work-planted/bench.json" "$first" || fail "the report does not name $first, whose lock let the others in"
rm -rf "$work-planted"
echo "class_bench.sh: a class of 2 graded and reported"
