#!/usr/bin/env bash
# Kit.CheckNamesTheLesson: a kernel that is correct but misses its rung's lesson. ./lab check says
# so, line by line, after "is correct" and before naming the next rung (a student reads the last
# lines first), and ./lab status keeps the note beside the rung. The kernel: rung 02's exercise
# solved with rung 01's index (a thread works where tid is a multiple of 2 * stride), right in every
# case, with most lanes of every warp idle. On a copy of the kit (the CPU backend).
#   check_lesson_test.sh KIT WORK
set -uo pipefail
kit="$1" work="$2"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/kit"
(cd "$kit" && tar --exclude=./build --exclude=./.lab --exclude=./.x --exclude=./.deps --exclude=./.git -cf - .) \
  | tar -xf - -C "$work/kit" || fail "cannot copy the kit to $work/kit"
cd "$work/kit" || exit 1
exercise=exercises/02_strided_index.cu
python3 tests/kit/solve_exercise.py solutions/02_strided_index.cu "$exercise" || fail "cannot write the solved exercise"
python3 - "$exercise" <<'PY' || fail "rung 02's reference no longer has the index this test replaces"
import sys
path = sys.argv[1]
text = open(path).read()
strided = """        const unsigned index = 2 * stride * tid;
        if (index < blockDim.x) {
            partial[index] += partial[index + stride];
        }
"""
interleaved = """        if (tid % (2 * stride) == 0) {
            partial[tid] += partial[tid + stride];
        }
"""
if strided not in text:
    sys.exit(1)
open(path, "w").write(text.replace(strided, interleaved))
PY
LAB_BACKEND=cpu ./lab check 02 >"$work/check.log" 2>&1
code=$?
[[ $code == 0 ]] || fail "./lab check 02 exited with $code on a correct kernel: $(tail -n 20 "$work/check.log")"
line_of() { grep -n -m1 -E -- "$1" "$work/check.log" | cut -d: -f1; }
correct=$(line_of "^rung 02_strided_index is correct") gap=$(line_of "misses what rung 02 teaches")
idle=$(line_of "^  - .*active lanes per warp instruction.*02_strided_index\.cu:[0-9]+") next=$(line_of "^Next: rung 03")
[[ -n $correct && -n $gap && -n $idle && -n $next ]] \
  || fail "./lab check 02 did not say correct / misses the lesson / the idle lanes with their line / Next: $(cat "$work/check.log")"
(( correct < gap && gap < idle && idle < next )) \
  || fail "./lab check 02 named the next rung before the lesson it misses (lines $correct, $gap, $idle, $next): $(cat "$work/check.log")"
LAB_BACKEND=cpu ./lab status --no-run >"$work/status.log" 2>&1 || fail "./lab status failed: $(cat "$work/status.log")"
grep -Eq "02_strided_index +correct, but misses the lesson: .*active lanes" "$work/status.log" \
  || fail "./lab status does not keep the lesson note: $(cat "$work/status.log")"
echo "./lab check 02 and ./lab status name the lesson a correct kernel misses"
