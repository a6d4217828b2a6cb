#!/usr/bin/env python3
"""Kit.NoIncludePairs: no two parts of the kit include each other. A part is a file with its
suffix taken off (a header and its source, checker.hpp and checker.cpp, are one part); part A
includes part B when any file of A includes a file of B, resolved as the compiler would
(folder_includes.py). Two parts that include each other are one job cut in two, or share a piece
that belongs in a third part: each pair is named, with the includes that make it.

  include_pairs.py KIT_ROOT
"""
import pathlib
import sys

sys.dont_write_bytecode = True  # (no __pycache__ in the kit's tests folder)
from folder_includes import includes  # noqa: E402 (beside this file)


def part(root, path):
    return str(path.relative_to(root).with_suffix(""))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    edges, checked = {}, 0  # (part, included part) -> the includes that make it
    for _, source, name, found in includes(root):
        if found is None or not found.is_relative_to(root):
            continue
        checked += 1
        a, b = part(root, source), part(root, found)
        if a != b:
            edges.setdefault((a, b), []).append(f"{source.relative_to(root)} includes \"{name}\"")
    pairs = sorted((a, b) for (a, b) in edges if a < b and (b, a) in edges)
    for a, b in pairs:
        print(f"{a} and {b} include each other: " + "; ".join(edges[(a, b)] + edges[(b, a)]))
    print(f"{checked} includes checked, {len(pairs)} pairs of parts that include each other")
    return 1 if pairs or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
