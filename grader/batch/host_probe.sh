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
#   gpu      a CUDA process (host_probe.cu: its context, 512 MiB allocated and filled, 200 kernels
#            over it, each part timed by the process too): alone; PER_GPU at once on one GPU; then
#            PER_GPU on each GPU at once (the GPUs share nothing on the card, so a slowdown beyond
#            PER_GPU's on one GPU is the host's); with CUDA's 8 work queues a context, then with the
#            one lab-grade gives its runners (a context is made sooner)
#   (and compute-sanitizer memcheck on it the same ways, as the sanitizer category runs its tools)
#   grader/batch/host_probe.sh [-p PER_GPU] [-o FILE]     (PER_GPU default 3, grade-all's)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
per_gpu=3 out=""
while getopts "p:o:" option; do
  case "$option" in
    p) per_gpu="$OPTARG" ;; o) out="$OPTARG" ;;
    *) sed -n '2,19p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
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
  rm -f "$work/times" "$work"/said.*
  local k pids=()
  for ((k = 0; k < copies; k++)); do
    (
      export COPY=$k
      for ((r = 0; r < repeats; r++)); do
        s=$(date +%s%N); "$@" >>"$work/said.$k" 2>>"$work/errors" || echo fail >>"$work/failed"; e=$(date +%s%N)
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
  # A CUDA process (host_probe.cu) says its own two parts: its context (the host's and the driver's)
  # and its kernels (mostly the GPU's).
  cat "$work"/said.* 2>/dev/null | awk '$1 == "context" && $3 == "work" { c += $2; w += $4; n++ }
    END { if (n) printf "  %-34s its context %7.0f ms, its kernels %7.0f ms (means)\n", "", c / n, w / n }'
  if [[ -s $work/failed ]]; then echo "  ($(wc -l <"$work/failed") runs of $name failed: $(sort -u "$work/errors" | head -n 3))"; rm -f "$work/failed"; fi
}
alone() { ALONE=""; run "$@"; ALONE=$(cat "$work/median"); }
# alone_then_many NAME REPEATS COMMAND...: alone, then on a quarter, half and all of the cores at once.
alone_then_many() {
  local name="$1" repeats="$2" n last=1; shift 2
  alone "$name" 1 "$repeats" "$@"
  for n in $((cores / 4)) $((cores / 2)) "$cores"; do
    if ((n > last)); then run "$name" "$n" "$repeats" "$@"; last=$n; fi
  done
}

echo "host: $(uname -r), $cores cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
lscpu 2>/dev/null | grep -E '^(Thread|Core|Socket)' | sed 's/^/  /'

echo "cpu: a loop of arithmetic"
busy() { awk 'BEGIN { for (i = 0; i < 30000000; i++) s += i * 0.5 }'; }
alone_then_many "arithmetic" 3 busy

echo "memory: a process that touches 512 MiB of fresh memory"
touch_memory() { dd if=/dev/zero of=/dev/null bs=512M count=1 status=none; }
alone_then_many "512 MiB touched" 3 touch_memory

echo "spawn: 200 processes one after another"
spawn() { for ((i = 0; i < 200; i++)); do /bin/true; done; }
alone_then_many "200 processes" 2 spawn

echo "disk: 64 MiB written to $(dirname "$work") and synced"
disk() { dd if=/dev/zero of="$work/disk.$COPY" bs=1M count=64 conv=fsync status=none; }
alone_then_many "64 MiB written" 3 disk
rm -f "$work"/disk.*

if command -v bwrap >/dev/null; then
  echo "sandbox: a bubblewrap sandbox started and ended"
  sandbox() { bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent /bin/true; }
  alone_then_many "bubblewrap" 10 sandbox
fi

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if ((gpus == 0)); then echo "gpu: no GPU here"; exit 0; fi
nvcc -O2 -arch=native -o "$work/probe" "$here/host_probe.cu" 2>/dev/null || nvcc -O2 -o "$work/probe" "$here/host_probe.cu" || { echo "gpu: host_probe.cu did not build"; exit 1; }
echo "gpu: a CUDA process (its context, 512 MiB allocated and filled, 200 kernels over it), $gpus GPU(s)"
one_gpu() { CUDA_VISIBLE_DEVICES=0 "$@"; }
each_gpu() { CUDA_VISIBLE_DEVICES=$((COPY % gpus)) "$@"; }
# With CUDA's 8 hardware work queues a context, then with lab-grade's one (grader/trusted/sandbox.cpp):
# a host's driver makes its contexts one at a time, and one with a single queue sooner.
for queues in 8 1; do
  export CUDA_DEVICE_MAX_CONNECTIONS=$queues
  echo " $queues work queue(s) a context (CUDA_DEVICE_MAX_CONNECTIONS=$queues)"
  alone "CUDA process, GPU 0" 1 4 one_gpu "$work/probe" 512 200
  run "CUDA process, GPU 0" "$per_gpu" 4 one_gpu "$work/probe" 512 200
  if ((gpus > 1)); then run "CUDA process, $per_gpu on each GPU" $((per_gpu * gpus)) 4 each_gpu "$work/probe" 512 200; fi
  run "CUDA process, $((per_gpu * gpus)) on GPU 0" $((per_gpu * gpus)) 4 one_gpu "$work/probe" 512 200
done

sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
if [[ -x $sanitizer ]]; then
  echo "compute-sanitizer memcheck on the same process (64 MiB, one kernel), one work queue as a grading's"
  export CUDA_DEVICE_MAX_CONNECTIONS=1  # as lab-grade runs its tools, whatever the loop above left
  alone "memcheck, GPU 0" 1 2 one_gpu "$sanitizer" --tool memcheck "$work/probe" 64
  run "memcheck, GPU 0" "$per_gpu" 2 one_gpu "$sanitizer" --tool memcheck "$work/probe" 64
  if ((gpus > 1)); then run "memcheck, $per_gpu on each GPU" $((per_gpu * gpus)) 2 each_gpu "$sanitizer" --tool memcheck "$work/probe" 64; fi
fi
