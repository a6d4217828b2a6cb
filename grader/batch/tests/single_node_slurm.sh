#!/usr/bin/env bash
# A Slurm cluster of one machine, for grade-all --slurm's test (and to try --slurm without a
# cluster): munge, a controller and one node, all running as root out of DIR.
#   single_node_slurm.sh start DIR    # prints: export SLURM_CONF=DIR/slurm.conf
#   single_node_slurm.sh stop DIR
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge; as root with apt-get it
# installs them. Exits 77 (ctest's skip) when it cannot, saying why.
set -euo pipefail
action="$1" dir="$2"
skip() { echo "SKIPPED: $*" >&2; exit 77; }

stop() {
  for f in slurmd slurmctld munged; do
    [[ -f "$dir/$f.pid" ]] && kill "$(cat "$dir/$f.pid")" 2>/dev/null || true
  done
  sleep 1
  for f in slurmd slurmctld munged; do
    [[ -f "$dir/$f.pid" ]] && kill -9 "$(cat "$dir/$f.pid")" 2>/dev/null || true
    rm -f "$dir/$f.pid"
  done
}
if [[ "$action" == stop ]]; then stop; exit 0; fi

[[ "$(id -u)" == 0 ]] || skip "a single-node Slurm needs root here (slurmd runs jobs as their users)"
packages=()
command -v slurmctld >/dev/null || packages+=(slurmctld)
command -v slurmd >/dev/null || packages+=(slurmd)
command -v sbatch >/dev/null || packages+=(slurm-client)
command -v munged >/dev/null || packages+=(munge)
if [[ ${#packages[@]} -gt 0 ]]; then
  command -v apt-get >/dev/null || skip "missing ${packages[*]}, and no apt-get to install them"
  echo "installing ${packages[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${packages[@]}" >"$dir.apt.log" 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$dir.apt.log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${packages[@]}" >>"$dir.apt.log" 2>&1; } ||
    skip "apt-get could not install ${packages[*]} (see $dir.apt.log): apt-get install ${packages[*]}"
fi

# munge's socket path may be at most 108 bytes: a cluster in a deep folder cannot have it there.
[[ ${#dir} -le 80 ]] || { echo "single_node_slurm.sh: $dir is too long a path for munge's socket (108 bytes at most); use a short one, such as one from mktemp -d" >&2; exit 1; }
stop
rm -rf "$dir" && mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 700 "$dir" "$dir/munge"
# munge: a fresh key, its own socket.
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none && chmod 400 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"
# Two free ports for the controller and the node.
read -r ctld_port slurmd_port < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
host="$(hostname -s)"
memory=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
cat >"$dir/slurm.conf" <<CONF
ClusterName=labgrade
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$memory State=UNKNOWN
PartitionName=grading Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qE '^idle'; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 1
done
echo "the single-node Slurm did not come up; its logs:" >&2
tail -20 "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/munged.log" >&2 || true
stop
exit 1
