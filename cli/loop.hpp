// The student's loop (./lab check NN) on a rung whose suites program is built: see loop.cpp.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "lab/registry.hpp"
#include "lab/rung_tests.hpp"
#include "lab/test_results.hpp"

namespace lab::cli {

struct Loop {
    const RungInfo* rung = nullptr;
    std::string program;    // the rung's suites program (the judge), its runner beside it
    bool cpu = false;       // the CPU backend: no speed case
    std::string log;        // what the program printed, the last stage's (kept for a failure)
    std::string case_name;  // that case alone, with all it printed
    std::string progress;   // the verdict as JSON, for ./lab status ("" for none)
    std::string stamp;      // the exercise file's fingerprint, written with the verdict
    // The CPU backend's sample of the larger cases (lab::cpu_sample: one of each shape), by this
    // seed as ./lab run prints it; "" runs every case.
    std::string sample;
    // Run once the small cases pass, beside the larger ones (another thread), and waited for before
    // the rung is correct: the rung's nvcc check where it is a target apart (check.cpp). It throws,
    // with nvcc's error, where nvcc refuses the kernel.
    std::function<void()> beside_larger;
    // Run once the rung is correct, before the next rung is named: where the kernel misses the rung's
    // lesson, a line each (check.cpp: measured beside the reference on the CPU backend). The lines are
    // printed and kept with the verdict, for ./lab status.
    std::function<std::vector<std::string>()> lesson_gaps;
};

// The loop's report goes to `out`; its exit status: 0 correct (and on a GPU fast enough), 1 not,
// 2 for a case the rung has not.
int student_loop(const Loop& loop, std::ostream& out);

}  // namespace lab::cli
