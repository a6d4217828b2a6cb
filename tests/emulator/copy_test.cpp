// The CPU backend's tests of cooperative_groups::memcpy_async: the bytes land when every thread of
// the block has waited for them, whatever the thread order; a copy out of bounds, of a size that is
// not whole elements, with other arguments in one thread, or issued by part of the block is reported
// with its line; a read of the destination before the wait faults with its line where the
// destination spans a whole page, and reads the poison pattern (a wrong answer in every order) where
// it does not.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "copy_kernels.hpp"
#include "lab/cuda.hpp"
#include "lab/device_buffer.hpp"
#include "emulator_support.hpp"

namespace {

using emulated::CopyMistake;
using lab::DeviceBuffer;
using lab::cpu::Schedule;

using emulator_support::error_of;
using emulator_support::kOrders;
constexpr int kBlocks = 5, kPerBlock = 1024;

class AsyncCopies : public ::testing::Test {
protected:
    void SetUp() override
    {
        lab::cpu::echo_errors(false);
        (void)cudaGetLastError();
        for (int i = 0; i < kBlocks * kPerBlock; ++i) input_[i] = static_cast<float>(i % 13) - 6.0f;
        in_.upload(input_);
    }
    void TearDown() override
    {
        lab::cpu::set_schedule(Schedule::forward);
        lab::cpu::echo_errors(true);
    }
    std::vector<float> sums() const
    {
        std::vector<float> s(kBlocks, 0.0f);
        for (int i = 0; i < kBlocks * kPerBlock; ++i) s[i / kPerBlock] += input_[i];
        return s;
    }
    // The report of `mistake` in every order, each naming the kernel's line (`line`, or `or_line`
    // where the compiler's line table gives a load the line of the statement that uses it).
    void expect_reported(CopyMistake mistake, const std::string& words, const std::string& line, const std::string& or_line = "")
    {
        for (Schedule order : kOrders) {
            lab::cpu::set_schedule(order, 11);
            const std::string error = error_of([&] { emulated::copy_sum(in_.data(), out_.data(), kBlocks, mistake); });
            EXPECT_NE(error.find(words), std::string::npos) << lab::cpu::name_of(order) << ": " << error;
            const bool named = error.find("tests/emulator/copy_kernels.cu:" + line) != std::string::npos ||
                               (!or_line.empty() && error.find("tests/emulator/copy_kernels.cu:" + or_line) != std::string::npos);
            EXPECT_TRUE(named) << "line " << line << ", " << lab::cpu::name_of(order) << ": " << error;
        }
    }

    std::vector<float> input_ = std::vector<float>(kBlocks * kPerBlock);
    DeviceBuffer<float> in_{kBlocks * kPerBlock}, out_{kBlocks};
};

TEST_F(AsyncCopies, TheBytesLandAtTheWaitUnderEveryOrder)
{
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 3);
        out_.fill(-1.0f);
        ASSERT_EQ(error_of([&] { emulated::copy_sum(in_.data(), out_.data(), kBlocks, CopyMistake::none); }), "") << lab::cpu::name_of(order);
        EXPECT_EQ(out_.download(), sums()) << lab::cpu::name_of(order);
        out_.fill(-1.0f);
        ASSERT_EQ(error_of([&] { emulated::staged_copy_sum(in_.data(), out_.data(), kBlocks); }), "") << lab::cpu::name_of(order);
        EXPECT_EQ(out_.download(), sums()) << "two stages, " << lab::cpu::name_of(order);
        out_.fill(-1.0f);
        ASSERT_EQ(error_of([&] { emulated::dynamic_copy_sum(in_.data(), out_.data(), kBlocks); }), "") << lab::cpu::name_of(order);
        EXPECT_EQ(out_.download(), sums()) << "dynamic shared memory, " << lab::cpu::name_of(order);
    }
}

TEST_F(AsyncCopies, ACopyPastTheEndOfTheSourceIsReportedWithItsLine)
{
    expect_reported(CopyMistake::source_past_end, "it would read 16 bytes past its end", "62");
    expect_reported(CopyMistake::source_past_end, "from a device allocation of 20480 bytes", "62");
}

TEST_F(AsyncCopies, ACopyPastTheEndOfTheDestinationIsReportedWithItsLine)
{
    expect_reported(CopyMistake::destination_past_end, "for 4096 bytes into the __shared__ array `half_tile` (2048 bytes", "50");
    expect_reported(CopyMistake::destination_past_end, "2048 bytes past its end", "50");
}

TEST_F(AsyncCopies, AReadOfAWholePageOfTheDestinationBeforeTheWaitFaultsWithItsLine)
{
    expect_reported(CopyMistake::read_before_wait,
                    "reached the __shared__ array `tile`, the destination of the cooperative_groups::memcpy_async at "
                    "tests/emulator/copy_kernels.cu:62, before that copy had landed",
                    "64");
    // The same read after a __syncthreads() in place of the wait: still too early on a GPU.
    expect_reported(CopyMistake::no_wait, "before that copy had landed", "67", "68");
}

// A tile reused for the next stage and read after that stage's copy was issued: on a GPU it may hold
// either stage, or a mix; here it holds the poison, so the sum the kernel meant (the second stage's,
// the block's first 256 floats) never comes out, in any order, as it would if the copy landed at once.
TEST_F(AsyncCopies, AReadOfASmallDestinationBeforeTheWaitIsWrongInEveryOrder)
{
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 5);
        out_.fill(-1.0f);
        ASSERT_EQ(error_of([&] { emulated::copy_sum(in_.data(), out_.data(), kBlocks, CopyMistake::small_read_before_wait); }), "");
        const auto got = out_.download();
        std::vector<float> quarter(kBlocks, 0.0f);
        for (int b = 0; b < kBlocks; ++b)
            for (int i = 0; i < kPerBlock / 4; ++i) quarter[b] += input_[b * kPerBlock + i];
        for (int b = 0; b < kBlocks; ++b)
            EXPECT_FALSE(got[b] == quarter[b]) << "block " << b << " read the tile before the copy landed, yet got its sum ("
                                               << lab::cpu::name_of(order) << ")";
    }
}

TEST_F(AsyncCopies, ACopyNotMadeByEveryThreadIsReported)
{
    expect_reported(CopyMistake::half_the_threads, "which 128 of the block's 256 threads issued and 128 waited for", "62");
}

TEST_F(AsyncCopies, ASizeThatIsNotWholeElementsIsReported)
{
    expect_reported(CopyMistake::size_not_whole, "for 4092 bytes of 16-byte elements", "62");
    expect_reported(CopyMistake::size_not_whole, "it would drop the last 12 byte(s)", "62");
}

TEST_F(AsyncCopies, OtherArgumentsInOneThreadAreReported)
{
    expect_reported(CopyMistake::other_arguments, "with other arguments than another thread of the block gave it", "62");
}

}  // namespace
