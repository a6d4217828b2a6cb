// The speed measurement checks every sample on an input that changed since the last one, so a
// kernel that caches its results fails it (runs on the CPU backend, and so in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "caching_kernels.hpp"
#include "lab/check.hpp"
#include "lab/device.hpp"
#include "lab/registry.hpp"
#include "lab/speed.hpp"

namespace {

constexpr std::size_t kN = std::size_t{1} << 16;

TEST(SpeedMeasurement, TheInputsChangeBeforeEverySampleAndTheirSumsAreKnown)
{
    lab::SpeedInputs inputs(kN, 7);
    for (int round = 0; round < 4; ++round)
        for (int k = 0; k < 2; ++k) {
            const double before = inputs.exact(k);
            lab::DeviceBuffer<float> copy(kN);
            LAB_CUDA_CHECK(cudaMemcpy(copy.data(), inputs.next(k), kN * sizeof(float), cudaMemcpyDeviceToDevice));
            const auto values = copy.download();
            EXPECT_NEAR(lab::exact_sum(values).value, inputs.exact(k), 1e-6) << "round " << round << ", input " << k;
            EXPECT_GT(std::fabs(inputs.exact(k) - before), 1e6) << "the previous answer would pass";
        }
    EXPECT_NE(inputs.exact(0), inputs.exact(1));
}

TEST(SpeedMeasurement, AnHonestKernelIsTimed)
{
    const lab::DeviceStatus& device = lab::device_status();
    lab::SpeedInputs inputs(kN, 11);
    const lab::SpeedMeasurement m = lab::measure_speed(honest_binding(), honest_info(), inputs, 256, device);
    EXPECT_EQ(m.wrong, "");
    EXPECT_GT(m.ms, 0);
    EXPECT_GT(m.baseline_ms, 0);
}

TEST(SpeedMeasurement, AKernelThatReusesEarlierResultsFails)
{
    const lab::DeviceStatus& device = lab::device_status();
    lab::SpeedInputs inputs(kN, 11);
    const lab::SpeedMeasurement m = lab::measure_speed(caching_binding(), caching_info(), inputs, 256, device);
    // Caught in the warm-up already: the second pass reads the first pass's output, at the same
    // address each time, and its contents changed with the input.
    EXPECT_NE(m.wrong.find("in warm-up run "), std::string::npos) << m.wrong;
    EXPECT_NE(m.wrong.find(": expected "), std::string::npos) << m.wrong;
    EXPECT_EQ(m.ms, 0) << "nothing is timed for a kernel with a wrong answer";
}

// The row rung's speed inputs: each sample's input differs from the last one's in a row, and the
// host copy the answer is checked against is what the device holds.
TEST(SpeedMeasurement, TheRowInputsChangeBeforeEverySample)
{
    lab::RowSpeedInputs inputs(lab::Op::dot, 16, 64, 5);
    for (int round = 0; round < 3; ++round)
        for (int k = 0; k < 2; ++k) {
            const std::vector<float> before = inputs.host(k);
            lab::DeviceBuffer<float> copy(before.size());
            LAB_CUDA_CHECK(cudaMemcpy(copy.data(), inputs.next(k), copy.bytes(), cudaMemcpyDeviceToDevice));
            EXPECT_EQ(copy.download(), inputs.host(k)) << "round " << round << ", input " << k;
            EXPECT_NE(before, inputs.host(k)) << "round " << round << ", input " << k << ": the last sample's answer would pass";
            EXPECT_EQ(before.size(), std::size_t{2 * 16 * 64}) << "a dot product's input holds x, then y";
        }
}

TEST(SpeedMeasurement, AnHonestRowKernelIsTimedAndACachingOneFails)
{
    const lab::DeviceStatus& device = lab::device_status();
    const lab::RungInfo& rows = lab::Registry::kit().get("12_real_kernels");
    lab::RowSpeedInputs honest_inputs(lab::Op::dot, 32, 128, 3), caching_inputs(lab::Op::dot, 32, 128, 3);
    const lab::SpeedMeasurement honest = lab::measure_row_speed(honest_rows_binding(), rows, lab::Op::dot, honest_inputs, 32, device);
    EXPECT_EQ(honest.wrong, "");
    EXPECT_GT(honest.ms, 0);
    EXPECT_GT(honest.baseline_ms, 0);
    const lab::SpeedMeasurement caching =
        lab::measure_row_speed(caching_rows_binding(), rows, lab::Op::dot, caching_inputs, 32, device);
    // Input 0 comes back for the first timed run with its spike moved: the rows it kept are stale.
    EXPECT_NE(caching.wrong.find(" run "), std::string::npos) << caching.wrong;
    EXPECT_EQ(caching.ms, 0) << "nothing is timed for a kernel with a wrong answer";
}

// The grader checks a row kernel's timed outputs against its inputs replayed on the host alone
// (next_on_host), while the runner still times the next launches. A kernel that leaves one row in
// eight as it was, from the third launch on, fails the check of the third and fifth (those rows are
// the other input's then); the honest outputs pass every one.
TEST(SpeedMeasurement, AReplayOnTheHostCatchesRowsLeftFromTheLastLaunch)
{
    const lab::RungInfo& rung = lab::Registry::kit().get("12_real_kernels");
    constexpr std::size_t kRows = 16, kCols = 4096;
    lab::RowSpeedInputs replay(lab::Op::softmax, kRows, kCols, 9);
    const lab::LaunchPlan plan = lab::plan_launch(rung, kRows * kCols, 256, lab::device_status().shape, 0, "", kCols);
    const auto softmax = [&](const std::vector<float>& x) {
        std::vector<float> y(x.size());
        for (std::size_t r = 0; r < kRows; ++r) {
            const float* row = x.data() + r * kCols;
            double m = -INFINITY, sum = 0;
            for (std::size_t c = 0; c < kCols; ++c) m = std::max(m, double(row[c]));
            for (std::size_t c = 0; c < kCols; ++c) sum += std::exp(double(row[c]) - m);
            for (std::size_t c = 0; c < kCols; ++c) y[r * kCols + c] = static_cast<float>(std::exp(double(row[c]) - m) / sum);
        }
        return y;
    };
    std::vector<float> out(kRows * kCols, 0.0f);
    for (int s = 0; s < 6; ++s) {
        const std::vector<float>& input = replay.next_on_host(s % 2);
        const std::vector<float> honest = softmax(input);
        EXPECT_TRUE(lab::check_output(rung, lab::Op::softmax, plan, input, honest).ok) << "launch " << s;
        for (std::size_t r = 0; r < kRows; ++r)
            if (s < 2 || r % 8 != 0) std::copy_n(honest.begin() + r * kCols, kCols, out.begin() + r * kCols);
        const lab::Verdict v = lab::check_output(rung, lab::Op::softmax, plan, input, out);
        if (s < 2) EXPECT_TRUE(v.ok) << "launch " << s << ": " << v.first_wrong;
        else if (s % 2 == 0) EXPECT_FALSE(v.ok) << "launch " << s << ": rows 0 and 8 are the other input's";
    }
}

}  // namespace
