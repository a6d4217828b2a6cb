// TRUSTED SIDE. A speed case's verdict from what was measured: the one place that decides whether a
// rung is fast enough, and says against which thresholds. The grader's speed part (grader/trusted/
// speed.cpp) and the suites' speed test (tests/support/suite.cpp) both measure through speed_case.hpp
// and judge through it, so a kernel's speed passes or fails alike whichever of the two took it.
#pragma once

#include <string>

#include "lab/speed_plan.hpp"

namespace lab::judge {

// The most of this GPU's ceiling, measured in the same run, a rung may reach. Faster than reading
// its input at that bandwidth is not a speed-up but a sign that work was skipped (elements left
// out, an earlier result handed back): the measurement is not trusted, and the case fails. The
// ceiling itself varies by a few percent from run to run, hence the margin.
constexpr double kMostOfTheCeiling = 1.15;
// What both judges say of a speed past kMostOfTheCeiling.
constexpr const char* kNotTrusted = "faster than this GPU can read its input, so the measurement is not trusted";

struct SpeedJudgement {
    AppliedThresholds thresholds;  // what this GPU requires of the case, and where that came from
    bool plausible = false;        // at most kMostOfTheCeiling of the ceiling
    bool vs_baseline_met = false;  // at least thresholds.vs_baseline times the kit's baseline
    bool of_ceiling_met = false;   // at least thresholds.of_ceiling of the ceiling (met where none is required)
    bool passed() const { return plausible && vs_baseline_met && of_ceiling_met; }
};

// The verdict of the speed case filed under `key` (lab::SpeedPlan::Case::key) on the GPU `gpu` with
// `multiprocessors`, from the measurement `m` (its answers all right: m.wrong empty).
SpeedJudgement judge_speed(const std::string& key, const SpeedMeasurement& m, const std::string& gpu, int multiprocessors);

// "at least 6.80x the baseline and 72% of the ceiling, <where the thresholds came from>".
std::string describe_thresholds(const AppliedThresholds& t);

}  // namespace lab::judge
