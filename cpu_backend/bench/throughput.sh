#!/usr/bin/env bash
# The CPU backend's throughput on the reference solutions: elements per second of one core's time,
# per rung, at 2^20 and 2^24 elements, in the forward and the reverse thread order (one launch each,
# answers checked). Builds lab-cpu-throughput (tests/emulator/throughput.cpp) in build/cpu-solutions,
# the tree ./lab run builds, and passes its arguments on:
#
#   cpu_backend/bench/throughput.sh [--rungs 01,03,12] [--sizes 20,24] [--orders forward,reverse] [--repeat K]
#
# The figure divides by CPU time (all worker threads together), so it holds on a busy machine too;
# LAB_CPU_WORKERS=1 gives the same figure with less noise from other work.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tree="$root/build/cpu-solutions"
if [[ ! -f "$tree/build.ninja" ]]; then
  cmake -S "$root" --preset cpu-solutions >/dev/null
fi
cmake --build "$tree" --target lab-cpu-throughput >/dev/null
# One launch of a slow rung at 2^24 runs longer than the suites' 20 s limit on a busy machine.
LAB_CPU_LAUNCH_SECONDS="${LAB_CPU_LAUNCH_SECONDS:-3600}" exec "$tree/bin/lab-cpu-throughput" "$@"
