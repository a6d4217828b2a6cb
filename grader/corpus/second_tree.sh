#!/usr/bin/env bash
# Kit.Grader.SecondTree: the second grading tree, BUILD-worker-1 (the tree in which grade-all's
# second worker grades), configured the first time and its lab-grade brought up to date. A tree
# grades one submission at a time, so on the CPU backend half of the corpus is graded there, beside
# the other half here (grader/CMakeLists.txt). Beside BUILD, at its depth under the kit, so that
# ./lab's compiler cache serves it.
#   second_tree.sh BUILD
set -uo pipefail
build="$1" tree="$1-worker-1"
log="$tree.build.log"
[[ -f "$build/grading/node-tree.args" ]] || { echo "FAILED: $build/grading/node-tree.args is missing (is $build a build tree of the kit?)"; exit 1; }
if [[ ! -f "$tree/CMakeCache.txt" ]]; then
  mapfile -t args <"$build/grading/node-tree.args"
  cmake "${args[@]}" -B "$tree" >"$log" 2>&1 || { tail -n 40 "$log"; echo "FAILED: $tree could not be configured (see $log)"; exit 1; }
fi
cmake --build "$tree" --target lab-grade >>"$log" 2>&1 || { tail -n 40 "$log"; echo "FAILED: $tree's lab-grade did not build (see $log)"; exit 1; }
echo "the second grading tree $tree is up to date"
