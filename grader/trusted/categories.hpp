// TRUSTED SIDE. The two categories of a grading that come after its cases (see grader/README.md):
// speed, on a GPU (each rung's runner times its full reduction with nothing else on the GPU,
// against the kit's baseline and the memory ceiling timed here, in a process that loads no
// submitted code), and the sanitizer (compute-sanitizer's tools on a GPU, the CPU backend's thread
// orders everywhere).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "builder.hpp"
#include "checker.hpp"
#include "plan.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// The device graded on, as reports name it.
std::string device_name();

// Fills each rung's speed verdict (its points are the rubric's); a rung earns them only once it
// passes every visible case. `work`: where the runs keep their files.
void grade_speed(Grade& g, const Rubric& rubric, const Built& built, const Limits& limits, const std::string& work);

// The sanitizer category (sanitizer.hpp): for each rung that passes every visible case (or every
// rung that built, when the rubric takes a penalty), an untimed pass over a few small cases.
void grade_sanitizer(Grade& g, const Rubric& rubric, const Built& built,
                     const std::map<std::string, std::vector<PlannedCase>>& planned,
                     const std::map<std::string, std::string>& files, Limits limits, const std::string& work, int jobs);

}  // namespace lab::grading
