#!/usr/bin/env bash
# Kit.Grader.CiTemplates: every template of grader/ci/ graded a submission the way its platform
# would run it, and wrote what the platform reads.
#   ci_templates_test.sh KIT WORK
# Gradescope: the bundle (make-bundle.sh) unzipped into WORK/autograder/source, its setup.sh
# (installs, builds the grader in the bundle's own copy of the kit) and run_autograder against
# WORK/autograder/{source,submission,results}; results.json must match Gradescope's format (our
# schema) and the grade; a rubric that cannot be read still gives a valid results.json, with 0.
# PrairieLearn: grade.sh against WORK/grade/{student,tests,results}, the same two ways. GitHub
# Actions and GitLab CI: each job run by run_ci_yaml.py as its platform would.
set -uo pipefail
kit="$1" work="$2"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$kit/grader/batch/tests/make_class.sh" "$kit" "$work/class" mistake_03_loop_stops_early:m3 >/dev/null || fail "no submission"
submission="$work/class/m3"
schema() {  # schema FILE SCHEMA
  python3 - "$1" "$kit/grader/schemas/$2" <<'PY' || fail "$1 does not match $2"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
}
value() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }

echo "=== Gradescope"
bash "$kit/grader/ci/gradescope/make-bundle.sh" "$work/bundle.zip" || fail "make-bundle.sh"
ag="$work/autograder"
mkdir -p "$ag/source" "$ag/submission" "$ag/results"
python3 - "$work/bundle.zip" "$ag/source" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        path = z.extract(info, sys.argv[2])
        os.chmod(path, (info.external_attr >> 16) & 0o777 or 0o644)
PY
[[ -x "$ag/source/run_autograder" && -x "$ag/source/setup.sh" && -x "$ag/source/kit/lab" ]] || fail "the bundle lost the executable bits"
[[ -f "$ag/source/kit/solutions/03_sequential.cu" && -f "$ag/source/kit/grader/hidden_cases.json" ]] || fail "the bundle lacks the solutions or the hidden cases"
AUTOGRADER_ROOT="$ag" bash "$ag/source/setup.sh" || fail "setup.sh failed"
cp -r "$submission/." "$ag/submission/"
AUTOGRADER_ROOT="$ag" "$ag/source/run_autograder" || fail "run_autograder failed"
schema "$ag/results/results.json" gradescope.schema.json
score=$(value "$ag/results/results.json" "['score']") graded=$(value "$ag/results/report/grade.json" "['score']")
awk -v a="$score" -v b="$graded" 'BEGIN{exit !(a > 0 && (a - b) < 0.01 && (b - a) < 0.01)}' || fail "results.json's score $score, grade.json's $graded"
echo "Gradescope: results.json valid, score $score"
echo 'this is = not [toml' >"$ag/source/rubric.toml"
rm -rf "$ag/results" && mkdir -p "$ag/results"
AUTOGRADER_ROOT="$ag" "$ag/source/run_autograder"
schema "$ag/results/results.json" gradescope.schema.json
[[ $(value "$ag/results/results.json" "['score']") == 0 ]] && grep -q 'could not grade' "$ag/results/results.json" \
  || fail "an ungradable run's results.json: $(cat "$ag/results/results.json")"
rm "$ag/source/rubric.toml"
built_kit="$ag/source/kit"

echo "=== PrairieLearn"
pl="$work/grade"
mkdir -p "$pl/student" "$pl/tests" "$pl/results"
cp "$submission/exercises/03_sequential.cu" "$pl/student/"
PL_GRADE_ROOT="$pl" LAB_KIT="$built_kit" bash "$kit/grader/ci/prairielearn/grade.sh" || fail "grade.sh failed"
schema "$pl/results/results.json" prairielearn.schema.json
[[ $(value "$pl/results/results.json" "['gradable']") == True ]] || fail "PrairieLearn: not gradable"
awk -v a="$(value "$pl/results/results.json" "['score']")" 'BEGIN{exit !(a > 0 && a < 1)}' || fail "PrairieLearn's score"
echo 'this is = not [toml' >"$pl/tests/rubric.toml"
PL_GRADE_ROOT="$pl" LAB_KIT="$built_kit" bash "$kit/grader/ci/prairielearn/grade.sh"
schema "$pl/results/results.json" prairielearn.schema.json
[[ $(value "$pl/results/results.json" "['gradable']") == False ]] || fail "PrairieLearn: an ungradable run said gradable"
echo "PrairieLearn: results.json valid both ways"

echo "=== GitHub Actions"
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is missing (apt-get install python3-yaml)"
for job in gpu cpu; do
  python3 "$kit/grader/ci/tests/run_ci_yaml.py" github "$kit/grader/ci/github/grade.yml" "$job" "$work/github-$job" \
    --kit "$built_kit" --submission "$submission" || fail "GitHub job $job"
  grep -q '03_sequential' "$work/github-$job/step-summary.md" || fail "GitHub job $job wrote no job summary"
done
python3 - "$kit/grader/ci/github/grade.yml" <<'PY' || fail "the GitHub workflow's runners"
import sys, yaml
jobs = yaml.safe_load(open(sys.argv[1]))["jobs"]
assert "self-hosted" in jobs["gpu"]["runs-on"] and "cuda-reduction-gpu" in jobs["gpu"]["runs-on"], jobs["gpu"]["runs-on"]
assert jobs["cpu"]["runs-on"].startswith("ubuntu-"), jobs["cpu"]["runs-on"]
steps = [s.get("uses", "") for job in jobs.values() for s in job["steps"]]
assert not [u for u in steps if "classroom" in u.lower() or "autograding" in u.lower()], steps
PY

echo "=== GitLab CI"
for job in grade-gpu grade-cpu; do
  python3 "$kit/grader/ci/tests/run_ci_yaml.py" gitlab "$kit/grader/ci/gitlab/gitlab-ci.yml" "$job" "$work/gitlab-$job" \
    --kit "$built_kit" --submission "$submission" || fail "GitLab job $job"
done
echo "CI templates: every check passed"
