#!/usr/bin/env python3
"""Whether two grade-all outputs hold the same grades: every student's grade.json equal in all but
times (seconds, phases, graded_at, and the whole grading's seconds of a core, cpu). Used by
Kit.Grader.GradeAll to compare a class graded by one worker with the same class graded by several.
    same_grades.py [--gpu] OUT_A OUT_B    exit 0 when the same; else prints the first differences, exit 1
--gpu: graded on a GPU, where the speed is measured: each rung's GB/s and its speed part's note (the
figures) are left out too, and the speed part compared by its points (the verdict)."""
import json
import os
import sys

TIMES = {"seconds", "phases", "graded_at"}


def without_times(value, measured):
    """value without its times; `measured` (--gpu): without the speed's figures too."""
    if isinstance(value, dict):
        drop = TIMES | ({"gbps"} if measured else set()) | ({"note"} if measured and value.get("name") == "speed" else set())
        return {k: without_times(v, measured) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [without_times(v, measured) for v in value]
    return value


def first_difference(a, b, where="grade.json"):
    if type(a) is not type(b):
        return f"{where}: {a!r} against {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{where}.{key}: only in {'the first' if key in a else 'the second'}"
            found = first_difference(a[key], b[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} entries against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{where}: {str(a)[:200]!r} against {str(b)[:200]!r}"


def main():
    args = sys.argv[1:]
    measured = "--gpu" in args
    first, second = [a for a in args if a != "--gpu"]
    students = sorted(set(os.listdir(os.path.join(first, "students"))) | set(os.listdir(os.path.join(second, "students"))))
    students = [s for s in students if not s.startswith(".")]
    differ = 0
    for student in students:
        paths = [os.path.join(out, "students", student, "instructor", "grade.json") for out in (first, second)]
        missing = [p for p in paths if not os.path.isfile(p)]
        if missing:
            print(f"{student}: no grade in {missing[0]}")
            differ += 1
            continue
        a, b = (without_times(json.load(open(p, encoding="utf-8")), measured) for p in paths)
        for grade in (a, b):
            grade.pop("cpu", None)  # seconds of a core by part: times too
        found = first_difference(a, b)
        if found:
            print(f"{student}: {found}")
            differ += 1
    print(f"{len(students) - differ} of {len(students)} students' grades are the same")
    return 1 if differ or not students else 0


if __name__ == "__main__":
    sys.exit(main())
