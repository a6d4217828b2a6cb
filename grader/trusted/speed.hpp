// TRUSTED SIDE. The speed category of a grading, on a GPU: each rung's runner times its full
// reduction (a row rung: each of its kernels) with nothing else on the GPU, against the kit's
// baseline and the memory ceiling timed here, in a process that loads no submitted code.
#pragma once

#include <string>

#include "builder.hpp"
#include "judge.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// Fills each rung's speed verdict (its points are the rubric's); a rung earns them only once it
// passes every visible case. `work`: where the runs keep their files.
//
// In three steps, so that the GPU does one thing at a time:
// 1. the kit's part, before any runner starts: the ceiling, the kit's baselines (its naive kernels)
//    and the inputs every answer is checked on;
// 2. the runners started together (as many as the GPU's free memory holds): each makes its inputs
//    and loads its kernels, then waits (StartedSpeed); once all of them wait,
// 3. one runner at a time is given the go, times its launches and ends, and its answers are checked.
// A rung's runner therefore never runs while the kit's figures are timed, and no runner launches a
// kernel while another is timed, unless it breaks the protocol; then it slows its own student's
// other rungs and nothing else (every runner of the step is the same submission's).
void grade_speed(Grade& g, const Rubric& rubric, const Built& built, const Limits& limits, const std::string& work);

}  // namespace lab::grading
