#!/usr/bin/env bash
# Kit.GenerateKeepsEdits: lab-generate never overwrites an exercise file somebody edited.
#   generate_keeps_edits.sh LAB_GENERATE KIT WORK
# In a copy of the kit: a solved rung 01 (the solution copied over the exercise) makes generate
# list it, write nothing and exit 1; a stale but untouched exercise is brought up to date; --force
# replaces the edited one.
set -uo pipefail
generate="$1" kit="$2" work="$3"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cp -r "$kit/rungs.json" "$kit/README.md" "$kit/solutions" "$kit/exercises" "$kit/handouts" "$work/"
mkdir -p "$work/tests" && cp "$kit/tests/speed.json" "$work/tests/"  # which scheme stands for a driver rung
"$generate" --root "$work" --check || fail "the kit's exercises are not what generate writes"
cp "$work/solutions/01_interleaved.cu" "$work/exercises/01_interleaved.cu"   # a student's solved rung
echo "// an edit to the solution" >>"$work/solutions/03_sequential.cu"          # the instructor's change
"$generate" --root "$work" >"$work/out.log" 2>&1
code=$?
cat "$work/out.log"
[[ $code == 1 ]] || fail "generate over an edited exercise exited with $code, not 1"
grep -q 'exercises/01_interleaved.cu' "$work/out.log" || fail "generate did not name the edited file"
cmp -s "$work/solutions/01_interleaved.cu" "$work/exercises/01_interleaved.cu" || fail "generate overwrote the solved rung 01"
grep -q 'an edit to the solution' "$work/exercises/03_sequential.cu" && fail "generate wrote something although it refused"
"$generate" --root "$work" --force >"$work/force.log" 2>&1 || fail "generate --force: $(cat "$work/force.log")"
cmp -s "$work/solutions/01_interleaved.cu" "$work/exercises/01_interleaved.cu" && fail "--force kept the edited file"
grep -q 'an edit to the solution' "$work/exercises/03_sequential.cu" || fail "--force did not bring rung 03 up to date"
"$generate" --root "$work" --check || fail "after --force the exercises are not up to date"
# Untouched but stale: updated without --force.
echo "// another edit" >>"$work/solutions/03_sequential.cu"
"$generate" --root "$work" >"$work/again.log" 2>&1 || fail "generate over untouched exercises: $(cat "$work/again.log")"
grep -q 'another edit' "$work/exercises/03_sequential.cu" || fail "an untouched, stale exercise was not updated"
echo "generate keeps edits: every check passed"
