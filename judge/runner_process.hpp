// TRUSTED SIDE. Internal to the judge: a runner started in the confinement its caller gives
// (checker.cpp's cases, speed_checker.cpp's speed case), stopped, and how it ended in words. What it
// wrote is read through runner_files.hpp.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "limits.hpp"

namespace lab::judge {

using Clock = std::chrono::steady_clock;

// `command` confined as `limits` say, writing only in `dir`: never unconfined.
std::unique_ptr<Confinement> confined(const std::vector<std::string>& command, const std::string& dir, const Limits& limits);

struct Child {
    pid_t pid = -1;
    Clock::time_point started;
    std::unique_ptr<Confinement> sandbox;  // its confinement (limits, cgroup), as long as it runs
};

// `runner REQUEST DIR FIRST`, confined (the grader's sandbox), where only `dir` is writable; its
// output goes to dir/runner.log. pid < 0 when it could not be started.
Child start_runner(const std::string& runner, const std::string& request, const std::string& dir, const std::string& first,
                   const Limits& limits);
// Stops it, and every process it started.
void kill_runner(Child& child);
// How it ended (waitpid's `status`), in words: a limit its sandbox reached, a signal, an exit code.
std::string describe_exit(int status, const Child& child);
// Whether it was killed for its CPU time (RLIMIT_CPU's SIGXCPU, itself or as its sandbox reports it):
// a limit, like the time limit (the CPU backend's endless kernel spins every core it has).
bool killed_for_cpu_time(int status);

}  // namespace lab::judge
