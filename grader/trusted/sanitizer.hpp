// TRUSTED SIDE. The sanitizer category: an untimed pass over a few small visible cases of a rung,
//  - on a GPU, under compute-sanitizer's tools (memcheck, racecheck, synccheck; the rubric's
//    [sanitizer].tools), each run with --error-exitcode (the tool exits 0 by default, whatever it
//    finds) and its log's summary line read as well ("ERROR SUMMARY: 1 error", "RACECHECK SUMMARY:
//    2 hazards displayed (1 error, 1 warning)"): a finding when either says so, or when the tool
//    never got to its summary;
//  - everywhere, under every thread order of the kit's CPU backend (on a GPU machine, from a second
//    build of the same file for the CPU backend): a result that depends on the order the threads
//    run in, a barrier some threads never reach, an access out of bounds. racecheck alone misses
//    the race of `partial[tid] += partial[tid + 16]; __syncwarp();` (one statement's read and write
//    in different lanes); the thread orders do not.
// Each finding names the file and line where the tool gives one, the check, and what it saw.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "judge.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// What one tool's log says.
struct ToolLog {
    bool summary = false;  // its summary line was there (a run cut short has none)
    long count = 0;        // errors (memcheck, synccheck) or hazards (racecheck), errors and warnings together
    std::vector<std::string> reports;    // the first line of each report ("Invalid __global__ write of size 4 bytes")
    std::vector<std::string> locations;  // "exercises/05_unroll_last_warp.cu:41", each once, in order
};

// `submitted`: the paths the compilers saw the student's file under, each shown as `shown_as`.
ToolLog read_tool_log(const std::string& log, const std::vector<std::string>& submitted, const std::string& shown_as);

// The pass's cases: the rung's visible cases run here of at most max_n elements, one per group first,
// then the largest others, at most `cases` in all.
std::vector<PlannedCase> sanitizer_cases(const std::vector<PlannedCase>& planned, const SanitizerRules& rules);

// compute-sanitizer on PATH or beside nvcc; "" when there is none.
std::string compute_sanitizer();

struct SanitizerRun {
    std::string tool_path;               // compute-sanitizer ("" on the CPU backend)
    std::vector<std::string> tools;      // the rubric's
    std::string runner;                  // the GPU runner (tools)
    std::string cpu_runner;              // the CPU backend's runner (thread orders); "" when none
    std::string cpu_missing;             // why there is none
    std::vector<std::string> orders;     // the CPU backend's thread orders
    std::vector<std::string> submitted;  // the paths the compilers saw the file under
    // Called before the thread orders (which run beside the tools), to fill in cpu_runner,
    // cpu_missing and the CPU tree's paths: on a GPU, the CPU backend's build may still be running,
    // and only the orders wait for it.
    std::function<void(SanitizerRun&)> before_orders;
};

// The pass for `rung` is two halves, each filling its own result; work files go under `work_dir`.
// The tools run the GPU runner under compute-sanitizer (nothing on the CPU backend); the thread
// orders run the CPU backend's runner, on the CPU alone, and may run after the GPU is let go.
void run_sanitizer_tools(const RungInfo& rung, const SanitizerRun& run, const std::vector<PlannedCase>& cases,
                         const Limits& limits, const std::string& work_dir, SanitizerResult& result);
void run_sanitizer_orders(const RungInfo& rung, const SanitizerRun& run, const std::vector<PlannedCase>& cases,
                          const Limits& limits, const std::string& work_dir, SanitizerResult& result);
// The pass's result: what the orders found after what the tools found.
void append(SanitizerResult& tools, SanitizerResult orders);

}  // namespace lab::grading
