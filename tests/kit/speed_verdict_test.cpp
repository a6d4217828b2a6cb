// The judge's one verdict of a speed case (judge/speed_verdict.hpp): the grader's speed part and the
// suites' speed test both decide through it, on measurements made here by hand.
#include <gtest/gtest.h>

#include <string>

#include "lab/speed_plan.hpp"
#include "speed_verdict.hpp"

namespace {

using lab::judge::judge_speed;
using lab::judge::SpeedJudgement;

constexpr const char* kGpu = "NVIDIA H200";  // calibrated in tests/speed.json
constexpr int kMultiprocessors = 132;
constexpr double kCeiling = 4257;  // its calibration's ceiling, GB/s: the calibration applies

// A measurement of `vs_baseline` times the baseline and `of_ceiling` of the ceiling.
lab::SpeedMeasurement measured(double vs_baseline, double of_ceiling)
{
    lab::SpeedMeasurement m;
    m.ms = 1.0;
    m.baseline_ms = vs_baseline;
    m.cpu_ms = 100.0;
    m.ceiling = lab::Ceiling{kCeiling, kCeiling};
    m.gbps = of_ceiling * kCeiling;
    return m;
}

// What the calibration requires of rung 08: both of its thresholds are set (it is bandwidth-bound).
lab::AppliedThresholds required()
{
    return lab::SpeedPlan::kit().thresholds_for("08_warp_shuffle", kGpu, kMultiprocessors, measured(10, 0.96));
}

}  // namespace

TEST(SpeedVerdict, PassesAtTheThresholdsAndFailsJustBelowEither)
{
    const lab::AppliedThresholds t = required();
    ASSERT_TRUE(t.calibrated) << t.source;
    ASSERT_GT(t.vs_baseline, 1.0);
    ASSERT_GT(t.of_ceiling, 0.5);
    SpeedJudgement j = judge_speed("08_warp_shuffle", measured(t.vs_baseline, t.of_ceiling), kGpu, kMultiprocessors);
    EXPECT_TRUE(j.plausible && j.vs_baseline_met && j.of_ceiling_met && j.passed());
    EXPECT_EQ(j.thresholds.vs_baseline, t.vs_baseline);
    EXPECT_EQ(j.thresholds.of_ceiling, t.of_ceiling);

    j = judge_speed("08_warp_shuffle", measured(t.vs_baseline * 0.99, t.of_ceiling), kGpu, kMultiprocessors);
    EXPECT_FALSE(j.vs_baseline_met);
    EXPECT_TRUE(j.of_ceiling_met);
    EXPECT_FALSE(j.passed());

    j = judge_speed("08_warp_shuffle", measured(t.vs_baseline, t.of_ceiling * 0.99), kGpu, kMultiprocessors);
    EXPECT_TRUE(j.vs_baseline_met);
    EXPECT_FALSE(j.of_ceiling_met);
    EXPECT_FALSE(j.passed());
}

// Faster than the GPU can read its input is not a speed-up: however far past the thresholds, the
// measurement is not trusted and the case fails.
TEST(SpeedVerdict, FasterThanTheCeilingAllowsIsNotTrusted)
{
    const lab::AppliedThresholds t = required();
    SpeedJudgement j = judge_speed("08_warp_shuffle", measured(t.vs_baseline * 3, lab::judge::kMostOfTheCeiling), kGpu,
                                   kMultiprocessors);
    EXPECT_TRUE(j.plausible);
    EXPECT_TRUE(j.passed());
    j = judge_speed("08_warp_shuffle", measured(t.vs_baseline * 3, lab::judge::kMostOfTheCeiling * 1.01), kGpu,
                    kMultiprocessors);
    EXPECT_FALSE(j.plausible);
    EXPECT_TRUE(j.vs_baseline_met && j.of_ceiling_met);
    EXPECT_FALSE(j.passed());
}

// A rung with no share of the ceiling required needs only its ratio to the baseline; the words name
// both thresholds where both apply, and where they came from.
TEST(SpeedVerdict, SaysWhatItRequiredAndWhereThatCameFrom)
{
    const lab::AppliedThresholds t = required();
    const std::string said = lab::judge::describe_thresholds(t);
    EXPECT_EQ(said, "at least " + lab::format_ratio(t.vs_baseline) + " the baseline and " + lab::format_percent(t.of_ceiling) +
                        " of the ceiling, " + t.source);
    lab::AppliedThresholds ratio_only = t;
    ratio_only.of_ceiling = 0;
    EXPECT_EQ(lab::judge::describe_thresholds(ratio_only), "at least " + lab::format_ratio(t.vs_baseline) + " the baseline, " + t.source);
    const lab::AppliedThresholds first = lab::SpeedPlan::kit().thresholds_for("01_interleaved", kGpu, kMultiprocessors, measured(1, 0.1));
    ASSERT_EQ(first.of_ceiling, 0) << "rung 01 reaches a tenth of the ceiling: no share of it is required";
    const SpeedJudgement j = judge_speed("01_interleaved", measured(first.vs_baseline, 0.01), kGpu, kMultiprocessors);
    EXPECT_TRUE(j.of_ceiling_met);
    EXPECT_TRUE(j.passed());
}
