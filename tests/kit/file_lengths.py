#!/usr/bin/env python3
"""Kit.FileLengths: no source file of the kit is longer than 700 lines (issue 27): a file that grows
past it is doing more than one job, and is split where its jobs part. Every C++, CUDA, Python, shell
and CMake file under the kit's root counts (a script without a suffix, ./lab and .ci/'s, by its
first line), the grader's corpus of submissions too; build trees,
the unpacked packages (.deps), a developer's untracked .scratch/ and git's folder do not. Names every file over the limit.

  file_lengths.py KIT_ROOT [LIMIT]
"""
import pathlib
import sys

SOURCES = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".inc", ".py", ".sh", ".cmake"}
SKIPPED = {".git", ".deps", "build", "Testing", "__pycache__", ".scratch"}


def sources(root):
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if any(p in SKIPPED or p.startswith("build-") for p in parts[:-1]):
            continue
        if not path.is_file() or path.is_symlink():
            continue
        if path.suffix in SOURCES or path.name == "CMakeLists.txt" or (not path.suffix and is_script(path)):
            yield path


def is_script(path):
    with open(path, "rb") as f:
        return f.read(2) == b"#!"


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    limit = int(sys.argv[2]) if len(sys.argv) == 3 else 700
    checked, long_files = 0, []
    for path in sources(root):
        with open(path, "rb") as f:
            lines = f.read().count(b"\n")
        checked += 1
        if lines > limit:
            long_files.append((lines, path.relative_to(root)))
    for lines, path in sorted(long_files, reverse=True):
        print(f"{path}: {lines} lines, more than {limit}: split it where its jobs part")
    print(f"{checked} source files checked, {len(long_files)} longer than {limit} lines")
    return 1 if long_files or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
