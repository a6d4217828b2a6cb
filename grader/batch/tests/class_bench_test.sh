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
PY
echo "class_bench.sh: a class of 2 graded and reported"
