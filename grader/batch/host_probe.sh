#!/usr/bin/env bash
# What the gradings of a class share on this host, beside their GPU: a few seconds of probes that
# say whether many gradings at once slow each other down, and where. Each probe runs one piece of
# work alone, then many copies at once, and prints the median time of a piece and how many times
# slower than alone it got (1.0 is no sharing). Not a test: it asserts nothing, it measures.
#   cpu      a loop of arithmetic (awk): the cores themselves (hyperthreads, a VM's share)
#   memory   a process filling 512 MiB of memory it has just been given (a VM's host may back
#            its memory only when first touched, one process of the host for all the gradings)
#   spawn    200 short processes one after another: process creation (the grader starts thousands)
#   disk     64 MiB written and synced in /tmp, where the gradings' sandboxes and files are
#   sandbox  a bubblewrap sandbox started and ended, as the grader does for each runner and build
#   gpu      a CUDA process (host_probe.cu: its context, 512 MiB allocated and filled, a kernel):
#            alone; PER_GPU at once on one GPU; then PER_GPU on each GPU at once (the GPUs share
#            nothing on the card, so a slowdown beyond PER_GPU's on one GPU is the host's)
#   (and compute-sanitizer memcheck on it the same ways, as the sanitizer category runs its tools)
#   grader/batch/host_probe.sh [-p PER_GPU] [-o FILE]     (PER_GPU default 3, grade-all's)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
per_gpu=3 out=""
while getopts "p:o:" option; do
  case "$option" in
    p) per_gpu="$OPTARG" ;; o) out="$OPTARG" ;;
    *) sed -n '2,18p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
  esac
done
[[ $per_gpu =~ ^[1-9][0-9]?$ ]] || { echo "host_probe: -p takes the processes a GPU, from 1 to 99, not '$per_gpu'" >&2; exit 2; }
if [[ -n $out ]]; then
  { : >"$out"; } 2>/dev/null || { echo "host_probe: cannot write $out" >&2; exit 2; }
  exec > >(tee "$out")
fi
work="$(mktemp -d /tmp/host-probe.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cores=$(nproc)

# run NAME COPIES REPEATS COMMAND...: COPIES copies at once, each running COMMAND REPEATS times;
# the median and the longest milliseconds of one run of COMMAND. Copy K has $COPY=K (from 0).
run() {
  local name="$1" copies="$2" repeats="$3"; shift 3
  rm -f "$work/times"
  local k pids=()
  for ((k = 0; k < copies; k++)); do
    (
      export COPY=$k
      for ((r = 0; r < repeats; r++)); do
        s=$(date +%s%N); "$@" >/dev/null 2>>"$work/errors" || echo fail >>"$work/failed"; e=$(date +%s%N)
        echo $(((e - s) / 1000000)) >>"$work/times"
      done
    ) &
    pids+=($!)
  done
  wait "${pids[@]}"  # these copies only: a bare wait would wait for -o's tee too, which never ends
  sort -n "$work/times" | awk -v name="$name" -v copies="$copies" -v alone="${ALONE:-0}" '
    { t[NR] = $1 } END {
      median = t[int((NR + 1) / 2)]
      if (alone > 0) slower = sprintf("%.2fx", median / alone); else slower = "-"
      printf "  %-34s %4d at once   median %7d ms   longest %7d ms   %s\n", name, copies, median, t[NR], slower
      print median > "/dev/stderr"
    }' 2>"$work/median"
  if [[ -s $work/failed ]]; then echo "  ($(wc -l <"$work/failed") runs of $name failed: $(sort -u "$work/errors" | head -n 3))"; rm -f "$work/failed"; fi
}
alone() { ALONE=""; run "$@"; ALONE=$(cat "$work/median"); }

echo "host: $(uname -r), $cores cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
lscpu 2>/dev/null | grep -E '^(Thread|Core|Socket)' | sed 's/^/  /'

echo "cpu: a loop of arithmetic"
busy() { awk 'BEGIN { for (i = 0; i < 30000000; i++) s += i * 0.5 }'; }
alone "arithmetic" 1 3 busy
for n in $((cores / 4)) $((cores / 2)) "$cores"; do ((n > 1)) && run "arithmetic" "$n" 3 busy; done

echo "memory: a process that touches 512 MiB of fresh memory"
touch_memory() { dd if=/dev/zero of=/dev/null bs=512M count=1 status=none; }
alone "512 MiB touched" 1 3 touch_memory
for n in $((cores / 4)) "$cores"; do ((n > 1)) && run "512 MiB touched" "$n" 3 touch_memory; done

echo "spawn: 200 processes one after another"
spawn() { for ((i = 0; i < 200; i++)); do /bin/true; done; }
alone "200 processes" 1 2 spawn
for n in $((cores / 4)) "$cores"; do ((n > 1)) && run "200 processes" "$n" 2 spawn; done

echo "disk: 64 MiB written to $(dirname "$work") and synced"
disk() { dd if=/dev/zero of="$work/disk.$COPY" bs=1M count=64 conv=fsync status=none; }
alone "64 MiB written" 1 3 disk
for n in $((cores / 4)) "$cores"; do ((n > 1)) && run "64 MiB written" "$n" 3 disk; done
rm -f "$work"/disk.*

if command -v bwrap >/dev/null; then
  echo "sandbox: a bubblewrap sandbox started and ended"
  sandbox() { bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent /bin/true; }
  alone "bubblewrap" 1 10 sandbox
  for n in $((cores / 4)) "$cores"; do ((n > 1)) && run "bubblewrap" "$n" 10 sandbox; done
fi

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if ((gpus == 0)); then echo "gpu: no GPU here"; exit 0; fi
nvcc -O2 -arch=native -o "$work/probe" "$here/host_probe.cu" 2>/dev/null || nvcc -O2 -o "$work/probe" "$here/host_probe.cu" || { echo "gpu: host_probe.cu did not build"; exit 1; }
echo "gpu: a CUDA process (context, 512 MiB allocated and filled, a kernel), $gpus GPU(s)"
one_gpu() { CUDA_VISIBLE_DEVICES=0 "$work/probe" 512; }
each_gpu() { CUDA_VISIBLE_DEVICES=$((COPY % gpus)) "$work/probe" 512; }
alone "CUDA process, GPU 0" 1 4 one_gpu
run "CUDA process, GPU 0" "$per_gpu" 4 one_gpu
if ((gpus > 1)); then run "CUDA process, $per_gpu on each GPU" $((per_gpu * gpus)) 4 each_gpu; fi
run "CUDA process, $((per_gpu * gpus)) on GPU 0" $((per_gpu * gpus)) 4 one_gpu
# Their own split, the context's part (the host's and the driver's) and the work's (the GPU's: 200
# kernels reading and writing 512 MiB, some 70 ms alone on an H100), alone, PER_GPU on one GPU, PER_GPU on each.
context_and_work() {
  local copies="$1" spread="$2" k pids=()
  rm -f "$work"/split.*
  for ((k = 0; k < copies; k++)); do
    CUDA_VISIBLE_DEVICES=$((spread ? k % gpus : 0)) "$work/probe" 512 200 >"$work/split.$k" & pids+=($!)
  done
  wait "${pids[@]}"
  cat "$work"/split.* | awk -v what="$3" '{ c += $2; w += $4; n++ }
    END { if (n) printf "  %-34s the context %6.0f ms, 200 kernels %6.0f ms (means)\n", what, c / n, w / n }'
}
context_and_work 1 0 "alone"
context_and_work "$per_gpu" 0 "$per_gpu on GPU 0"
if ((gpus > 1)); then context_and_work $((per_gpu * gpus)) 1 "$per_gpu on each of $gpus GPUs"; fi

sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
if [[ -x $sanitizer ]]; then
  echo "compute-sanitizer memcheck on the same process (64 MiB)"
  checked_one() { CUDA_VISIBLE_DEVICES=0 "$sanitizer" --tool memcheck "$work/probe" 64; }
  checked_each() { CUDA_VISIBLE_DEVICES=$((COPY % gpus)) "$sanitizer" --tool memcheck "$work/probe" 64; }
  alone "memcheck, GPU 0" 1 2 checked_one
  run "memcheck, GPU 0" "$per_gpu" 2 checked_one
  if ((gpus > 1)); then run "memcheck, $per_gpu on each GPU" $((per_gpu * gpus)) 2 checked_each; fi
fi
