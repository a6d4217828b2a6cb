#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (grader/ci/README.md):
# it installs the Debian/Ubuntu packages the kit needs and builds the grader for this machine.
# make-bundle.sh puts it at the bundle's root, beside run_autograder and the kit (kit/).
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
kit="$root/source/kit"
# ./lab installs what is missing as root (with apt-get), then builds its own program.
"$kit/lab" doctor
# Builds lab-grade in the kit's tree for this machine (the CPU backend: Gradescope has no GPU).
"$kit/lab" grade --help >/dev/null
echo "setup.sh: the grader is built in $kit/build"
