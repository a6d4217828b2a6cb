#!/usr/bin/env bash
# Kit.Grader.GradeAll: grade-all over a class made from the corpus, on this machine.
#   grade_all_test.sh LAB_GRADE_ALL KIT WORK
# Checks: a second grade-all on the same output while one runs is refused; one killed with SIGKILL
# takes its grading with it and the next run goes on; an interrupted run keeps what it finished and the next run goes on from there; a broken
# submission is reported, not fatal, and tried again; a changed submission is graded again; OUT
# refuses another seed without --force; --force grades again; a CSV roster; the gradebook and the
# class summary hold what the grades say; a changed submission's unchanged rungs keep their grades;
# two workers grade the class as one does. WORK/out is what the Slurm test compares with.
set -uo pipefail
grade="$1" kit="$2" work="$3"
class="$work/class" out="$work/out" rubric="$work/rubric.toml"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$kit/grader/batch/tests/make_class.sh" "$kit" "$class" reference:ref-1 mistake_03_loop_stops_early:m3.tar.gz \
  cheat_prints_skipped:cheat hostile_kills_the_grader:hostile >/dev/null || fail "could not make the class"
# Every submission of the class is about rung 03: the reference keeps that rung alone, and the rubric
# (the corpus's, here and in the Slurm test) gives points for it alone, with no sanitizer category.
# Grading all twelve rungs of the reference took 40 s of each test on 2 cores and told grade-all nothing more.
find "$class/ref-1/exercises" -name '*.cu' ! -name 03_sequential.cu -delete
{
  awk '/^\[/ { section = $0 } section == "[sanitizer]" && /^points *=/ { print "points = 0.0"; next } { print }' \
    "$kit/grader/corpus/rubric.toml"
  for id in $(grep -o '"id": "[0-9][0-9]_[a-z0-9_]*"' "$kit/rungs.json" | cut -d'"' -f4); do
    [[ $id == 03_sequential ]] || printf '\n[rungs.%s]\nvisible = 0.0\nhidden = 0.0\nspeed = 0.0\n' "$id"
  done
} >"$rubric"
echo "not a zip" >"$class/broken.zip"
echo "notes" >"$class/notes.txt"

# 1. Interrupted once the first grade is in: exit 130, that grade kept, the gradebook written.
"$grade" grade-all "$class" --out "$out" --seed 0x5eed --rubric "$rubric" >"$work/run1.log" 2>&1 &
pid=$!
# A failure below must not leave it grading into the next run's folder.
trap 'kill -CONT "$pid" 2>/dev/null; kill -INT "$pid" 2>/dev/null' EXIT
for _ in $(seq 600); do
  compgen -G "$out/students/[a-z]*/grade.json" >/dev/null && break
  sleep 0.5
done
# A second grade-all on the same class and output while the first runs: refused at once (exit 2,
# saying which process holds it), and nothing of the first's is touched (class.json, its gradings;
# the first is held still meanwhile, so that what changes can only be the second's doing).
kill -STOP "$pid"
before=$(cd "$out" && find . -path ./students -prune -o -type f -print | sort | xargs md5sum; ls -a students)
"$grade" grade-all "$class" --out "$out" --rubric "$rubric" >"$work/second.log" 2>&1
code=$?
[[ $code == 2 ]] && grep -q "another grade-all is grading into .*(process $pid on " "$work/second.log" \
  || fail "a second grade-all on the same output exited with $code: $(cat "$work/second.log")"
[[ "$(cd "$out" && find . -path ./students -prune -o -type f -print | sort | xargs md5sum; ls -a students)" == "$before" ]] \
  || fail "the refused second grade-all changed $out"
kill -CONT "$pid"
kill -INT "$pid"
wait "$pid"
code=$?
trap - EXIT
cat "$work/run1.log"
[[ $code == 130 ]] || fail "an interrupted grade-all exited with $code, not 130"
grep -q "ignored notes.txt" "$work/run1.log" || fail "notes.txt was not reported as ignored"
kept=$(grep -c ',graded,' "$out/gradebook.csv")
[[ $kept -ge 1 && $kept -lt 4 ]] || fail "after the interrupt the gradebook has $kept graded rows (expected 1 to 3)"
grep -q 'not graded yet' "$out/gradebook.csv" || fail "the gradebook does not say who is not graded yet"
compgen -G "$out/students/.*" >/dev/null && echo "(a partial grading is left; the next run removes it)"

# 2. The same command again goes on where it stopped; the broken archive is reported, not fatal.
"$grade" grade-all "$class" --out "$out" --rubric "$rubric" >"$work/run2.log" 2>&1
code=$?
cat "$work/run2.log"
[[ $code == 1 ]] || fail "grade-all with a broken submission exited with $code, not 1"
grep -q "$kept graded already" "$work/run2.log" || fail "the second run did not skip the $kept graded already"
compgen -G "$out/students/.*" >/dev/null && fail "a partial grading was left in $out/students"
book="$out/gradebook.csv"
# One column per rung the rubric assigns: 03 alone (a rung it gives no points is in no report).
rung_columns=03_sequential
[[ $(head -1 "$book") == "student,status,total,max,$rung_columns,visible,hidden,speed,sanitizer,held,late_penalty,seed,host,device" ]] \
  || fail "the gradebook's header is $(head -1 "$book")"
[[ $(wc -l <"$book") == 6 ]] || fail "the gradebook has $(wc -l <"$book") lines, not 6"
row() { grep "^$1," "$book"; }
field() { row "$1" | awk -F, -v n="$2" '{print $n}'; }
[[ $(field ref-1 2) == graded && $(field ref-1 3) == "$(field ref-1 4)" ]] || fail "the reference did not get every point: $(row ref-1)"
for s in m3 cheat hostile; do
  [[ $(field $s 2) == graded ]] || fail "$s was not graded: $(row $s)"
  awk -v a="$(field $s 3)" -v b="$(field $s 4)" 'BEGIN{exit !(a < b)}' || fail "$s got every point: $(row $s)"
done
row broken | grep -q 'not graded: lab-grade exited with 2 (lab-grade: cannot open the archive' || fail "broken: $(row broken)"
[[ -f "$out/not-graded/broken/grade.log" ]] || fail "the broken submission's log was not kept"
for s in ref-1 m3 cheat hostile; do
  for f in grade.json instructor/grade.json instructor/report.html summary.md junit.xml results.json report.html grade.log batch.json; do
    [[ -f "$out/students/$s/$f" ]] || fail "$out/students/$s/$f is missing"
  done
done
# Rung 03: four handed it in, one correct (25% of them, 25% of the class), none timed (the rubric
# gives speed nothing), the mean of their points from the gradebook (m3's depend on the cases this
# machine runs: 2.04 on the CPU backend, 2.02 on an H200); rung 01, which the rubric gives nothing,
# has no row.
mean03=$(for s in ref-1 m3 cheat hostile; do field $s 5; done | awk '{ t += $1 } END { printf "%.2f", t / 4 }')
grep -qF "| 03_sequential | 4 | 1 | not timed | 25% | 25% | $mean03 / 8.00 |" "$out/class-summary.md" \
  && ! grep -q '| 01_interleaved |' "$out/class-summary.md" \
  || fail "the class summary's rung table: $(grep -E '03_seq|01_inter' "$out/class-summary.md")"
grep -q '^| 90-100% | 1 | # |' "$out/class-summary.md" || fail "the histogram: $(grep 90-100 "$out/class-summary.md")"
grep -q '<svg' "$out/class-summary.html" && grep -q 'students/ref-1/report.html' "$out/class-summary.html" \
  || fail "the HTML class summary has no histogram or no links to the reports"
grep -q '^- broken: lab-grade exited with 2' "$out/class-summary.md" || fail "the class summary does not list the broken submission"
cp "$book" "$work/gradebook-local.csv"
# class-report writes the same gradebook again from the grades alone.
cp "$out/class-summary.md" "$work/summary-before.md"
"$grade" class-report "$out" >"$work/report.log" 2>&1 || fail "class-report: $(cat "$work/report.log")"
cmp -s "$book" "$work/gradebook-local.csv" && cmp -s "$out/class-summary.md" "$work/summary-before.md" \
  || fail "class-report wrote another gradebook or summary than grade-all did"
# The similarity report: no two of this class alike beyond the kit's own code. A copy of OUT with
# one more student, the cheat's file with its names changed: that pair is listed, and only it.
grep -q '^| 03_sequential | 4 | 0 |' "$out/similarity.md" || fail "the similarity report: $(grep 03_seq "$out/similarity.md")"
rm -rf "$work/similar" && cp -r "$out" "$work/similar" && cp -r "$out/students/cheat" "$work/similar/students/copier"
sed -i 's/Announce/Shout/g' "$work/similar/students/copier/graded/03_sequential.cu"
/usr/bin/python3 - "$work/similar/class.json" <<'PY' || fail "could not add the copier to class.json"
import json, sys
state = json.load(open(sys.argv[1]))
cheat = next(s for s in state["students"] if s["id"] == "cheat")
state["students"].append(dict(cheat, id="copier"))
json.dump(state, open(sys.argv[1], "w"))
PY
"$grade" similarity "$work/similar" >"$work/similar.log" 2>&1 || fail "lab-grade-all similarity: $(cat "$work/similar.log")"
grep -q 'similarity: 5 graded students compared; 1 pairs listed' "$work/similar.log" \
  && grep -q '^### cheat and copier: ' "$work/similar/similarity.md" \
  || fail "the copied file was not listed: $(cat "$work/similar.log"; grep -A3 '^## ' "$work/similar/similarity.md")"

# 3. Again: nothing graded twice, only the broken one tried again.
"$grade" grade-all "$class" --out "$out" --rubric "$rubric" >"$work/run3.log" 2>&1
grep -q '4 graded already, 1 to grade here' "$work/run3.log" || fail "the third run: $(cat "$work/run3.log")"

# 4. Another seed without --force is refused (one gradebook, one seed).
"$grade" grade-all "$class" --out "$out" --seed 0x1234 --rubric "$rubric" >"$work/run4.log" 2>&1
[[ $? == 2 ]] && grep -q 'was graded with seed 0x0000000000005eed' "$work/run4.log" || fail "another seed: $(cat "$work/run4.log")"

# 5. A CSV roster; a changed submission is graded again; --force grades again with a new seed.
mkdir -p "$work/csv" && cp "$class/m3.tar.gz" "$work/csv/" && printf 'student,path\nm3,m3.tar.gz\n' >"$work/csv/class.csv"
"$grade" grade-all "$work/csv/class.csv" --out "$work/csv-out" --rubric "$rubric" >"$work/run5.log" 2>&1
grep -q '^m3,graded,' "$work/csv-out/gradebook.csv" || fail "the CSV roster: $(cat "$work/run5.log")"
seed1=$(grep '^m3,' "$work/csv-out/gradebook.csv" | awk -F, '{print $(NF-2)}')
mkdir -p "$work/m3" && tar -xzf "$work/csv/m3.tar.gz" -C "$work/m3" && echo "// changed" >>"$work/m3/exercises/03_sequential.cu"
tar -czf "$work/csv/m3.tar.gz" -C "$work/m3" exercises
"$grade" grade-all "$work/csv/class.csv" --out "$work/csv-out" --rubric "$rubric" >"$work/run6.log" 2>&1
grep -q 'm3 changed since it was graded' "$work/run6.log" || fail "a changed submission: $(cat "$work/run6.log")"
"$grade" grade-all "$work/csv/class.csv" --out "$work/csv-out" --rubric "$rubric" --force >"$work/run7.log" 2>&1
grep -q '0 graded already, 1 to grade here' "$work/run7.log" || fail "--force: $(cat "$work/run7.log")"
seed2=$(grep '^m3,' "$work/csv-out/gradebook.csv" | awk -F, '{print $(NF-2)}')
[[ "$seed1" != "$seed2" ]] || fail "--force kept the seed $seed1"
# 6. Killed with SIGKILL mid-grading (--force again): its lab-grade child goes with it (nothing
# grades on unseen), and the same command again grades the student once, leaving no partial folder.
"$grade" grade-all "$work/csv/class.csv" --out "$work/csv-out" --rubric "$rubric" --force >"$work/run8.log" 2>&1 &
pid=$!
trap 'kill -KILL "$pid" 2>/dev/null' EXIT
child=""
for _ in $(seq 600); do
  child=$(pgrep -f -- "--out $work/csv-out/students/\.m3\.partial" | head -n 1)
  [[ -n "$child" ]] && break
  sleep 0.1
done
[[ -n "$child" ]] || fail "the killed run never started grading m3: $(cat "$work/run8.log")"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
trap - EXIT
# Gone, or a zombie that nobody has reaped yet (its new parent, the machine's init, may be slow to).
alive() { [[ -n "$(ps -o stat= -p "$1" 2>/dev/null | grep -v '^Z')" ]]; }
for _ in $(seq 10); do alive "$child" || break; sleep 0.1; done
alive "$child" && { kill -KILL "$child"; fail "grade-all's lab-grade child outlived it (SIGKILL)"; }
"$grade" grade-all "$work/csv/class.csv" --out "$work/csv-out" --rubric "$rubric" >"$work/run9.log" 2>&1
grep -q '0 graded already, 1 to grade here' "$work/run9.log" || fail "after SIGKILL: $(cat "$work/run9.log")"
compgen -G "$work/csv-out/students/.*" >/dev/null && fail "after SIGKILL and a rerun a partial grading is left"
[[ $(grep -c '^m3,graded,' "$work/csv-out/gradebook.csv") == 1 ]] || fail "after SIGKILL: $(cat "$work/csv-out/gradebook.csv")"
# 7. Grading a changed submission again: its unchanged rungs keep their grades (lab-grade --reuse),
# what changed is graded again, a file planted with a mistake is never passed on its earlier
# grade, and --no-reuse grades every rung.
mkdir -p "$work/again/two/exercises"
cp "$class/ref-1/exercises/03_sequential.cu" "$kit/solutions/01_interleaved.cu" "$work/again/two/exercises/"
# (Its rubric gives rung 01 the corpus rubric's points too, so that both rungs are graded.)
sed '/^\[rungs.01_interleaved\]$/,+3d' "$rubric" >"$work/rubric-two.toml"
again() { "$grade" grade-all "$work/again" --out "$work/again-out" --rubric "$work/rubric-two.toml" --seed 0xa9a1 "$@"; }
rung() { # rung FIELD ID: a field of the instructor's record of the student, its entry for rung ID
  python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); print([r for r in g["rungs"] if r["id"]==sys.argv[3]][0][sys.argv[2]])' \
    "$work/again-out/students/two/instructor/grade.json" "$1" "$2"
}
again >"$work/run10.log" 2>&1 || fail "grading the two-rung student: $(cat "$work/run10.log")"
full=$(rung max 03_sequential)
[[ $(rung reused 03_sequential) == False && $(rung score 03_sequential) == "$full" && $full != 0.0 ]] \
  || fail "first grading: $(cat "$work/run10.log")"
graded_at=$(rung graded_at 03_sequential)
echo "// changed" >>"$work/again/two/exercises/01_interleaved.cu"
again >"$work/run11.log" 2>&1 || fail "grading it again: $(cat "$work/run11.log")"
grep -q 'two changed since it was graded' "$work/run11.log" || fail "the change was not seen: $(cat "$work/run11.log")"
grep -q 'reuse: 01_interleaved is graded again: its file changed' "$work/again-out/students/two/grade.log" \
  && grep -q '03_sequential unchanged since' "$work/again-out/students/two/grade.log" \
  || fail "what was reused: $(cat "$work/again-out/students/two/grade.log")"
[[ $(rung reused 03_sequential) == True && $(rung reused 01_interleaved) == False && $(rung graded_at 03_sequential) == "$graded_at" \
   && $(rung score 03_sequential) == "$full" ]] || fail "03 was not reused as it was, or 01 was"
grep -q 'Reused from the earlier grading.*03_sequential' "$work/again-out/students/two/summary.md" \
  || fail "the summary does not say what was reused"
# A planted mistake in the reused rung's file: graded again, and it loses points.
cp "$work/m3/exercises/03_sequential.cu" "$work/again/two/exercises/03_sequential.cu"
again >"$work/run12.log" 2>&1 || fail "grading the planted mistake: $(cat "$work/run12.log")"
[[ $(rung reused 03_sequential) == False && $(rung reused 01_interleaved) == True ]] \
  && awk -v a="$(rung score 03_sequential)" -v b="$full" 'BEGIN{exit !(a < b)}' \
  || fail "the changed 03 kept its earlier grade: $(cat "$work/again-out/students/two/grade.log")"
# The class summary's progress over resubmissions: three gradings, and the latest lost rung 03.
grep -q '^| two | 3 | [0-9T:Z-]* | none | 03_sequential |$' "$work/again-out/class-summary.md" \
  || fail "the progress over resubmissions: $(grep -A4 'Progress over' "$work/again-out/class-summary.md")"
echo "// changed again" >>"$work/again/two/exercises/01_interleaved.cu"
again --no-reuse >"$work/run13.log" 2>&1 || fail "--no-reuse: $(cat "$work/run13.log")"
grep -q 'reuse:' "$work/again-out/students/two/grade.log" && fail "--no-reuse reused: $(cat "$work/again-out/students/two/grade.log")"
[[ $(rung reused 03_sequential) == False && $(rung reused 01_interleaved) == False ]] || fail "--no-reuse kept a rung"
# 8. Two workers at once (the second in a build tree of its own) grade the class of step 1 with its
# seed: every grade the same as one worker's but for times.
"$grade" grade-all "$class" --out "$work/parallel" --seed 0x5eed --rubric "$rubric" --workers 2 >"$work/run14.log" 2>&1
cat "$work/run14.log"
grep -q '5 to grade here, 2 at a time' "$work/run14.log" && grep -qE '\(worker 1(, GPU [^)]+)?\)' "$work/run14.log" \
  || fail "--workers 2 did not grade two at a time"
python3 "$kit/grader/batch/tests/same_grades.py" "$out" "$work/parallel" || fail "two workers graded otherwise than one"
# Each batch.json names the worker that graded it and the GPU it was pinned to, as the log said
# when it took the student ("(worker 1, GPU 0)"; no GPU on the CPU backend).
python3 - "$work/parallel" "$work/run14.log" <<'PY' || fail "batch.json's worker and gpu, above"
import json, os, re, sys
out, log = sys.argv[1], open(sys.argv[2]).read()
took = {m[1]: (int(m[2]), m[3] or "") for m in re.finditer(r"grading (\S+) \(worker (\d+)(?:, GPU ([^)]+))?\)", log)}
bad = [] if took else ["the log names no grading's worker"]
for sid in sorted(os.listdir(os.path.join(out, "students"))):
    path = os.path.join(out, "students", sid, "batch.json")
    if sid.startswith(".") or not os.path.isfile(path):
        continue
    batch = json.load(open(path))
    if (batch.get("worker"), batch.get("gpu")) != took.get(sid):
        bad.append(f"{sid}: worker {batch.get('worker')!r} and gpu {batch.get('gpu')!r}; the log says {took.get(sid)}")
print("\n".join(bad) or f"batch.json: the worker and gpu of {len(os.listdir(os.path.join(out, 'students')))} gradings")
sys.exit(1 if bad else 0)
PY
"$grade" grade-all "$class" --out "$work/parallel-bad" --workers 0 >"$work/run15.log" 2>&1
code=$?
[[ $code == 2 ]] && grep -q -- '--workers 0: from 1 to' "$work/run15.log" && [[ ! -e "$work/parallel-bad" ]] \
  || fail "--workers 0 (exit $code, or it wrote $work/parallel-bad): $(cat "$work/run15.log")"
# A usage error CLI11 finds is exit 2 too, as lab-grade's own (it was CLI11's 105 for a value out of range).
"$grade" grade-all "$class" --out "$work/parallel-bad" --per-gpu 9 >"$work/run15b.log" 2>&1
code=$?
[[ $code == 2 ]] && grep -q -- '--per-gpu: Value 9 not in range 1 to 8' "$work/run15b.log" && [[ ! -e "$work/parallel-bad" ]] \
  || fail "--per-gpu 9 (exit $code, or it wrote $work/parallel-bad): $(cat "$work/run15b.log")"
# 9. The rubric's late policy, from the times a CSV roster gives (as an LMS records them): on time,
# two days late (20%), within an extension; a bad time is refused before anything is graded.
late="$work/late" && mkdir -p "$late"
cp "$rubric" "$late/rubric.toml"
printf '\n[late]\ndue = "2026-12-01T23:59:00Z"\ngrace_minutes = 10\npenalty_per_day = 0.1\nextensions = "ext.csv"\n' >>"$late/rubric.toml"
printf 'student,due\nslow-ok,2026-12-05T00:00:00Z\n' >"$late/ext.csv"
for s in punctual tardy slow-ok; do cp -r "$class/ref-1" "$late/$s"; done
printf 'student,path,submitted_at\npunctual,punctual,2026-12-02T00:05:00+00:00\ntardy,tardy,2026-12-03T12:00:00Z\nslow-ok,slow-ok,2026-12-04T12:00:00Z\n' >"$late/class.csv"
"$grade" grade-all "$late/class.csv" --out "$late/out" --rubric "$late/rubric.toml" >"$work/run16.log" 2>&1 || fail "late: $(cat "$work/run16.log")"
lbook="$late/out/gradebook.csv"
lfield() { grep "^$1," "$lbook" | awk -F, -v n="$2" '{print $n}'; }
pen=$(( $(head -1 "$lbook" | tr ',' '\n' | grep -n '^late_penalty$' | cut -d: -f1) ))
[[ $(lfield punctual 3) == "$(lfield punctual 4)" && $(lfield punctual $pen) == 0.00 ]] || fail "on time: $(grep ^punctual "$lbook")"
awk -v a="$(lfield tardy 3)" -v b="$(lfield tardy 4)" 'BEGIN{exit !(a == 0.8 * b)}' && [[ $(lfield tardy $pen) == 0.20 ]] \
  || fail "two days late: $(grep ^tardy "$lbook")"
[[ $(lfield slow-ok 3) == "$(lfield slow-ok 4)" ]] || fail "an extension: $(grep ^slow-ok "$lbook")"
grep -q '2 days late, 20% of the points earned taken off' "$late/out/students/tardy/summary.md" || fail "tardy's report does not say it"
printf 'student,path,submitted_at\npunctual,punctual,yesterday\n' >"$late/bad.csv"
"$grade" grade-all "$late/bad.csv" --out "$late/bad-out" --rubric "$late/rubric.toml" >"$work/run17.log" 2>&1
code=$?
[[ $code == 2 ]] && grep -q 'submitted_at "yesterday" is not an ISO 8601 time' "$work/run17.log" && [[ ! -e "$late/bad-out" ]] \
  || fail "a bad time (exit $code): $(cat "$work/run17.log")"
echo "grade-all: every check passed"
