// TRUSTED SIDE. A cgroup for each confined build or runner: a cap on its processes and threads (a
// fork bomb stops at it) and on its memory (a runaway allocation is killed at it, not the machine's
// other work), where this machine lets the grader make one: cgroup v2, or v1's pids and memory
// hierarchies. Root's RLIMIT_NPROC does not count, and RLIMIT_AS breaks CUDA (it reserves host
// address space of about twice the GPU's memory), so a cgroup is the only sound way to do either.
// It also counts the CPU time of everything in it (cgroup v2's cpu.stat, v1's cpuacct), which
// reaching the sandbox's command through wait4 cannot: bubblewrap reaps it in a PID namespace of
// its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lab::grading {

struct CgroupLimits {
    int processes = 0;              // pids.max: processes and threads together; 0 leaves it
    std::uint64_t memory_bytes = 0; // memory.max (v2) or memory.limit_in_bytes (v1); 0 leaves it
};

// Whether this machine lets the grader cap processes and memory: "" for each it can, else why not.
// Found once, by making a cgroup and setting its limit.
struct CgroupSupport {
    std::string processes, memory;
};
const CgroupSupport& cgroup_support();

class Cgroup {
public:
    // Made with the limits this machine supports (see cgroup_support); none when it supports none.
    explicit Cgroup(const CgroupLimits& limits);
    // Kills whatever is still in it and removes it; what it spent on the CPU counts to the account
    // that was the making thread's (lab::process::add_cpu).
    ~Cgroup();
    Cgroup(const Cgroup&) = delete;
    Cgroup& operator=(const Cgroup&) = delete;

    // The folders a child joins (lab::process::Options::cgroups).
    const std::vector<std::string>& folders() const { return folders_; }
    // What stopped it, if a limit did: "" or a sentence ("it went over the memory limit of 512 MiB").
    std::string limit_reached() const;
    // Whether it counts its processes' CPU time (then a child's wait4 time is not counted again:
    // lab::process::Options::cpu_counted_elsewhere).
    bool counts_cpu() const { return !cpu_dir_.empty(); }

private:
    CgroupLimits limits_;
    std::vector<std::string> folders_;
    std::string pids_dir_, memory_dir_;
    bool memory_v2_ = false;
    std::string cpu_dir_;  // cpu.stat's folder (v2) or cpuacct's (v1); "" when none could be made
    bool cpu_v2_ = false;
    std::string account_;  // lab::process's account its CPU time counts to
};

}  // namespace lab::grading
