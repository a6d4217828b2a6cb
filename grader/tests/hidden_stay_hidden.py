#!/usr/bin/env python3
"""Every file of a grading that a student may see holds none of a hidden case's parameters or seed,
and no path of the grading machine.

    hidden_stay_hidden.py REPORT_DIR [--path PATH ...]

REPORT_DIR is a `lab-grade grade` report folder. The instructor's record (REPORT_DIR/instructor/
grade.json; REPORT_DIR/grade.json in a folder without one) gives every hidden case; the files a
student may see are all the others but graded/ (the student's own files). For each hidden case
they must not hold: its name (it spells the input, n and block: float_n4093_b128), its seed (hex
and decimal), its replay line, its n written as the reports write a size ("n = 4093", "--n 4093",
"_n4093") where no visible case of the grading has that n, nor the hidden inputs' seed; nor any
PATH given (the kit's folder, the report folder, the submission's). Unless the grading's rubric
shows the hidden cases on purpose ([hidden] details = true: "hidden_details" in the record).
Exit 0 when nothing leaks; 1 naming each leak (file, what, which case).
"""
import argparse
import json
import re
import sys
from pathlib import Path


def student_files(report):
    for f in sorted(report.rglob("*")):
        rel = f.relative_to(report)
        if f.is_file() and rel.parts[0] not in ("instructor", "graded"):
            yield f


def secrets_of(record):
    """What no student-facing file may hold, by how it is looked for: whole tokens (a case's name, its
    seed in hex and decimal, the hidden inputs' seed), replay lines, and sizes as the reports write
    them ("n = N", "--n N", "_nN"), each with what it is."""
    visible_names, visible_n = set(), set()
    hidden = []
    for rung in record["rungs"]:
        for c in rung["cases"]:
            if c["hidden"]:
                hidden.append((rung["id"], c))
            else:
                visible_names.add(c["name"])
                visible_n.add(c["n"])
    tokens, replays, sizes = {}, {}, {}
    if "hidden_seed" in record:
        tokens[record["hidden_seed"]] = "the hidden inputs' seed"
    for rung, c in hidden:
        case = f"{rung} hidden {c['op']} {c['name']}"
        if c["name"] not in visible_names:
            tokens[c["name"]] = f"the name of {case}"
        tokens[f"0x{c['seed']:016x}"] = f"the seed of {case}"
        if c["seed"] >= 10**6:  # (a small decimal number could be anything)
            tokens[str(c["seed"])] = f"the seed of {case}, in decimal"
        if c.get("replay"):
            replays[c["replay"]] = f"the replay line of {case}"
        if c["n"] not in visible_n and c["n"] >= 100:
            sizes[c["n"]] = f"the size of {case}"
    return tokens, replays, sizes


def leaks_in(text, tokens, replays, sizes, paths):
    """(what, secret) for each secret `text` holds. Each file is read into sets once: a lookup per
    secret, not a search of the file (a grading has thousands of hidden cases)."""
    found = []
    words = set(re.findall(r"\w+", text))
    found += [(what, secret) for secret, what in tokens.items() if secret in words]
    lines = {m.rstrip() for m in re.findall(r"\./lab replay [^\n\"<`\\]*", text)}
    found += [(what, secret) for secret, what in replays.items() if secret in lines]
    written = {int(n) for n in re.findall(r"(?:\bn = |--n |_n)(\d+)(?!\d)", text)}
    found += [(what, f"n {n}") for n, what in sizes.items() if n in written]
    found += [("a path of the grading machine", p) for p in paths if p in text]
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path)
    parser.add_argument("--path", action="append", default=[], help="a path of the grading machine no file may hold")
    args = parser.parse_args()
    record_path = args.report / "instructor" / "grade.json"
    if not record_path.exists():
        record_path = args.report / "grade.json"
    record = json.loads(record_path.read_text())
    hidden_cases = sum(c["hidden"] for r in record["rungs"] for c in r["cases"])
    failed_hidden = sum(c["hidden"] and c["status"] == "failed" for r in record["rungs"] for c in r["cases"])
    tokens, replays, sizes = ({}, {}, {}) if record.get("hidden_details") else secrets_of(record)
    paths = [str(Path(p).resolve()) for p in args.path]
    leaks = []
    files = list(student_files(args.report))
    for f in files:
        for what, secret in leaks_in(f.read_text(errors="replace"), tokens, replays, sizes, paths):
            leaks.append(f"{f.relative_to(args.report)}: {what}: {secret!r}")
    secrets = len(tokens) + len(replays) + len(sizes)
    by_file = {}
    for leak in leaks:
        by_file.setdefault(leak.split(":")[0], []).append(leak)
    for f, found in by_file.items():
        for leak in found[:5]:
            print("LEAK " + leak)
        if len(found) > 5:
            print(f"LEAK {f}: ... and {len(found) - 5} more")
    print(f"{args.report}: {len(files)} files a student may see, {hidden_cases} hidden cases ({failed_hidden} failed), "
          f"{secrets} secrets and {len(paths)} paths looked for: "
          + (f"{len(leaks)} found" if leaks else "none found")
          + (" (the rubric shows the hidden cases: [hidden] details = true)" if record.get("hidden_details") else ""))
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
