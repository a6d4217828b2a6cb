// TRUSTED SIDE. A rung's speed cases timed through its runner, with the kit's figures they are held
// against: the one way a speed case is measured, for the grader's speed part (grader/trusted/
// speed.cpp) and the suites' speed test (tests/support/suite.cpp) alike. The process that calls it
// loads no student code; it times the kit's baseline and this GPU's ceiling itself, and checks every
// answer the runner hands back (speed_checker.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker.hpp"
#include "lab/registry.hpp"
#include "lab/speed_plan.hpp"

namespace lab::judge {

// One speed case to time: a rung's full reduction (`op` empty; a driver rung's `scheme`), or one of a
// row rung's kernels, launched with `block` threads a block. After time_speed_cases: its figures in
// `m` (time, the kit's baseline, the ceiling, the CPU loop, GB/s), or in `m.wrong` what went wrong
// (an answer, the runner, the kit's own kernel), and how long each part took.
struct SpeedCaseRun {
    const RungInfo* rung = nullptr;
    std::string runner;  // the rung's runner (judge/untrusted/runner.cpp linked with its kernel)
    unsigned block = 0;
    std::string scheme, op;

    SpeedMeasurement m;
    double kit_seconds = 0;             // the kit's part: its inputs, its baseline and the ceiling timed
    double running = 0, checking = 0;   // the runner's, from its go to its end; the checks after it
    std::string key() const { return SpeedPlan::key_of(rung->id, op); }
};

// Times each case, on a GPU, in three steps, so that the GPU does one thing at a time:
// 1. the kit's part, before any runner starts: the ceiling, the kit's baselines (its naive kernels)
//    and the inputs every answer is checked on (every full reduction's are the same, from `seed`; a
//    row kernel's its own);
// 2. the runners started together (as many as half the GPU's free memory holds): each makes its
//    inputs and loads its kernels, then waits (StartedSpeed); once all of them wait,
// 3. one runner at a time is given the go, times its launches and ends, and its answers are checked.
// A runner therefore never runs while the kit's figures are timed, and no runner launches a kernel
// while another is timed, unless it breaks the protocol; then it slows its own cases and nothing else.
// Each runner gets `limits`' case_seconds to get ready and again from its go; its files go under
// `work` (one folder a case).
void time_speed_cases(std::vector<SpeedCaseRun>& cases, std::uint64_t seed, const Limits& limits, const std::string& work);

}  // namespace lab::judge
