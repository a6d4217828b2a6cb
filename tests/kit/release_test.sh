#!/usr/bin/env bash
# Kit.Release: ./lab release writes a students' repository that passes its own checks.
#   release_test.sh LAB_RELEASE KIT WORK
# The release of this kit (lab-release checks that no solution line is in it and that its ./lab test
# builds and fails every rung with its TODO list); then: nothing of the instructor's is in it, its
# history is one commit, the instructor's commands refuse to run there, and a planted leak (a
# solution line pasted into a handout of a copy of the kit) makes lab-release fail and name it.
set -uo pipefail
release="$1" kit="$2" work="$3"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
out="$work/students"
"$release" "$out" --root "$kit" || fail "lab-release failed on the kit itself"
for p in solutions grader/hidden_cases.json grader/corpus grader/rubric.toml grader/batch grader/ci tests/mutants.json \
         tests/kit .ci/gpu; do
  [[ -e "$out/$p" ]] && fail "the release has $p"
done
# exercises/.generated stays: ./lab status tells an untouched exercise from a started one by it.
for p in exercises/01_interleaved.cu exercises/.generated handouts/01_interleaved.md lab .ci/run .lab-release README.md; do
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

# The student's loop in the release, as a new student meets it (its exercises were built by the
# release's own check above): status, hints one at a time, rung 01 solved by hand and checked, a
# planted mistake with its likely cause, one case alone, watch, and bench without a GPU.
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
expect 0 "Hint 1 of" ./lab hint 01
expect 0 "Hint 2 of" ./lab hint 01
expect 0 "That is every hint" ./lab hint 01 --all
expect 2 "no command 'frobnicate'" ./lab frobnicate
python3 "$kit/tests/kit/solve_exercise.py" "$kit/solutions/01_interleaved.cu" "$out/exercises/01_interleaved.cu"
expect 0 "rung 01_interleaved is correct.*|Next: rung 02" ./lab check 01
expect 0 "^1 of $rungs rungs done" ./lab status --no-run
expect 0 "01_interleaved +correct" ./lab status --no-run
sed -i 's/partial\[tid\] = i < n ? in\[i\] : T(0);/partial[tid] = in[i];/' "$out/exercises/01_interleaved.cu"
expect 1 "Likely cause: .*past the end of the input.*TODO 01-padding" ./lab check 01
grep -q "Run it alone with ./lab check 01 --case" "$work/said.log" || fail "check names no command that runs the case alone"
grep -q "Not run yet: the [0-9]* larger cases" "$work/said.log" || fail "check did not say that the larger cases wait"
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

# A planted leak: a line of rung 03's solution pasted into its handout.
git clone -q "$kit" "$work/kit-copy" || fail "cannot clone the kit"
line=$(awk '/BEGIN TODO\(03-/{f=1;next} f && !/^ *\/\//{print; exit}' "$work/kit-copy/solutions/03_sequential.cu")
printf '\n```cpp\n%s\n```\n' "$line" >>"$work/kit-copy/handouts/03_sequential.md"
git -C "$work/kit-copy" -c user.name=t -c user.email=t@t commit -qam "a leak" || fail "cannot commit the leak"
"$release" "$work/leaky" --root "$work/kit-copy" --skip-build-check >"$work/leak.log" 2>&1
code=$?
cat "$work/leak.log"
[[ $code == 1 ]] && grep -q "handouts/03_sequential.md:.*a line of solutions/03_sequential.cu's solution" "$work/leak.log" \
  || fail "the planted leak was not caught (exit $code)"
echo "release: every check passed"
