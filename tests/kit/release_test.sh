#!/usr/bin/env bash
# Kit.Release: ./lab release writes a students' repository that passes its own checks.
#   release_test.sh LAB_RELEASE KIT WORK
# The release of this kit, every rung (lab-release checks that no answer line is in it and that its
# ./lab test, in a clone, builds and fails every rung with its TODO list); then: it left nothing but
# the release in OUT or beside it, nothing of the instructor's is in it, its history is one commit,
# the instructor's commands refuse to run there, and the student's loop works in it. Staged releases
# and planted answer lines: release_staged_test.sh (Kit.ReleaseStaged).
set -uo pipefail
release="$1" kit="$2" work="$3"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
out="$work/students"
"$release" "$out" --root "$kit" || fail "lab-release failed on the kit itself"
[[ "$(ls -A "$work")" == students ]] || fail "lab-release left more than the release beside it: $(ls -A "$work")"
[[ -e "$out/build" ]] && fail "lab-release left a build in the release"
[[ -z "$(git -C "$out" status --porcelain --ignored)" ]] || fail "the release holds files its commit does not: $(git -C "$out" status --porcelain --ignored)"
ls -d "$kit"/build/lab-release-check-* 2>/dev/null && fail "lab-release left its check's clone in the kit's build/"
for p in solutions grader/hidden_cases.json grader/corpus grader/rubric.toml grader/batch grader/ci tests/mutants.json \
         tests/kit .ci/gpu handouts/instructor_guide.md authoring/skeleton.cpp authoring/dictation.cpp; do
  [[ -e "$out/$p" ]] && fail "the release has $p"
done
# exercises/.generated stays: ./lab status tells an untouched exercise from a started one by it.
for p in exercises/01_interleaved.cu exercises/.generated exercises/.hints/01_interleaved.json handouts/01_interleaved.md lab \
         .ci/run .lab-release README.md; do
  [[ -e "$out/$p" ]] || fail "the release lacks $p"
done
[[ $(git -C "$out" rev-list --all | wc -l) == 1 ]] || fail "the release's history is not one commit"
grep -q 'TODO' "$out/exercises/01_interleaved.cu" || fail "rung 01 is not the exercise"
for command in "grade x" "grade-all x" "generate" "selftest" "run" "release y" "calibrate" "bench"; do
  # shellcheck disable=SC2086
  (cd "$out" && ./lab $command) >"$work/refused.log" 2>&1
  code=$?
  [[ $code == 2 ]] && grep -q "students' release of the kit" "$work/refused.log" \
    || fail "./lab $command in the release exited with $code: $(cat "$work/refused.log")"
done
(cd "$out" && ./lab list) >/dev/null 2>&1 || fail "./lab list does not work in the release"

# The student's loop in the release, as a new student meets it (the first ./lab status builds the
# exercises; the compiler cache has most of it from the release's own check): status, hints one
# level at a time, rung 01 solved by hand and checked, a planted mistake with its likely cause, one
# case alone, watch, and bench without a GPU.
expect() {  # expect CODE PATTERN COMMAND...: run it in the release; its exit code and output must match
  local code="$1" pattern="$2"; shift 2
  (cd "$out" && "$@") >"$work/said.log" 2>&1
  local got=$?
  [[ $got == "$code" ]] && grep -Eq -- "$pattern" "$work/said.log" \
    || fail "$* exited with $got (wanted $code) or did not say /$pattern/: $(tail -n 30 "$work/said.log")"
}
rungs=$(cd "$out" && ./lab list --ids | wc -l)
expect 0 "^0 of $rungs rungs done" ./lab status
expect 0 "01_interleaved +not started" ./lab status --no-run
expect 0 "TODO 01-shared-decl \(~1 line\), hint 1 of 3 \(the concept\)" ./lab hint 01
expect 0 "TODO 01-shared-decl \(~1 line\), hint 2 of 3 \(the shape\)" ./lab hint 01
expect 0 "hint 1 of 3.*" ./lab hint 01 --all
expect 0 "__shared__ T partial\[lab::kMaxBlockSize\];" ./lab hint 01-shared-decl --level 3
grep -q '"01-shared-decl": 3' "$out/exercises/hints_used.json" || fail "the hints seen are not in exercises/hints_used.json"
expect 2 "no command 'frobnicate'" ./lab frobnicate
python3 "$kit/tests/kit/solve_exercise.py" "$kit/solutions/01_interleaved.cu" "$out/exercises/01_interleaved.cu"
expect 0 "rung 01_interleaved is correct.*|Next: rung 02" ./lab check 01
expect 0 "^1 of $rungs rungs done" ./lab status --no-run
expect 0 "01_interleaved +correct" ./lab status --no-run
sed -i 's/partial\[tid\] = i < n ? in\[i\] : T(0);/partial[tid] = in[i];/' "$out/exercises/01_interleaved.cu"
expect 1 "Likely cause: .*past the end of the input.*TODO 01-padding" ./lab check 01
grep -q "Run it alone with ./lab check 01 --case" "$work/said.log" || fail "check names no command that runs the case alone"
grep -Eq "Not run yet: the [0-9]+ (of its [0-9]+ )?larger cases" "$work/said.log" || fail "check did not say that the larger cases wait"
expect 0 "01_interleaved +failing: Ex01/" ./lab status --no-run
expect 1 "int_n33_b64" ./lab check 01 --case int_n33_b64
expect 0 "Speed is measured on a GPU only" ./lab bench 01
# watch: a first check at once, another when the file is saved with the mistake fixed.
# (in a process group of its own, so that stopping it stops the check it started too)
setsid bash -c 'cd "$1" && exec ./lab watch 01 --poll' _ "$out" >"$work/watch.log" 2>&1 &
watcher=$!
for _ in $(seq 60); do grep -q "Watching exercises/01_interleaved.cu" "$work/watch.log" && break; sleep 1; done
sed -i 's/partial\[tid\] = in\[i\];/partial[tid] = i < n ? in[i] : T(0);/' "$out/exercises/01_interleaved.cu"
for _ in $(seq 60); do grep -q "^  [0-9]* passed" "$work/watch.log" && break; sleep 1; done
kill -- -"$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
grep -q "exercises/01_interleaved.cu changed" "$work/watch.log" && grep -q "^  [0-9]* passed" "$work/watch.log" \
  || fail "watch did not check again after the save: $(cat "$work/watch.log")"

echo "release: every check passed"
