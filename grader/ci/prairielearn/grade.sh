#!/usr/bin/env bash
# PrairieLearn's external grader entry point (grader/ci/README.md): grades the files the student
# submitted (/grade/student: the rung files, exercises/NN_name.cu or just NN_name.cu) with the kit
# installed in the image ($LAB_KIT, default /opt/cuda-reduction-kit; Dockerfile beside this file)
# and writes /grade/results/results.json. A rubric.toml in the question's tests/ folder
# (/grade/tests) is the course's rubric. When nothing could be graded, results.json says so.
set -uo pipefail
root="${PL_GRADE_ROOT:-/grade}"
kit="${LAB_KIT:-/opt/cuda-reduction-kit}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/submission/exercises" "$root/results"
rm -rf "$root/results/report" "$root/results/results.json"
# The rung files, wherever in /grade/student they are: only their names matter to the grader.
find "$root/student" -maxdepth 2 -type f -name '[0-9][0-9]_*.cu' -exec cp -t "$work/submission/exercises" {} +
[[ -f "$root/tests/rubric.toml" ]] && export LAB_RUBRIC="$root/tests/rubric.toml"
bash "$kit/grader/ci/grade-in-ci.sh" "$kit" "$work/submission" "$root/results/report" >"$root/results/grade.log" 2>&1
cat "$root/results/grade.log"
if [[ -f "$root/results/report/prairielearn.json" ]]; then
  cp "$root/results/report/prairielearn.json" "$root/results/results.json"
else
  python3 - "$root/results/grade.log" "$root/results/results.json" <<'PY'
import json, sys
log = open(sys.argv[1], errors="replace").read()[-4000:]
json.dump({"gradable": False, "score": 0, "tests": [], "output": log,
           "message": "The grader could not grade this submission; nothing was scored."}, open(sys.argv[2], "w"), indent=2)
PY
fi
