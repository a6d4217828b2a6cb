#!/usr/bin/env bash
# Makes a class for grade-all's tests from the corpus (grader/corpus/): one folder per student.
#   make_class.sh KIT CLASS ENTRY[:ID] ...    (ID defaults to the entry's name)
# ENTRY:ID.tar.gz makes the student's submission a .tar.gz instead of a folder.
set -euo pipefail
kit="$1" class="$2"
shift 2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$class"
for spec in "$@"; do
  entry="${spec%%:*}" id="${spec#*:}"
  [[ "$spec" == *:* ]] || id="$entry"
  cmake -DNAME="$entry" -DKIT="$kit" -DWORK="$work/$entry" -DONLY_MAKE=ON -P "$kit/grader/corpus/grade_corpus.cmake"
  if [[ "$id" == *.tar.gz ]]; then
    tar -czf "$class/$id" -C "$work/$entry/submission" exercises
  else
    rm -rf "${class:?}/$id"
    cp -r "$work/$entry/submission" "$class/$id"
  fi
done
