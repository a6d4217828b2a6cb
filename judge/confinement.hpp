// TRUSTED SIDE. How the judge's checker confines each runner it starts: an interface the caller's
// policy fills (the grader's sandbox, grader/trusted/sandbox.hpp), so that the judge never runs a
// submission unconfined and never decides how it is confined.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lab/process.hpp"

namespace lab::judge {

// What one runner may use, all its processes together.
struct RunnerLimits {
    std::uint64_t cpu_seconds = 0;   // per process (RLIMIT_CPU)
    std::uint64_t file_bytes = 0;    // per file written (RLIMIT_FSIZE)
    int processes = 0;               // processes and threads at once (a cgroup's pids.max)
    std::uint64_t memory_bytes = 0;  // all its processes together (a cgroup's memory limit)
};

// One runner's confinement while it runs, made by the caller's policy (the grader's sandbox,
// grader/trusted/sandbox.hpp): the command line that starts it confined, what its process is started
// with, and what stopped it. Lives as long as the child.
class Confinement {
public:
    virtual ~Confinement() = default;
    virtual const std::vector<std::string>& argv() const = 0;
    // Its output into `log` (appended to when `append`), a session of its own, the limits.
    virtual lab::process::Options options(const std::string& log, bool append) const = 0;
    // "" or what stopped it: a limit reached (memory, processes).
    virtual std::string limit_reached() const = 0;
};

// Confines `command`, which may write only in `writable_dir`, within `limits`.
using Confine = std::function<std::unique_ptr<Confinement>(const std::vector<std::string>& command,
                                                           const std::string& writable_dir, const RunnerLimits& limits)>;

}  // namespace lab::judge
