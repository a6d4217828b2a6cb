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
  for b in "$kit/build/cuda-solutions" "$kit/build/cpu-solutions"; do [[ -x $b/grader/lab-grade ]] && build=$b && break; done
fi
[[ -x "$build/grader/lab-grade" ]] || { echo "class_bench: no lab-grade built; run ./lab grade once first (or give -b)" >&2; exit 1; }
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
echo "class_bench: $count students ($mix), $workers worker(s)${per_gpu:+, $per_gpu a GPU}, $build/grader/lab-grade"
# The whole host while the class is graded, every 5 s: its load average and /proc/stat's ticks
# (user, nice, system, idle, iowait, irq, softirq, steal), whatever spent them: what the gradings'
# own accounts of their cores cannot see (a VM's stolen time, waiting on the disk, other programs).
host_sample() { echo "$(date +%s.%N) $(cut -d' ' -f1 /proc/loadavg) $(head -n1 /proc/stat | cut -c5-)"; }
(while :; do host_sample; sleep 5; done) >"$out/host.samples" 2>/dev/null &
sampler=$!
start=$(date +%s.%N)
"$build/grader/lab-grade" "${args[@]}" | tee "$out/grade-all.log" | sed 's/^/  /' || true
end=$(date +%s.%N)
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
host_sample >>"$out/host.samples" 2>/dev/null || true

python3 - "$out" "$start" "$end" "$workers" "$mix" <<'PY'
import json, os, re, sys
out, start, end, workers, mix = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
wall = end - start
students, phases, rung_phases, cpu = [], {}, {}, {}
device = ""
for sid in sorted(os.listdir(os.path.join(out, "grades", "students"))):
    folder = os.path.join(out, "grades", "students", sid)
    if sid.startswith(".") or not os.path.isfile(os.path.join(folder, "grade.json")):
        continue
    grade = json.load(open(os.path.join(folder, "grade.json")))
    batch = json.load(open(os.path.join(folder, "batch.json")))
    device = grade["device"]
    # Each speed case's ratio against what it needed, from the speed part's note (a row rung has one
    # line per kernel): how close a verdict came to flipping.
    speed = []
    for rung in grade["rungs"]:
        for part in rung.get("parts", []):
            if part["name"] != "speed":
                continue
            for line in part.get("note", "").splitlines():
                m = re.search(r"rung (\S+) on .*? ([0-9.]+)x the kit's baseline.*?needs at least ([0-9.]+)x", line)
                if m:
                    speed.append({"case": m[1], "ratio": float(m[2]), "needed": float(m[3]),
                                  "earned": part["score"] >= part["max"]})
    # The rungs run again with the GPU alone (lab-grade says each: gpu_lock.hpp's run_again_alone).
    log = os.path.join(folder, "grade.log")
    again = open(log, errors="replace").read().count("again, the GPU alone:") if os.path.isfile(log) else 0
    students.append({"student": sid, "seconds": batch["seconds"], "gpu": batch.get("gpu", ""), "score": grade["score"], "max": grade["max"],
                     "phases": grade["phases"], "speed": speed, "again_rungs": again})
    for name, seconds in grade["phases"].items():
        phases[name] = phases.get(name, 0.0) + seconds
    # Each rung's own phases (its runners' start-up, its cases, its checking, its sanitizer...),
    # summed over its rungs: rungs run side by side, so these add up to more than the wall time.
    for rung in grade["rungs"]:
        for name, seconds in rung.get("phases", {}).items():
            rung_phases[name] = rung_phases.get(name, 0.0) + seconds
    for name, seconds in grade.get("cpu", {}).items():
        cpu[name] = cpu.get(name, 0.0) + seconds
n = len(students)
print(f"\n{'student':32} {'seconds':>8} {'points':>15}   phases (s)")
for s in students:
    detail = ", ".join(f"{k} {v:.1f}" for k, v in sorted(s["phases"].items()))
    print(f"{s['student']:32} {s['seconds']:8.1f} {s['score']:7.2f} / {s['max']:5.2f}   {detail}")
each = sorted(s["seconds"] for s in students)
# How many gradings ran at once: grade-all says "N at a time" (one at a time otherwise).
found = re.search(r"(\d+) at a time", open(os.path.join(out, "grade-all.log")).read())
at_once = int(found[1]) if found else 1
# The host over the class, from the first sample to the last: each kind of tick's share, the load.
host = None
try:
    rows = [line.split() for line in open(os.path.join(out, "host.samples")) if len(line.split()) >= 10]
    if len(rows) >= 2:
        names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
        ticks = [int(b) - int(a) for a, b in zip(rows[0][2:10], rows[-1][2:10])]
        total = sum(ticks) or 1
        loads = [float(r[1]) for r in rows]
        host = {"shares": {k: t / total for k, t in zip(names, ticks)}, "load_mean": sum(loads) / len(loads),
                "load_max": max(loads), "samples": len(rows)}
except OSError:
    pass
summary = {"device": device, "host": host, "students": n, "mix": mix, "workers": workers, "wall_seconds": wall,
           "median_student_seconds": each[n // 2] if n else None, "at_once": at_once,
           # Each of the workers grading one student after another, each in its median grading's
           # time: the pace once every worker's tree is made (a class's first round also configures
           # and builds the workers' trees).
           "steady_student_seconds": each[n // 2] / at_once if n else None, "phases_summed": phases, "rung_phases_summed": rung_phases, "cpu_summed": cpu,
           "cores": len(os.sched_getaffinity(0)),
           "class_of_200_hours": (wall / n * 200 / 3600) if n else None, "per_student": students}
json.dump(summary, open(os.path.join(out, "bench.json"), "w"), indent=1)
print(f"\n{device}: {n} students graded in {wall:.0f} s of wall time with {workers} worker(s): "
      f"{wall / max(n, 1):.1f} s per student; median grading {summary['median_student_seconds'] or 0:.1f} s")
print("the class's time by phase (summed over students): " + ", ".join(f"{k} {v:.0f} s" for k, v in sorted(phases.items())))
if rung_phases and n:
    print("a student's rungs by their own phases (summed over the rungs, which run side by side; means): "
          + ", ".join(f"{k} {v / n:.1f} s" for k, v in sorted(rung_phases.items(), key=lambda kv: -kv[1])))
if cpu and n:
    # Seconds of a core a student, by the part of the grading that spent them (grade.json's "cpu"):
    # with every core busy all the time, a student could take no less than that over the cores.
    per = sum(cpu.values()) / n
    print(f"the class's cores: {per:.0f} s of a core a student ("
          + ", ".join(f"{k} {v / n:.1f}" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1]))
          + f"); on {len(os.sched_getaffinity(0))} cores no less than {per / len(os.sched_getaffinity(0)):.1f} s a student, "
          f"{100 * per * n / (wall * len(os.sched_getaffinity(0))):.0f}% of the cores busy grading over the class's wall time")
if host:
    sh = host["shares"]
    print(f"the host over the class (/proc/stat, every program): {100 * (sh['user'] + sh['nice']):.0f}% of its cores in "
          f"programs, {100 * (sh['system'] + sh['irq'] + sh['softirq']):.0f}% in its kernel, {100 * sh['iowait']:.0f}% waiting "
          f"on its disk, {100 * sh['steal']:.0f}% taken by the VM's host (steal), {100 * sh['idle']:.0f}% idle; "
          f"load average {host['load_mean']:.1f} on the mean, {host['load_max']:.1f} at most")
if n:
    print(f"in steady state, {at_once} grading{'s' if at_once > 1 else ''} at once, each taking the median {each[n // 2]:.1f} s: "
          f"{summary['steady_student_seconds']:.1f} s a student, a class of 200 in "
          f"{200 * summary['steady_student_seconds'] / 3600:.2f} h")
    print(f"a class of 200 like this one, at this pace: {summary['class_of_200_hours']:.2f} h "
          f"(200 x {wall / n:.1f} s; the pace of a class this size, resumed runs and hostile outliers aside)")
# By GPU, where the workers were pinned to more than one: a GPU that grades slower than the others.
by_gpu = {}
for s in students:
    by_gpu.setdefault(s["gpu"], []).append(s["seconds"])
if len(by_gpu) > 1:
    print("by GPU (CUDA_VISIBLE_DEVICES): " + "; ".join(
        f"{gpu or 'none'}: {len(t)} gradings, median {sorted(t)[len(t) // 2]:.1f} s" for gpu, t in sorted(by_gpu.items())))
again = [(s["student"], s["again_rungs"]) for s in students if s["again_rungs"]]
print(f"run again with the GPU alone (sharing could have changed their verdicts): {sum(k for _, k in again)} rung(s) of "
      f"{len(again)} grading(s), {phases.get('again', 0.0):.0f} s" + (" (" + ", ".join(f"{w} {k}" for w, k in again) + ")" if again else ""))
timed = [(x["ratio"] / x["needed"] - 1, s["student"], x) for s in students for x in s["speed"]]
if timed:
    margin, who, x = min(timed, key=lambda t: t[0])
    print(f"speed: {len(timed)} cases timed; the thinnest margin {who}'s {x['case']}, {x['ratio']:.2f}x against "
          f"{x['needed']:.2f}x needed ({100 * margin:+.1f}%)")
    lost = sorted({(s["student"], x["case"], x["ratio"], x["needed"]) for s in students for x in s["speed"] if not x["earned"]})
    for student, case, ratio, needed in lost:
        print(f"speed points not earned: {student}'s {case}, {ratio:.2f}x against {needed:.2f}x"
              + (" (every student hands in the reference: a verdict the machine flipped)" if mix == "reference" else ""))
else:
    print("speed: no case timed (no GPU, or no rung earned its speed)")
print(f"figures: {os.path.join(out, 'bench.json')}")
PY
