// TRUSTED SIDE. One case's result as the judge's checker decides it (judge/checker.hpp): what the
// grader's reports (grader/trusted/result.hpp, reports.cpp) and its sanitizer category read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lab::judge {

struct CaseResult {
    std::string name;        // "float_n1025_b256"
    std::string group;       // its catalogue group ("edges", "hidden_spikes", ...)
    bool hidden = false;     // from grader/hidden_cases.json: shown to the student without its inputs
    std::string op, input;
    std::uint64_t n = 0, seed = 0, offset = 0;
    unsigned block = 0, grid = 0;
    std::string status;      // "passed", "failed" or "skipped" (not graded here, with the reason)
    std::string message;     // what is wrong, or why it was skipped
    std::string expected, got;  // for a wrong answer: the first wrong slot's
    long first_wrong_block = -1;
    std::string replay;      // one command that replays it on the student's machine
    // How it went under each thread order (the CPU backend's; one order on a GPU), for the
    // sanitizer category: the orders it passed and failed in, whether the block results differed
    // between orders, what the kernel's failure said, and whether it wrote outside its output.
    std::vector<std::string> passed_orders, failed_orders;
    bool orders_differ = false, overran = false;
    std::string kernel_error;
    // The patterns lab/diagnosis.hpp recognised in its failure (reads_past_end, fails_reverse_only,
    // ...): what the class summary groups a class's failures by.
    std::vector<std::string> causes;
    // How it failed, in the words a student's report gives a hidden case ("wrong value", "crash",
    // "time limit", "sanitizer"): set by the grader (grader/trusted/report_facts.hpp, failure_kind)
    // from the fields here, and kept in grade.json, where the fields it is drawn from are not.
    std::string kind;
    double seconds = -1;  // the runner's time in this case (every thread order); -1 when it did not run
    // Failed because the runner was stopped at a limit (time, its folder's disk), or not run after
    // such stops or past the rung's time: not for a wrong answer or a crash. Not in the reports
    // (the message says it); the grader runs no such case again with the GPU alone (gpu_lock.hpp).
    bool at_limit = false;
    // Failed where the GPU's memory ran out: the runner said a cudaMalloc was refused in it
    // (protocol.hpp's refused file), or CUDA's error said out of memory. On a GPU that other
    // gradings share, their kernels can take a case's memory: the grader runs such a case's rung
    // again with the GPU alone (gpu_lock.hpp's run_again_alone). Not in the reports.
    bool memory_refused = false;
};

}  // namespace lab::judge
