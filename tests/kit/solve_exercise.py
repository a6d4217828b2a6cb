#!/usr/bin/env python3
"""Writes a rung's exercise as a student who solved it leaves it: the reference solution without
its TODO regions' markers, instructions and stubs.
    solve_exercise.py SOLUTION OUT   (solutions/NN_name.cu -> exercises/NN_name.cu)"""
import sys

out, in_instructions = [], False
for line in open(sys.argv[1]):
    text = line.strip()
    if text.startswith('// BEGIN TODO('):
        in_instructions = True
        continue
    if in_instructions and text.startswith('//   '):
        continue
    in_instructions = False
    if text.startswith('// STUB') or text.startswith('// END TODO'):
        continue
    out.append(line)
open(sys.argv[2], 'w').write(''.join(out))
