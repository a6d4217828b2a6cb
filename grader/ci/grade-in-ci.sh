#!/usr/bin/env bash
# Grades one submission in a CI job and leaves the reports where the job's platform wants them.
# Every template of grader/ci/ calls this; see README.md.
#   grade-in-ci.sh KIT SUBMISSION OUT
# KIT: the instructor's kit (with solutions/ and the hidden cases); SUBMISSION: the student's
# checkout; OUT: the reports' folder. $LAB_RUBRIC picks a course rubric. On GitHub Actions the
# summary goes to the job's summary ($GITHUB_STEP_SUMMARY). Exits non-zero only when nothing was
# graded (the reports then say nothing); the points are in the reports, the failing cases in the
# JUnit report.
set -uo pipefail
kit="$1" submission="$2" out="$3"
# A report left from an earlier run must not pass for this one's.
for f in grade.json results.json prairielearn.json autolab.txt junit.xml summary.md gradebook.csv report.html; do
  rm -f "$out/$f"
done
args=(grade "$submission" --out "$out")
[[ -n "${LAB_RUBRIC:-}" ]] && args+=(--rubric "$LAB_RUBRIC")
"$kit/lab" "${args[@]}"
code=$?
if [[ ! -f "$out/grade.json" ]]; then
  echo "grade-in-ci: nothing was graded (./lab grade exited with $code); its messages are above" >&2
  [[ -n "${GITHUB_STEP_SUMMARY:-}" ]] && printf '## Not graded\n\n`./lab grade` exited with %s; the job log says why.\n' "$code" >>"$GITHUB_STEP_SUMMARY"
  exit 1
fi
[[ -n "${GITHUB_STEP_SUMMARY:-}" ]] && cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
exit 0
