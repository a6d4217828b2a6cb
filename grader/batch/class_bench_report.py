#!/usr/bin/env python3
# class_bench.sh's figures, from a class it graded: reads OUT/grades (each student's grade.json,
# batch.json and grade.log), OUT/grade-all.log and OUT/host.samples, prints the summary and writes
# OUT/bench.json. Apart from the script so that it can be run again on a class's folder.
#   class_bench_report.py OUT START END WORKERS MIX   (START, END: the class's wall clock, seconds)
import json, os, re, sys
out, start, end, workers, mix = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
wall = end - start
students, phases, rung_phases, cpu = [], {}, {}, {}
device = ""
for sid in sorted(os.listdir(os.path.join(out, "grades", "students"))):
    folder = os.path.join(out, "grades", "students", sid)
    if sid.startswith(".") or not os.path.isfile(os.path.join(folder, "instructor", "grade.json")):
        continue
    grade = json.load(open(os.path.join(folder, "instructor", "grade.json")))
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
    said = open(log, errors="replace").read() if os.path.isfile(log) else ""
    again = said.count("again, the GPU alone:")
    # Whether, waiting for the GPU alone, it let the other gradings' rungs run beside a rung held for
    # longer than the lock's patience (gpu_lock.hpp's GpuLock, which says so once).
    let_in = "the other gradings' rungs run meanwhile" in said
    students.append({"student": sid, "seconds": batch["seconds"], "gpu": batch.get("gpu", ""), "score": grade["score"], "max": grade["max"],
                     "worker": batch.get("worker", 0), "phases": grade["phases"], "cpu": grade.get("cpu", {}), "speed": speed, "again_rungs": again,
                     "let_others_in": let_in})
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
cores = len(os.sched_getaffinity(0))  # this host's, which graded the class
print(f"\n{'student':32} {'seconds':>8} {'points':>15}   phases (s)")
for s in students:
    detail = ", ".join(f"{k} {v:.1f}" for k, v in sorted(s["phases"].items()))
    print(f"{s['student']:32} {s['seconds']:8.1f} {s['score']:7.2f} / {s['max']:5.2f}   {detail}")
each = sorted(s["seconds"] for s in students)
# How many gradings ran at once: grade-all says "N at a time" (one at a time otherwise).
log_text = open(os.path.join(out, "grade-all.log")).read()
found = re.search(r"(\d+) at a time", log_text)
at_once = int(found[1]) if found else 1
# Each worker's first grading also configures and builds the worker's trees (its GPU build and the
# CPU backend's, minutes of the cores) while the others make theirs: a class of 200 hardly feels
# it, a class of twelve with three workers has it in a quarter of its gradings. The steady pace is
# the later gradings'.
# The order gradings started in is grade-all's log's; the worker that made each, its batch.json's.
worker_of = {s["student"]: s["worker"] for s in students}
firsts, workers_seen = set(), set()
for m in re.finditer(r"grading (\S+)", log_text):
    if m[1] in worker_of and worker_of[m[1]] not in workers_seen:
        workers_seen.add(worker_of[m[1]])
        firsts.add(m[1])
later = sorted(s["seconds"] for s in students if s["student"] not in firsts)
steady_each = later[len(later) // 2] if later else (each[n // 2] if n else None)
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
           # Each of the workers grading one student after another, each in the median time of the
           # gradings that were not a worker's first: the pace once every worker's tree is made.
           "first_gradings": sorted(firsts), "median_later_seconds": steady_each,
           "steady_student_seconds": steady_each / at_once if n else None, "phases_summed": phases, "rung_phases_summed": rung_phases, "cpu_summed": cpu,
           "cores": cores,
           "class_of_200_hours": (wall / n * 200 / 3600) if n else None, "per_student": students}
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
          + f"); on {cores} cores no less than {per / cores:.1f} s a student, "
          f"{100 * per * n / (wall * cores):.0f}% of the cores busy grading over the class's wall time")
    # The same after each worker's first grading, which also makes the worker's trees: what a
    # student of a class of 200 costs.
    later_cpu = [s["cpu"] for s in students if s["student"] not in firsts and s["cpu"]]
    if later_cpu:
        parts = {}
        for c in later_cpu:
            for k, v in c.items():
                parts[k] = parts.get(k, 0.0) + v / len(later_cpu)
        steady_per = sum(parts.values())
        summary["steady_cpu_per_student"] = parts
        print(f"after each worker's first grading ({len(later_cpu)} grading{'s' if len(later_cpu) != 1 else ''}): {steady_per:.0f} s of a core a student ("
              + ", ".join(f"{k} {v:.1f}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1]))
              + f"); on {cores} cores no less than {steady_per / cores:.1f} s a student")
if host:
    sh = host["shares"]
    print(f"the host over the class (/proc/stat, every program): {100 * (sh['user'] + sh['nice']):.0f}% of its cores in "
          f"programs, {100 * (sh['system'] + sh['irq'] + sh['softirq']):.0f}% in its kernel, {100 * sh['iowait']:.0f}% waiting "
          f"on its disk, {100 * sh['steal']:.0f}% taken by the VM's host (steal), {100 * sh['idle']:.0f}% idle; "
          f"load average {host['load_mean']:.1f} on the mean, {host['load_max']:.1f} at most")
if n:
    print(f"in steady state, {at_once} grading{'s' if at_once > 1 else ''} at once, each taking {steady_each:.1f} s (the median of the "
          + (f"{len(later)} grading{'s' if len(later) != 1 else ''} after each worker's first" if later else f"{n} gradings: no worker graded a second") + "): "
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
let_in = [s["student"] for s in students if s["let_others_in"]]
summary["let_others_in"] = let_in
print(f"waiting for the GPU alone, {len(let_in)} grading(s) let the others' rungs run beside a rung held past the lock's "
      f"patience" + (" (" + ", ".join(let_in) + ")" if let_in else "") + f"; the class's rungs waited {phases.get('gpu_wait', 0.0):.0f} s "
      "to share the GPU (gpu_wait)")
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
json.dump(summary, open(os.path.join(out, "bench.json"), "w"), indent=1)
print(f"figures: {os.path.join(out, 'bench.json')}")
