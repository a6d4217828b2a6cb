#!/usr/bin/env bash
# Kit.Grader.GradeAllSlurm: grade-all --slurm against a real Slurm (single_node_slurm.sh: munge, a
# controller and one node on this machine), over the class Kit.Grader.GradeAll graded here, with
# the same seed: the gradebook must equal the local one, row for row. Then a task that fails
# (its node tree cannot be configured) is retried and, still failing, reported, never lost.
#   grade_all_slurm_test.sh LAB_GRADE_ALL KIT WORK LOCAL_WORK
set -uo pipefail
grade="$1" kit="$2" work="$3" local_work="$4"
fail() { echo "FAILED: $*" >&2; exit 1; }
[[ -f "$local_work/gradebook-local.csv" && -f "$local_work/rubric.toml" ]] \
  || fail "no local gradebook or rubric in $local_work (Kit.Grader.GradeAll makes them)"
rm -rf "$work" && mkdir -p "$work"
cluster="$(mktemp -d /tmp/lab-slurm.XXXXXX)"  # short: munge's socket path has 108 bytes at most
started=$("$kit/grader/batch/tests/single_node_slurm.sh" start "$cluster" 2>"$work/slurm-start.log")
code=$?
if [[ $code == 77 ]]; then
  # The kit's own reason (no root, or no Slurm and no way to install it), first, as lab-summary
  # takes a skip: a machine without a package registry runs the self-test without this test.
  echo "lab: skipped: $(grep -m1 '^SKIPPED: ' "$work/slurm-start.log" | cut -c10-)"
  cat "$work/slurm-start.log"
  rm -rf "$cluster"
  exit 77
fi
cat "$work/slurm-start.log"
[[ $code == 0 ]] || fail "the single-node Slurm did not start"
eval "$started"
trap '"$kit/grader/batch/tests/single_node_slurm.sh" stop "$cluster"; rm -rf "$cluster"' EXIT
sinfo

# 1. The class through sbatch: the same gradebook as grading it here.
"$grade" grade-all "$local_work/class" --slurm --out "$work/out" --seed 0x5eed --rubric "$local_work/rubric.toml" \
  --poll 1 --time 30 >"$work/run1.log" 2>&1
code=$?
cat "$work/run1.log"
[[ $code == 1 ]] || fail "grade-all --slurm exited with $code, not 1 (the broken submission)"
grep -q 'Slurm job [0-9]*: 5 task(s) for the 5 to grade' "$work/run1.log" || fail "no array job of 5 tasks"
grep -q '#SBATCH --array=0-4' "$work/out/slurm/round-1.sh" || fail "the job script: $(cat "$work/out/slurm/round-1.sh")"
grep -q 'round-2' "$work/run1.log" && fail "a second round for a submission lab-grade had already judged"
diff "$local_work/gradebook-local.csv" "$work/out/gradebook.csv" || fail "the Slurm gradebook differs from the local one"
echo "the gradebook through Slurm equals the local one ($(wc -l <"$work/out/gradebook.csv") lines)"

# 2. Resumed like the local mode: nothing graded twice.
"$grade" grade-all "$local_work/class" --slurm --out "$work/out" --rubric "$local_work/rubric.toml" --poll 1 \
  >"$work/run2.log" 2>&1
grep -q '4 graded already; Slurm job [0-9]*: 1 task(s) for the 1 to grade' "$work/run2.log" || fail "resume: $(cat "$work/run2.log")"

# 3. Tasks that die before grading (a node tree that cannot be configured) are submitted again,
#    then reported with their task's log; nothing is lost or counted as graded.
mkdir -p "$work/one" && cp -r "$local_work/class/m3.tar.gz" "$work/one/"
"$grade" grade-all "$work/one" --slurm --out "$work/one-out" --rubric "$local_work/rubric.toml" --poll 1 \
  --node-tree /proc/no-such-place/tree --retries 1 >"$work/run3.log" 2>&1
code=$?
cat "$work/run3.log"
[[ $code == 1 ]] || fail "grade-all --slurm with failing tasks exited with $code"
grep -q 'round-2' "$work/run3.log" || fail "a task that ended without a grade was not submitted again"
grep -q '^m3,"not graded: its Slurm task (job [0-9]*, task 0) ended without a grade: see slurm/round-2-task-0.log' \
  "$work/one-out/gradebook.csv" || fail "the failed task: $(cat "$work/one-out/gradebook.csv")"
# 4. A node tree: the task configures and builds a tree of the kit on the node's disk and grades
#    there; the grade is the one this tree gave (same seed, same student). The tree lies beside this
#    build tree (BUILD-slurm-node-0), at its depth under the kit, so that ./lab's compiler cache
#    serves it (inside WORK it found nothing: 265 s of compiling on 2 cores).
node_tree="$(dirname "$(dirname "$work")")-slurm-node"
rm -rf "$node_tree"-*
mkdir -p "$work/tree-class" && cp -r "$local_work/class/m3.tar.gz" "$work/tree-class/"
"$grade" grade-all "$work/tree-class" --slurm --out "$work/tree-out" --seed 0x5eed --rubric "$local_work/rubric.toml" \
  --poll 2 --node-tree "$node_tree" >"$work/run4.log" 2>&1
code=$?
cat "$work/run4.log"
[[ $code == 0 ]] || fail "grade-all --slurm --node-tree exited with $code: $(cat "$work"/tree-out/slurm/*task*.log)"
[[ -x "$node_tree-0/bin/lab-grade" ]] || fail "no node tree was built in $node_tree-0"
[[ "$(grep '^m3,' "$work/tree-out/gradebook.csv")" == "$(grep '^m3,' "$local_work/gradebook-local.csv")" ]] \
  || fail "the node tree's grade differs: $(grep '^m3,' "$work/tree-out/gradebook.csv")"
echo "grade-all --slurm: every check passed"
