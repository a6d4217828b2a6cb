// Kit test: runs every kernel of the construct corpus (constructs.cu) on the active backend and
// compares its output with the answer worked out on the host.
#include "constructs.hpp"

#include <gtest/gtest.h>

#include "lab/device.hpp"

namespace {

class Constructs : public testing::TestWithParam<Construct> {};

// Once per thread order on the CPU backend (forward sweeps, and the last warp running ahead).
TEST_P(Constructs, RunLikeOnAGpu)
{
    if (!lab::device_status().usable) GTEST_SKIP() << lab::device_status().reason;
    if (lab::device_status().compute_capability < GetParam().needs_compute_capability)
        GTEST_SKIP() << "this GPU (compute capability " << lab::device_status().compute_capability << ") has no "
                     << GetParam().needs_compute_capability << "-level feature it needs";
    for (const std::string& order : lab::thread_orders()) {
        lab::use_thread_order(order);
        const Outcome outcome = GetParam().run();
        EXPECT_EQ(outcome.got, outcome.expected)
            << GetParam().name << ": the kernel's output differs from the answer (threads in " << order << " order)";
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, Constructs, testing::ValuesIn(constructs()),
                         [](const testing::TestParamInfo<Construct>& info) { return info.param.name; });

}  // namespace
