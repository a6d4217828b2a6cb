#!/usr/bin/env python3
"""Where a grading's time went: grade.json's phases (grader/DEVELOPING.md, "Where the time went") as a table by rung.

    python3 grader/batch/phase_table.py GRADE.json [GRADE.json ...]

One table per grade.json: the whole grading's phases, then a row per rung that ran, with its
seconds, each phase's seconds, and its slowest case."""
import json
import sys

GRADE_PHASES = ["intake", "build", "integrity", "cases", "after_cases", "speed_wait", "again", "speed", "after_speed"]
# Spans beside the phases above (not part of their sum): the runners' whole build (the cases of those
# built run while the others build), the CPU backend's build, the sanitizer's and the
# lessons' passes, which on a GPU run beside the cases, and the rungs' waits to share the GPU (within cases
# and after_cases).
BESIDE_PHASES = ["runners_build", "cpu_backend_build", "sanitizer", "lessons", "gpu_wait"]
RUNG_PHASES = ["preparing", "runner_start", "visible_cases", "hidden_cases", "large_cases", "checking", "sanitizer", "lessons", "speed",
               "speed_kit", "speed_runner", "speed_checking"]


def table(path):
    grade = json.load(open(path))
    print(f"{path}: {grade['device']}, {grade['score']:.2f} of {grade['max']:.2f} points in {grade['seconds']:.1f} s")
    print("  the grading: " + ", ".join(f"{name} {grade['phases'][name]:.1f} s" for name in GRADE_PHASES if name in grade["phases"]))
    beside = [f"{name} {grade['phases'][name]:.1f} s" for name in BESIDE_PHASES if name in grade["phases"]]
    if beside:
        print("  beside them: " + ", ".join(beside))
    cpu = grade.get("cpu") or {}
    if cpu:
        print(f"  seconds of a core, {sum(cpu.values()):.1f} in all: "
              + ", ".join(f"{name} {spent:.1f}" for name, spent in sorted(cpu.items(), key=lambda item: -item[1])))
    print(f"  {'rung':20} {'seconds':>8} " + " ".join(f"{name:>13}" for name in RUNG_PHASES) + "  slowest case")
    for rung in grade["rungs"]:
        phases = rung.get("phases") or {}
        if not phases:
            continue
        timed = [c for c in rung["cases"] if "seconds" in c]
        slowest = max(timed, key=lambda c: c["seconds"], default=None)
        cells = " ".join(f"{phases[name]:13.2f}" if name in phases else f"{'-':>13}" for name in RUNG_PHASES)
        print(f"  {rung['id']:20} {rung['seconds']:8.2f} {cells}  "
              + (f"{slowest['name']} ({slowest['seconds']:.2f} s)" if slowest else "-"))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        table(path)
