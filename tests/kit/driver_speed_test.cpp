// The speed path of the driver rungs (10, 11), on the reference solutions: what the speed tests,
// the grader's speed case and the benchmark time is one call of a scheme on a Reducer that lives
// from call to call, as it would in a program, and every answer is still checked (runs on the CPU
// backend, and so in CI; the GPU runs the same code).
#include <gtest/gtest.h>

#include <string>

#include "lab/check.hpp"
#include "lab/cpu/runtime.hpp"
#include "lab/device.hpp"
#include "lab/full_reduction.hpp"
#include "lab/registry.hpp"
#include "lab/rung.hpp"
#include "lab/shape.hpp"
#include "lab/speed.hpp"

namespace {

constexpr std::size_t kN = 3 * 4096 + 7;

// Each scheme of each driver rung linked in: three calls on inputs that change in between, each
// answer right; the Reducer is made by the first call and kept (its scratch memory stays allocated,
// no more and no less, from call to call).
TEST(DriverSpeedPath, TimedCallsShareOneReducerAndEveryAnswerIsRight)
{
    const lab::DeviceStatus& device = lab::device_status();
    std::size_t drivers = 0, in_registry = 0;
    for (const auto& rung : lab::Registry::kit().rungs()) in_registry += rung.shape->name() == "driver";
    for (const lab::RungBinding* binding : lab::bound_rungs()) {
        const lab::RungInfo& rung = lab::Registry::kit().get(binding->id);
        ASSERT_EQ(rung.shape->name(), "driver") << rung.id;
        ++drivers;
        for (const std::string& scheme : rung.variants) {
            SCOPED_TRACE(rung.id + " " + scheme);
            lab::SpeedInputs inputs(kN, 5);
            const lab::FullReduction reduction(*binding, rung, lab::Op::sum, lab::Dtype::f32, kN, 256, device.shape, scheme);
            ASSERT_EQ(reduction.passes(), 1u);
            const std::size_t before = lab::cpu::live_allocations();
            std::size_t kept = 0;
            for (int call = 0; call < 3; ++call) {
                const int k = call % 2;
                reduction.run(inputs.next(k));
                LAB_CUDA_CHECK(cudaDeviceSynchronize());
                float got = 0;
                LAB_CUDA_CHECK(cudaMemcpy(&got, reduction.result(), sizeof got, cudaMemcpyDeviceToHost));
                EXPECT_EQ(lab::check_sum(lab::ExactSum{inputs.exact(k), inputs.magnitude(k)}, got,
                                         reduction.addition_depth()),
                          "")
                    << "call " << call;
                const std::size_t held = lab::cpu::live_allocations() - before;
                if (call == 0) kept = held;
                EXPECT_EQ(held, kept) << "call " << call << ": the Reducer's allocations changed between timed calls";
            }
            EXPECT_GT(kept, 0u) << "no Reducer was kept: each timed call would build and destroy one";
        }
    }
    EXPECT_EQ(drivers, in_registry) << "every driver rung of the registry is linked in";
    EXPECT_GE(drivers, 1u);
}

// The speed test's own measurement, end to end, of each driver rung's timed scheme.
TEST(DriverSpeedPath, TheSpeedTestMeasuresTheTimedScheme)
{
    const lab::DeviceStatus& device = lab::device_status();
    for (const lab::RungBinding* binding : lab::bound_rungs()) {
        const lab::RungInfo& rung = lab::Registry::kit().get(binding->id);
        const std::string scheme = rung.variants.front();
        lab::SpeedInputs inputs(kN, 9);
        const lab::SpeedMeasurement m = lab::measure_speed(*binding, rung, inputs, 256, device, scheme);
        EXPECT_EQ(m.wrong, "") << rung.id << " " << scheme;
        EXPECT_GT(m.ms, 0) << rung.id;
    }
}

}  // namespace
