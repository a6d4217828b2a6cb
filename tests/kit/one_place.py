#!/usr/bin/env python3
"""Kit.OnePlace: what the kit does in one place stays there (issue 27). Each rule names code and
the one file allowed to hold it; the check reads every C++ and CUDA file of the kit but its tests
(comments left out) and names each other file that holds it:

- reaping a child (waitpid, wait4, waitid): kit/src/process.cpp, the process helper, which counts
  every child's CPU time and is the one wait with a deadline;
- reading compute-sanitizer's summary lines ("RACECHECK SUMMARY", "ERROR SUMMARY"):
  kit/src/sanitizer_log.cpp;
- choosing CUDA_DEVICE_MAX_CONNECTIONS for a child: kit/src/process.cpp (cuda_work_queues);
- the exit status of a sticky CUDA error (86): kit/include/lab/exit_status.hpp;
- how far past the GPU's measured ceiling a speed is still trusted (1.15):
  judge/speed_verdict.hpp, the one speed verdict.

  one_place.py KIT_ROOT
"""
import pathlib
import re
import sys

RULES = [
    (re.compile(r"\b(waitpid|wait4|waitid)\s*\("), "kit/src/process.cpp", "reaps a child"),
    (re.compile(r"(RACECHECK|ERROR) SUMMARY"), "kit/src/sanitizer_log.cpp", "reads a sanitizer's summary"),
    (re.compile(r"CUDA_DEVICE_MAX_CONNECTIONS"), "kit/src/process.cpp", "chooses CUDA's work queues"),
    (re.compile(r"=\s*86\s*;"), "kit/include/lab/exit_status.hpp", "defines the sticky error's exit status"),
    (re.compile(r"\b1\.15\b"), "judge/speed_verdict.hpp", "sets how far past the ceiling a speed is trusted"),
]
SOURCES = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".inc"}
SKIPPED = {".git", ".deps", "build", "tests", "corpus"}


def code_of(text):
    """The text without its comments (// to the end of a line, and /* ... */), strings kept."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = []
    for line in text.splitlines():
        out, in_string, i = [], False, 0
        while i < len(line):
            c = line[i]
            if in_string:
                out.append(c)
                if c == "\\" and i + 1 < len(line):
                    out.append(line[i + 1])
                    i += 1
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
                out.append(c)
            elif line.startswith("//", i):
                break
            else:
                out.append(c)
            i += 1
        lines.append("".join(out))
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    found = [False] * len(RULES)
    problems, checked = [], 0
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(p in SKIPPED or p.startswith("build-") for p in rel.parts[:-1]) or path.suffix not in SOURCES:
            continue
        if not path.is_file() or path.is_symlink():
            continue
        checked += 1
        code = code_of(path.read_text(encoding="utf-8", errors="replace"))
        for k, (pattern, allowed, what) in enumerate(RULES):
            if pattern.search(code):
                if str(rel) == allowed:
                    found[k] = True
                else:
                    problems.append(f"{rel} {what}: only {allowed} may")
    # A rule whose one file no longer holds it checks nothing: it must be moved with the code.
    for k, (_, allowed, what) in enumerate(RULES):
        if not found[k]:
            problems.append(f"{allowed} no longer holds what a rule expects there ({what}): update one_place.py")
    for line in problems:
        print(line)
    print(f"{checked} files checked, {len(problems)} problems")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
