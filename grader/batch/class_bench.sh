#!/usr/bin/env bash
# Grading a class, timed: the figures behind README.md's "Planning a class". Makes a class of N
# submissions, grades it with grade-all (W workers), and reports each student's seconds, where the
# time went (grade.json's phases summed over the class), the class's wall time and what a class of
# 200 would take at that pace, and how close each speed verdict came to flipping (the thinnest
# margin, and any speed points a reference submission lost). Not a test: it asserts nothing, it measures.
#   grader/batch/class_bench.sh [-n N] [-w W|gpus] [-p P] [-m reference|mixed] [-r RUBRIC] [-b BUILD] [-o OUT]
#     -n  students (default 8)
#     -w  grade-all --workers (default 1)
#     -p  grade-all --per-gpu: workers sharing one GPU (default grade-all's, 3)
#     -m  reference: every student hands in the reference solutions, all twelve rungs (the most work
#         a submission can cause); mixed: in turn the reference, the reference with rung 07 wrong
#         (a corpus mistake), with rung 07 reading past its input (each such case ends its runner
#         at the guard, which the judge starts again), the untouched skeletons (nothing to build)
#         and the reference with rung 07's kernel never ending (stopped at the rubric's limits)
#         (default reference)
#     -r  the rubric (default the kit's, grader/rubric.toml)
#     -b  the build tree whose lab-grade grades (default build/cuda-solutions, else build/cpu-solutions)
#     -o  where the class and its grades go (default a fresh folder under /tmp); OUT/bench.json holds
#         the figures
set -euo pipefail
kit="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
count=8 workers=1 per_gpu="" mix=reference rubric="" build="" out=""
while getopts "n:w:p:m:r:b:o:" option; do
  case "$option" in
    n) count="$OPTARG" ;; w) workers="$OPTARG" ;; p) per_gpu="$OPTARG" ;; m) mix="$OPTARG" ;; r) rubric="$OPTARG" ;;
    b) build="$OPTARG" ;; o) out="$OPTARG" ;;
    *) sed -n '2,18p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
  esac
done
[[ "$mix" == reference || "$mix" == mixed ]] || { echo "class_bench: -m reference or mixed, not $mix" >&2; exit 2; }
if [[ -z "$build" ]]; then
  for b in "$kit/build/cuda-solutions" "$kit/build/cpu-solutions"; do [[ -x $b/bin/lab-grade-all ]] && build=$b && break; done
fi
[[ -x "$build/bin/lab-grade-all" ]] || { echo "class_bench: no lab-grade-all in $build/bin; run ./lab grade-all once first (or give -b)" >&2; exit 1; }
out="${out:-$(mktemp -d /tmp/class-bench.XXXXXX)}"
class="$out/class"
rm -rf "$class" "$out/grades" && mkdir -p "$class"

# The submissions: the reference, and for a mixed class the corpus's kinds beside it.
kinds=(reference)
[[ "$mix" == mixed ]] && kinds=(reference mistake_07_block_sized_stride mistake_07_reads_leftover_before_check skeletons
                                  hostile_endless_kernel)
made="$out/made"
rm -rf "$made" && mkdir -p "$made"
for kind in "${kinds[@]}"; do
  "$kit/grader/batch/tests/make_class.sh" "$kit" "$made" "$kind" >/dev/null
  # A corpus entry keeps only its own rungs; a student of this class hands in every rung, the
  # reference's where the entry has none.
  for f in "$kit"/solutions/*.cu; do
    [[ -e "$made/$kind/exercises/$(basename "$f")" || "$kind" == skeletons ]] || cp "$f" "$made/$kind/exercises/"
  done
done
for i in $(seq -w 1 "$count"); do
  kind="${kinds[$(( (10#$i - 1) % ${#kinds[@]} ))]}"
  cp -r "$made/$kind" "$class/s$i-$kind"
done

args=(grade-all "$class" --out "$out/grades" --workers "$workers" --seed 0xbe4c)
[[ -n "$per_gpu" ]] && args+=(--per-gpu "$per_gpu")
[[ -n "$rubric" ]] && args+=(--rubric "$rubric")
echo "class_bench: $count students ($mix), $workers worker(s)${per_gpu:+, $per_gpu a GPU}, $build/bin/lab-grade-all"
# The whole host while the class is graded, every 5 s: its load average and /proc/stat's ticks
# (user, nice, system, idle, iowait, irq, softirq, steal), whatever spent them: what the gradings'
# own accounts of their cores cannot see (a VM's stolen time, waiting on the disk, other programs).
host_sample() { echo "$(date +%s.%N) $(cut -d' ' -f1 /proc/loadavg) $(head -n1 /proc/stat | cut -c5-)"; }
(while :; do host_sample; sleep 5; done) >"$out/host.samples" 2>/dev/null &
sampler=$!
start=$(date +%s.%N)
"$build/bin/lab-grade-all" "${args[@]}" | tee "$out/grade-all.log" | sed 's/^/  /' || true
end=$(date +%s.%N)
# grade-all exits non-zero when a student's grading failed, which a mixed class may well do; a class
# with no grade at all is the bench's own failure.
compgen -G "$out/grades/students/*/instructor/grade.json" >/dev/null ||
  { kill "$sampler" 2>/dev/null; echo "class_bench: grade-all graded no student (its log: $out/grade-all.log)" >&2; exit 1; }
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
host_sample >>"$out/host.samples" 2>/dev/null || true

python3 "$kit/grader/batch/class_bench_report.py" "$out" "$start" "$end" "$workers" "$mix"
