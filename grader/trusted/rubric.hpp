// TRUSTED SIDE. The rubric: a TOML file per course (grader/rubric.toml is the default) that says
// how many points each rung's visible cases, hidden cases and speed are worth, how a group of
// cases earns partial credit, the time limits, and what happens without a GPU.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lab::grading {

struct RungPoints {
    double visible = 0, hidden = 0, speed = 0;
};

struct Rubric {
    std::string path, course;
    RungPoints points;                       // the default for every rung
    std::map<std::string, RungPoints> rungs;  // by rung id: every rung of the registry
    bool proportional = true;                // else all_or_nothing
    double case_seconds = 60, rung_seconds = 600;
    // Per runner: CPU seconds of each of its processes, its memory and its processes and threads
    // at once (the last two through a cgroup, where the machine allows one).
    double cpu_seconds = 3600, memory_mib = 8192, processes = 1024;
    bool speed_zero_without_gpu = false;     // else not graded without a GPU
    double cpu_max_n = 262144;               // without a GPU, larger cases are left to the GPU
    std::vector<std::string> cpu_visible_groups, cpu_hidden_groups;  // empty: every group
    std::vector<std::string> gpu_visible_groups, gpu_hidden_groups;

    const RungPoints& for_rung(const std::string& id) const;
};

// Throws std::runtime_error naming the file, the line and the key of what is wrong.
Rubric load_rubric(const std::string& path);

}  // namespace lab::grading
