// The speed measurement checks every sample on an input that changed since the last one, so a
// kernel that caches its results fails it (runs on the CPU backend, and so in CI).
#include <gtest/gtest.h>

#include <cmath>

#include "caching_kernels.hpp"
#include "lab/check.hpp"
#include "lab/device.hpp"
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

}  // namespace
