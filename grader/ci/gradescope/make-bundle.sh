#!/usr/bin/env bash
# Makes the Gradescope autograder bundle: a zip with setup.sh and run_autograder at its root and
# the kit under kit/ (its files as git tracks them, solutions and hidden cases included: Gradescope
# never shows the bundle to students), and the course's rubric as rubric.toml when given.
#   make-bundle.sh OUT.zip [RUBRIC]
set -euo pipefail
out="$(realpath -m "$1")" rubric="${2:-}"
kit="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/kit"
if git -C "$kit" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$kit" ls-files -z --cached --others --exclude-standard | (cd "$kit" && xargs -0 cp --parents -t "$stage/kit")
else
  (cd "$kit" && find . -path ./build -prune -o -path ./.deps -prune -o -type f -print0 | xargs -0 cp --parents -t "$stage/kit")
fi
cp "$kit/grader/ci/gradescope/setup.sh" "$kit/grader/ci/gradescope/run_autograder" "$stage/"
[[ -n "$rubric" ]] && cp "$rubric" "$stage/rubric.toml"
python3 - "$stage" "$out" <<'PY'
import os, sys, zipfile
stage, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for folder, _, files in os.walk(stage):
        for name in sorted(files):
            path = os.path.join(folder, name)
            info = zipfile.ZipInfo.from_file(path, os.path.relpath(path, stage))
            with open(path, "rb") as f:
                z.writestr(info, f.read(), zipfile.ZIP_DEFLATED)  # keeps the executable bits
PY
echo "make-bundle.sh: $out ($(du -h "$out" | cut -f1)); upload it as the assignment's autograder (Ubuntu base image)"
