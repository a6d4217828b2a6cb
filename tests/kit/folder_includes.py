#!/usr/bin/env python3
"""Kit.FolderIncludes: the kit's folders include one way (kit/README.md). Every #include "..." of
every C++/CUDA file under the checked folders is resolved the way the compiler would (the file's
own folder first, then each folder's include/), and the folder it lands in must be one the
including folder may use. A header found in no folder fails too, and so does an include that
reaches a folder no rule names. A folder missing from ALLOWED is not itself checked: a new
component folder needs its rule here.

  folder_includes.py KIT_ROOT
"""
import pathlib
import re
import sys

# What each folder may include from, besides itself.
ALLOWED = {
    "kit": set(),
    "cpu_backend": set(),
    "harness": {"kit", "cpu_backend"},
    "judge": {"kit", "harness", "cpu_backend"},
    "tests": {"kit", "harness", "cpu_backend", "judge", "cli", "authoring"},  # the kit's own tests of those tools
    "grader": {"kit", "harness", "cpu_backend", "judge", "authoring"},
    "authoring": {"kit", "harness", "cpu_backend"},
    "cli": {"kit"},
}
# The folders a folder's targets put on the include path besides its own files' (CMakeLists.txt).
EXTRA = {
    "grader": ["grader", "grader/trusted", "grader/batch", "judge", "authoring"],
    "tests": ["cli", "authoring", "judge"],
    "judge": ["judge"],
}
PUBLIC = ["kit/include", "harness/include", "cpu_backend/include", "cpu_backend/include/lab/cpu/cuda"]
SOURCES = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def owner(root, path):
    return path.relative_to(root).parts[0]


def includes(root):
    """(folder, source, name, found) for every #include "..." of every checked file: `found` the file
    it resolves to (resolved), or None when no folder holds it."""
    for folder in ALLOWED:
        for source in sorted((root / folder).rglob("*")):
            if source.suffix not in SOURCES or not source.is_file() or "corpus" in source.parts:
                continue
            for name in INCLUDE.findall(source.read_text(errors="replace")):
                candidates = [source.parent / name] + [root / p / name for p in PUBLIC]
                candidates += [root / p / name for p in EXTRA.get(folder, [])]
                found = next((c.resolve() for c in candidates if c.is_file()), None)
                yield folder, source, name, found


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    problems, checked = [], 0
    for folder, source, name, found in includes(root):
        checked += 1
        where = f"{source.relative_to(root)}: #include \"{name}\""
        if found is None:
            problems.append(f"{where} is found in no folder of the kit")
            continue
        to = owner(root, found)
        if to != folder and to not in ALLOWED[folder]:
            problems.append(f"{where} reaches {to}/, which {folder}/ may not include from")
    for line in problems:
        print(line)
    print(f"{checked} includes checked, {len(problems)} against the folders' direction")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
