#!/usr/bin/env bash
# Kit.ReleaseStaged: a release through rung NN holds rungs 01 to NN and no answer line of their TODOs;
# a later release adds the next rungs as one commit, and a student's git pull keeps their edits.
#   release_staged_test.sh LAB_RELEASE KIT WORK
# Without the build check (Kit.Release builds a whole release). The answer lines are found twice:
# by lab-release, and here, independently, from the hints' code level of every released TODO (each
# line of four characters or more that no released exercise of its rung or an earlier one shows).
# Planted answer lines (one in a released handout, one in a released skeleton) make lab-release fail
# and name them.
set -uo pipefail
release="$1" kit="$2" work="$3"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
out="$work/release"

# No answer line of rungs 01 to THROUGH in OUT, but in exercises/.hints (base64, as asked).
no_answers() {  # no_answers OUT THROUGH
  python3 - "$1" "$2" <<'PY' || fail "an answer line of rungs 01 to $2 is in $1"
import base64, json, os, sys
out, through = sys.argv[1], sys.argv[2]
hints = sorted(f for f in os.listdir(os.path.join(out, 'exercises/.hints')))
assert [h[:2] for h in hints] == ['%02d' % k for k in range(1, int(through) + 1)], hints
answers, shown = {}, set()
for h in hints:
    rung = h[:-5]
    shown |= {l.strip() for l in open(os.path.join(out, 'exercises', rung + '.cu'))}
    for todo in json.load(open(os.path.join(out, 'exercises/.hints', h)))['todos']:
        for line in base64.b64decode(todo['code']).decode().splitlines():
            if len(line.strip()) >= 4 and not line.strip().startswith('#') and line.strip() not in shown: answers.setdefault(line.strip(), todo['todo'])
found = 0
for folder, dirs, files in os.walk(out):
    dirs[:] = [d for d in dirs if d != '.git']
    for f in files:
        path = os.path.join(folder, f)
        for number, line in enumerate(open(path, errors='replace'), 1):
            if line.strip() in answers:
                print('%s:%d: an answer line of %s' % (os.path.relpath(path, out), number, answers[line.strip()])); found += 1
print('%d answer lines of rungs 01 to %s, none in the release' % (len(answers), through) if not found else '')
sys.exit(1 if found or len(answers) < 10 else 0)
PY
}

# 1. Through 05: rungs 01 to 05 only, everywhere.
"$release" "$out" --through 05 --root "$kit" --skip-build-check >"$work/05.log" 2>&1 || fail "release through 05: $(cat "$work/05.log")"
[[ "$(ls -A "$work")" == "05.log
release" ]] || fail "lab-release left more than the release beside it: $(ls -A "$work")"
[[ $(ls "$out/exercises" | tr '\n' ' ') == "01_interleaved.cu 02_strided_index.cu 03_sequential.cu 04_first_add.cu 05_unroll_last_warp.cu " ]] \
  || fail "exercises of the release through 05: $(ls "$out/exercises")"
ls "$out"/handouts/0[6-9]_* "$out"/handouts/1[0-9]_* "$out"/handouts/figures/0[6-9]_* 2>/dev/null && fail "a later rung's handout is released"
[[ -e "$out/handouts/instructor_guide.md" ]] && fail "the instructor guide is released"
python3 -c "import json,sys; r=[x['id'] for x in json.load(open(sys.argv[1]))['rungs']]; sys.exit(r != ['01_interleaved','02_strided_index','03_sequential','04_first_add','05_unroll_last_warp'])" \
  "$out/rungs.json" || fail "rungs.json of the release through 05 is not rungs 01 to 05"
[[ $(grep -vc '^#' "$out/exercises/.generated") == 5 ]] || fail "exercises/.generated names other rungs than 01 to 05"
grep -q '"through": "05"' "$out/.lab-release" || fail ".lab-release does not say the release goes through 05"
last=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['rungs'][-1]['id'][:2])" "$kit/rungs.json")
grep -q "Rungs 06 to $last come later" "$out/README.md" || fail "the student README does not say rungs 06 to $last come later"
no_answers "$out" 05
[[ -x "$out/lab" && -x "$out/.ci/run" ]] || fail "./lab or .ci/run is not executable in the release"
# Every link of every page of the release leads to a file of the release (not to a later rung's
# handout, nor to the instructor guide); a later rung's name stays, as text.
python3 - "$out" <<'PY' || fail "a page of the release through 05 links to what the release lacks"
import os, re, sys
out = sys.argv[1]
dead = []
for folder, dirs, files in os.walk(out):
    dirs[:] = [d for d in dirs if d != '.git']
    for f in files:
        if not f.endswith('.md'):
            continue
        page = os.path.join(folder, f)
        for target in re.findall(r'\]\(([^)\s]+)\)', open(page).read()):
            target = target.split('#')[0]
            if target and '://' not in target and not target.startswith('mailto:') \
                    and not os.path.exists(os.path.normpath(os.path.join(folder, target))):
                dead.append('%s: %s' % (os.path.relpath(page, out), target))
print('\n'.join(dead))
sys.exit(1 if dead else 0)
PY
grep -q '08_warp_shuffle' "$out/handouts/overview.md" || fail "handouts/overview.md no longer names the later rungs"
# The answers that later skeletons used to carry are in no released file: 05's warp step.
grep -rn --exclude-dir=.git -F 'const T other = partial[tid + offset];' "$out" && fail "05's warp step is in the release"

# 2. A student clones it, edits rung 03 and records a hint; the release adds rungs 06 to 09.
git clone -q "$out" "$work/student" || fail "cannot clone the release"
python3 "$kit/tests/kit/solve_exercise.py" "$kit/solutions/03_sequential.cu" "$work/student/exercises/03_sequential.cu"
cp "$work/student/exercises/03_sequential.cu" "$work/03_as_edited.cu"
printf '{"levels": {"03-loop": 2}}\n' >"$work/student/exercises/hints_used.json"
git -C "$work/student" add -A && git -C "$work/student" -c user.name=s -c user.email=s@s commit -qm "rung 03" || fail "cannot commit"
"$release" "$out" --through 03 --root "$kit" --skip-build-check >"$work/back.log" 2>&1
[[ $? == 2 ]] && grep -q "holds rungs 01 to 05 already" "$work/back.log" || fail "a release back to 03 was not refused: $(cat "$work/back.log")"
echo "stray" >"$out/stray.txt"
"$release" "$out" --through 09 --root "$kit" --skip-build-check >"$work/dirty.log" 2>&1
[[ $? == 2 ]] && grep -q "changes git has not committed" "$work/dirty.log" || fail "a release over uncommitted changes was not refused"
rm "$out/stray.txt"
"$release" "$out" --through 09 --root "$kit" --skip-build-check >"$work/09.log" 2>&1 || fail "release through 09: $(cat "$work/09.log")"
[[ $(git -C "$out" rev-list --count HEAD) == 2 ]] || fail "the rungs 06 to 09 are not one more commit"
changed=$(git -C "$out" diff --name-only HEAD~1 HEAD)
grep -E '^exercises/0[1-5]_|hints_used' <<<"$changed" && fail "the new commit changes a file students edit"
grep -q '^exercises/09_max.cu$' <<<"$changed" || fail "the new commit lacks rung 09: $changed"
ls "$out"/exercises/1[0-2]_* 2>/dev/null && fail "the release through 09 has later rungs"
no_answers "$out" 09
git -C "$work/student" pull -q --no-rebase --no-edit >"$work/pull.log" 2>&1 || fail "the student's pull failed: $(cat "$work/pull.log")"
cmp -s "$work/03_as_edited.cu" "$work/student/exercises/03_sequential.cu" || fail "the pull changed the student's rung 03"
grep -q '"03-loop": 2' "$work/student/exercises/hints_used.json" || fail "the pull changed the student's record of hints"
[[ -e "$work/student/exercises/09_max.cu" && -e "$work/student/handouts/09_max.md" ]] || fail "the pull did not bring rung 09"
[[ -z "$(git -C "$work/student" status --porcelain)" ]] || fail "the pull left conflicts: $(git -C "$work/student" status --porcelain)"

# 3. Planted answer lines in a copy of the kit: one of 05's in its handout, one of 01's in rung 03's
# skeleton. lab-release must fail and name both.
git clone -q "$kit" "$work/kit-copy" || fail "cannot clone the kit"
printf '\n```cpp\n        const T other = partial[tid + offset];\n```\n' >>"$work/kit-copy/handouts/05_unroll_last_warp.md"
sed -i 's|^    // TODO(03-loop|    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;\n&|' "$work/kit-copy/exercises/03_sequential.cu"
git -C "$work/kit-copy" -c user.name=t -c user.email=t@t commit -qam "two answers" || fail "cannot commit the planted answers"
"$release" "$work/leaky" --through 05 --root "$work/kit-copy" --skip-build-check >"$work/leak.log" 2>&1
code=$?
cat "$work/leak.log"
[[ $code == 1 ]] || fail "the planted answer lines were not caught (exit $code)"
grep -q "handouts/05_unroll_last_warp.md:[0-9]*: an answer line of TODO 05-warp-unroll (rung 05)" "$work/leak.log" \
  || fail "the answer line in handout 05 was not named"
grep -q "exercises/03_sequential.cu:[0-9]*: an answer line of TODO 01-padding (rung 01)" "$work/leak.log" \
  || fail "rung 01's answer in rung 03's skeleton was not named"
echo "staged releases: every check passed"
