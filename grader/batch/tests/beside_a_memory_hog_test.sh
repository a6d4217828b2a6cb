#!/usr/bin/env bash
# On a GPU (Kit.Grader.GradeAllBesideAMemoryHog): two workers share one GPU. The first grades a
# student whose rung 10 takes the rest of the GPU's memory and keeps it, never returning until the
# case limit (the corpus's hostile_holds_the_gpus_memory, which the integrity checks let through),
# three case limits in all (60 s). The second grades meanwhile a student whose rung 03 does not
# build (a corpus mistake: no case to run, nothing to time, so no wait for the GPU alone, which
# would wait for the hog), and then a reference handing in rungs 03, 07 and 09, whose cases so start
# while the hog holds the memory, each new runner needing a context's memory. (Beside the hog from
# the start, the reference's cases, a few seconds once CUDA's contexts were made quickly, could end
# before the hog took the memory: 2026-11-28, an H200, the test proved nothing. Behind a student
# whose rung failed its cases, they waited for the hog all the same: a grading with nothing to time
# took the GPU alone to time it, until lab-grade learned not to.) Then another reference comes
# after the hog. The hog earns nothing for its rung, with the reason. The
# reference beside it runs short of memory, so its rungs run again with the GPU alone (lab-grade
# says so: gpu_lock.hpp's run_again_alone) and earn every point; so does the one after the hog, on
# the GPU the hog left.
#   beside_a_memory_hog_test.sh LAB_GRADE KIT WORK
set -uo pipefail
grade="$1" kit="$2" work="$3"
class="$work/class" out="$work/out" rubric="$work/rubric.toml"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$kit/grader/batch/tests/make_class.sh" "$kit" "$class" hostile_holds_the_gpus_memory:a-hog mistake_03_latin1_typo:b-first \
  reference:c-beside reference:d-after >/dev/null || fail "could not make the class"
find "$class/c-beside/exercises" -name '*.cu' ! -name 03_sequential.cu ! -name 07_coarsening.cu ! -name 09_max.cu -delete
find "$class/d-after/exercises" -name '*.cu' ! -name 03_sequential.cu -delete
# The corpus's limits, with a longer case limit: the hog keeps the memory for three of them (60 s),
# long past the start of the reference's cases beside it; room on the host for their largest cases.
sed -e 's/^case_seconds = .*/case_seconds = 20/' -e 's/^memory_mib = .*/memory_mib = 16384/' \
  "$kit/grader/corpus/limits.toml" >"$rubric"

"$grade" grade-all "$class" --out "$out" --seed 0x40c --rubric "$rubric" --workers 2 --per-gpu 2 >"$work/run.log" 2>&1
code=$?
cat "$work/run.log"
[[ $code == 0 ]] || fail "grade-all exited with $code"
python3 - "$out" <<'PY' || fail "the grades above"
import json, sys
out = sys.argv[1]
def rungs(student):
    with open(f"{out}/students/{student}/instructor/grade.json") as f:
        return {r["id"]: r for r in json.load(f)["rungs"] if r["submitted"]}
bad = []
hog = rungs("a-hog")["10_any_length"]
if hog["score"] != 0:
    bad.append(f"the hog earned {hog['score']} for 10_any_length")
for student in ("c-beside", "d-after"):
    for id, r in rungs(student).items():
        if r["score"] != r["max"] or r["max"] == 0:
            failed = [c for c in r["cases"] if c["status"] == "failed"]
            bad.append(f"{student} {id}: {r['score']} of {r['max']}" + (f"; first failure: {failed[0]['message']}" if failed else ""))
for line in bad:
    print("FAILED:", line)
sys.exit(1 if bad else 0)
PY
log="$out/students/c-beside/grade.log"
grep -q "ran short of the GPU's memory" "$log" \
  || fail "c-beside never ran short of the GPU's memory beside the hog, so this run proves nothing (its log: $log):
$(grep -E 'GPU|again|sequential|coarsening|max' "$log" | head -n 20)"
grep -q "again, the GPU alone" "$log" || fail "c-beside's rungs did not run again with the GPU alone: $log"
echo "the hog: 0 for its rung; c-beside ran short of memory beside it, ran again alone and earned every point; d-after too"
