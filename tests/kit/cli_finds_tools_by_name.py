#!/usr/bin/env python3
"""Kit.CliFindsToolsByName: the ./lab program (cli/) knows no folder of the build tree. Every program
the build makes lies in build/PRESET/bin/ (the top CMakeLists.txt), and cli/ names one only by its
name, through Kit::program; so moving a tool's sources from one folder of the kit to another changes
nothing in cli/. A string literal in cli/'s C++ (comments and #include lines left out) fails when it holds a path to a
program of the build ("judge/lab-case", "grader/lab-summary", "/tests/test_"), or is a folder of the
kit's sources that builds programs, joined with a name ("harness/explain/" + ...). The programs'
names are read from the kit's CMake files (add_executable, and the helpers that make the suites and
explain programs).

  cli_finds_tools_by_name.py KIT_ROOT
"""
import pathlib
import re
import sys

sys.dont_write_bytecode = True  # (no __pycache__ in the kit's tests folder)
from one_place import code_of  # noqa: E402 (beside this file)

FOLDERS = ("kit", "cpu_backend", "harness", "judge", "tests", "grader", "authoring", "cli")
MAKERS = re.compile(r"\b(?:add_executable|lab_add_suites_program|lab_add_explain_program)\(\s*([A-Za-z0-9_${}.-]+)")
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*\+)?')


def program_prefixes(root):
    """The start of every program's name the build makes, up to its first variable: lab-grade,
    lab-explain-, test_, mutant_, ..."""
    prefixes = set()
    for cmake in list(root.rglob("CMakeLists.txt")) + list((root / "cmake").glob("*.cmake")):
        if any(p in ("build", ".deps") or p.startswith("build-") for p in cmake.relative_to(root).parts):
            continue
        for name in MAKERS.findall(cmake.read_text(errors="replace")):
            prefix = name.split("$")[0]
            if len(prefix) >= 4:
                prefixes.add(prefix)
    return prefixes


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    prefixes = program_prefixes(root)
    built_in = re.compile(r"(^|/)(" + "|".join(FOLDERS) + r")(/[\w.-]+)*/$")
    problems, checked = [], 0
    for source in sorted((root / "cli").glob("*.[ch]pp")):
        for number, line in enumerate(code_of(source.read_text(errors="replace")).splitlines(), 1):
            if line.lstrip().startswith("#include"):
                continue
            for literal, joined in LITERAL.findall(line):
                checked += 1
                named = [p for p in prefixes if "/" + p in literal]
                if named or (joined and built_in.search(literal)):
                    problems.append(f"cli/{source.name}:{number}: \"{literal}\" is a path to a program of the build: "
                                    "name it by its name alone (Kit::program)")
    for p in problems:
        print(p)
    print(f"{checked} string literals of cli/ checked against {len(prefixes)} programs' names, {len(problems)} paths")
    return 1 if problems or checked == 0 or not prefixes else 0


if __name__ == "__main__":
    sys.exit(main())
