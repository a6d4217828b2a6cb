#!/usr/bin/env python3
"""Kit.ShapesInTheirFiles: a rung's shape is one plug-in (lab/shape.hpp), as CUB's BlockReduce picks
one of its specializations by one enum: a shape is one file and one line, never a switch spread over
the kit. The check reads rungs.json and every C++ and CUDA file of the kit but its tests (comments
left out):

- every rung's "shape" is a file of kit/src/shapes/ with its line in kShapes (kit/src/shape.cpp),
  and every file there has its line; every rung's glue (harness/src/glue/FORM.cuh, FORM being its
  "form" or else its shape) exists and defines the rung's binding;
- outside the shape files (kit/src/shape.cpp, kit/include/lab/shape.hpp, kit/src/shapes/), no code
  asks which shape a rung is: no shape's name compared, no cast to a shape's class, no typeid, and
  none of the switches the shapes replaced (GridPolicy, CheckMode, the glue's LAB_FORM_ sections).

  shapes_in_their_files.py KIT_ROOT
"""
import json
import os
import pathlib
import re
import sys

from one_place import code_of

SHAPE_FILES = ("kit/src/shape.cpp", "kit/include/lab/shape.hpp")
SHAPE_FOLDER = "kit/src/shapes"
ASKS = [
    (re.compile(r"(\.|->)\s*name\s*\(\s*\)\s*[!=]=|[!=]=\s*[\w.>\-]*(\.|->)\s*name\s*\(\s*\)"), "compares a shape's name"),
    (re.compile(r"dynamic_cast\s*<[^>]*Shape"), "casts to a shape's class"),
    (re.compile(r"\btypeid\s*\("), "asks for a type at run time"),
    (re.compile(r"\b(GridPolicy|CheckMode)\b"), "switches on what a rung's shape now says"),
    (re.compile(r"\bLAB_FORM_"), "switches the glue on a form (each form is its own file in harness/src/glue/)"),
]
SOURCES = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".inc"}
SKIPPED = {".git", ".deps", "build", "tests", "corpus"}


def registry_problems(root):
    problems = []
    table = code_of((root / "kit/src/shape.cpp").read_text())
    listed = dict(re.findall(r'\{\s*"(\w+)"\s*,\s*&(read_\w+_shape)\s*\}', table))
    files = {p.stem for p in (root / SHAPE_FOLDER).glob("*.cpp")}
    for name in sorted(files - set(listed)):
        problems.append(f"{SHAPE_FOLDER}/{name}.cpp has no line in kShapes (kit/src/shape.cpp): no rung can choose it")
    for name, reader in sorted(listed.items()):
        path = root / SHAPE_FOLDER / f"{name}.cpp"
        if not path.is_file():
            problems.append(f"kShapes (kit/src/shape.cpp) lists {name}, but {SHAPE_FOLDER}/{name}.cpp does not exist")
        elif not re.search(rf"\b{reader}\s*\(", code_of(path.read_text())):
            problems.append(f"{SHAPE_FOLDER}/{name}.cpp does not define {reader}, kShapes' reader for it")
    for rung in json.loads((root / "rungs.json").read_text())["rungs"]:
        shape = rung.get("shape", "")
        if shape not in listed:
            problems.append(f"rungs.json: rung {rung['id']}'s shape '{shape}' is not in kShapes (kit/src/shape.cpp)")
        form = rung.get("form", shape)
        glue = root / "harness/src/glue" / f"{form}.cuh"
        if not glue.is_file():
            problems.append(f"rungs.json: rung {rung['id']}'s glue harness/src/glue/{form}.cuh does not exist")
        elif not re.search(r"lab::RungBinding\s+binding\b", code_of(glue.read_text())):
            problems.append(f"harness/src/glue/{form}.cuh defines no `lab::RungBinding binding` for rung {rung['id']}")
    if "#include LAB_GLUE" not in (root / "harness/src/rung_glue.cu").read_text():
        problems.append("harness/src/rung_glue.cu no longer includes the form's glue (#include LAB_GLUE)")
    return problems, len(listed)


def kit_files(root):
    """The files under `root`, never entering a skipped folder: a build tree changes while other
    tests run (a release's scratch copy made and removed), and a walk through it could meet a file
    already gone."""
    for folder, folders, files in os.walk(root):
        folders[:] = [f for f in folders if f not in SKIPPED and not f.startswith("build-")]
        for name in files:
            yield pathlib.Path(folder) / name


def problems_of(root):
    """Every problem in the kit at `root`, the number of shapes kShapes lists and of files checked."""
    problems, shapes = registry_problems(root)
    checked = 0
    for path in sorted(kit_files(root)):
        rel = path.relative_to(root)
        if path.suffix not in SOURCES:
            continue
        if not path.is_file() or path.is_symlink():
            continue
        if str(rel) in SHAPE_FILES or str(rel.parent) == SHAPE_FOLDER:
            continue
        checked += 1
        code = code_of(path.read_text(encoding="utf-8", errors="replace"))
        for pattern, what in ASKS:
            for match in pattern.finditer(code):
                line = code.count("\n", 0, match.start()) + 1
                problems.append(f"{rel}:{line} {what}: ask the rung's shape instead (lab/shape.hpp)")
    return problems, shapes, checked


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    problems, shapes, checked = problems_of(pathlib.Path(sys.argv[1]).resolve())
    for line in problems:
        print(line)
    print(f"{shapes} shapes, {checked} files checked, {len(problems)} problems")
    return 1 if problems or checked == 0 or shapes == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
