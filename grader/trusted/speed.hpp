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
// passes every visible case. `work`: where the runs keep their files. The cases are timed by the
// judge (judge/speed_case.hpp: the kit's part first, then each runner in turn with nothing else on
// the GPU), as the suites' speed test times them; the verdict of each is judge_speed's.
void grade_speed(Grade& g, const Rubric& rubric, const Built& built, const Limits& limits, const std::string& work);

}  // namespace lab::grading
