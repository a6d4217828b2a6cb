#!/usr/bin/env python3
"""Kit.ShapesInTheirFiles.NewShapeRecipe: what a new rung shape takes, and that Kit.ShapesInTheirFiles
holds a shape to it. In a scratch copy of the files the check reads, a new shape is added as
kit/README.md says (here a row shape whose kernel file is a host class, as a rung that picks its
own launches per row would have): its file in kit/src/shapes/, its line in kShapes
(kit/src/shape.cpp), its glue in harness/src/glue/ and a rung of it in rungs.json. With all four
the check passes; without any one of them it names what is missing; and a switch on the new
shape's name planted in the checker's file is caught.

  new_shape_recipe.py KIT_ROOT SCRATCH
"""
import json
import pathlib
import shutil
import sys

from shapes_in_their_files import problems_of

COPIED = ["rungs.json", "kit/src/shape.cpp", "kit/include/lab/shape.hpp", "kit/src/shapes", "harness/src/glue",
          "harness/src/rung_glue.cu", "harness/src/check.cpp"]
SHAPE_FILE = """// The row_class shape: a host class that launches what it picks for each row operation.
#include "lab/shape.hpp"
namespace lab {
std::shared_ptr<const Shape> read_row_class_shape(RungInfo& rung, const nlohmann::json& entry);
}
"""
GLUE = """// The glue of a row_class rung.
__attribute__((init_priority(60000))) const lab::RungBinding binding{LAB_RUNG_ID, LAB_RUNG_ORIGINAL, {}};
"""
LINE = '    {"rows", &read_rows_shape},\n'


def copy_kit(root, scratch):
    if scratch.exists():
        shutil.rmtree(scratch)
    for rel in COPIED:
        source, target = root / rel, scratch / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copyfile)(source, target)


def add_shape(scratch, file=True, line=True, glue=True, binding=True, rung=True):
    if file:
        (scratch / "kit/src/shapes/row_class.cpp").write_text(SHAPE_FILE)
    if line:
        table = scratch / "kit/src/shape.cpp"
        text = table.read_text()
        assert LINE in text, "kShapes no longer lists rows as this test expects"
        table.write_text(text.replace(LINE, LINE + '    {"row_class", &read_row_class_shape},\n'))
    if glue:
        (scratch / "harness/src/glue/row_class.cuh").write_text(GLUE if binding else "// no binding\n")
    if rung:
        registry = json.loads((scratch / "rungs.json").read_text())
        entry = dict(registry["rungs"][-1], id="99_rows_by_class", shape="row_class")
        entry.pop("form", None)
        registry["rungs"].append(entry)
        (scratch / "rungs.json").write_text(json.dumps(registry, indent=2))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    root, scratch = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    failures = []
    copy_kit(root, scratch)
    known = problems_of(scratch)[1]  # the shapes kShapes lists before the new one

    def expect(what, wanted, **left_out):
        copy_kit(root, scratch)
        add_shape(scratch, **left_out)
        problems, shapes, checked = problems_of(scratch)
        found = [p for p in problems if wanted and wanted in p]
        if wanted is None and (problems or shapes != known + 1 or checked == 0):
            failures.append(f"{what}: expected no problem and {known + 1} shapes, got {shapes} shapes and {problems}")
        elif wanted is not None and not found:
            failures.append(f"{what}: expected a problem naming '{wanted}', got {problems}")
        print(f"{what}: {len(problems)} problem(s)" + (f": {found[0]}" if found else ""))
        return scratch

    expect("the shape's file, its line, its glue and its rung", None)
    expect("no file in kit/src/shapes/", "row_class.cpp does not exist", file=False)
    expect("no line in kShapes", "not in kShapes", line=False)
    expect("no glue", "glue harness/src/glue/row_class.cuh does not exist", glue=False)
    expect("a glue without its binding", "defines no `lab::RungBinding binding`", binding=False)
    expect("a file in kit/src/shapes/ that no rung and no line chose", "has no line in kShapes", line=False, rung=False)
    # The claim itself: nothing else changes. A switch on the new shape in the checker is refused.
    copy_kit(root, scratch)
    add_shape(scratch)
    check = scratch / "harness/src/check.cpp"
    check.write_text(check.read_text() + '\nbool is_row_class(const lab::RungInfo& r) { return r.shape->name() == "row_class"; }\n')
    problems, _, _ = problems_of(scratch)
    if not any("harness/src/check.cpp" in p and "compares a shape's name" in p for p in problems):
        failures.append(f"a switch on the new shape in harness/src/check.cpp went unnoticed: {problems}")
    print(f"a switch on the new shape planted in check.cpp: {len(problems)} problem(s)")
    shutil.rmtree(scratch)
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
