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
         tests/kit exercises/.generated .ci/gpu; do
  [[ -e "$out/$p" ]] && fail "the release has $p"
done
for p in exercises/01_interleaved.cu handouts/01_interleaved.md lab .ci/run .lab-release README.md; do
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
