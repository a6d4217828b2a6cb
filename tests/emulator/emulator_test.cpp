// The CPU backend's own tests. Correct kernels must give the right answer under every thread
// order; each planted bug must be caught, with a message that names the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "lab/cpu/memory_layout.hpp"
#include "lab/cuda.hpp"
#include "lab/device_buffer.hpp"
#include "emulator_support.hpp"
#include "lab/error.hpp"

namespace {

using lab::DeviceBuffer;
using lab::cpu::Schedule;

using emulator_support::error_of;
using emulator_support::kOrders;

class Emulator : public ::testing::Test {
protected:
    void TearDown() override { lab::cpu::set_schedule(Schedule::forward); }
};

std::vector<float> ramp(int n)
{
    std::vector<float> v(n);
    for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i % 17) - 8.0f;
    return v;
}

TEST_F(Emulator, TreeSumIsRightUnderEveryOrder)
{
    const int n = 1000;
    const auto input = ramp(n);
    DeviceBuffer<float> in(n), out(4);
    in.upload(input);
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 7);
        out.fill(-1.0f);
        ASSERT_EQ(error_of([&] { emulated::tree_sum(in.data(), out.data(), n, 256); }), "");
        const auto got = out.download();
        for (int b = 0; b < 4; ++b) {
            float want = 0;
            for (int i = b * 256; i < std::min(n, (b + 1) * 256); ++i) want += input[i];
            EXPECT_EQ(got[b], want) << "block " << b << " in " << lab::cpu::name_of(order) << " order";
        }
    }
}

TEST_F(Emulator, DynamicSharedMemoryIsSizedByTheLaunch)
{
    std::vector<int> input(300);
    std::iota(input.begin(), input.end(), 1);
    DeviceBuffer<int> in(300), out(3);
    in.upload(input);
    ASSERT_EQ(error_of([&] { emulated::dynamic_tree_sum(in.data(), out.data(), 300, 128, 128 * sizeof(int)); }), "");
    EXPECT_EQ(out.download(), (std::vector<int>{128 * 129 / 2, 256 * 257 / 2 - 128 * 129 / 2, 300 * 301 / 2 - 256 * 257 / 2}));
}

TEST_F(Emulator, ShuffleSumIsRightUnderEveryOrder)
{
    std::vector<int> input(1024);
    for (int i = 0; i < 1024; ++i) input[i] = (i * 37) % 101 - 50;
    DeviceBuffer<int> in(1024), out(2);
    in.upload(input);
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 3);
        ASSERT_EQ(error_of([&] { emulated::shuffle_sum(in.data(), out.data(), 1024, 512); }), "");
        const auto got = out.download();
        EXPECT_EQ(got[0], std::accumulate(input.begin(), input.begin() + 512, 0)) << lab::cpu::name_of(order);
        EXPECT_EQ(got[1], std::accumulate(input.begin() + 512, input.end(), 0)) << lab::cpu::name_of(order);
    }
}

TEST_F(Emulator, WarpVotesAndShufflesFollowCuda)
{
    std::vector<int> input(32);
    for (int i = 0; i < 32; ++i) input[i] = i % 3 == 0 ? i : -i;  // positive at lanes 3, 6, ..., 30
    DeviceBuffer<int> in(32);
    DeviceBuffer<unsigned> out(8);
    in.upload(input);
    ASSERT_EQ(error_of([&] { emulated::warp_votes(in.data(), out.data()); }), "");
    const auto got = out.download();
    unsigned ballot = 0;
    for (int i = 0; i < 32; ++i) ballot |= (input[i] > 0 ? 1u : 0u) << i;
    EXPECT_EQ(got[0], ballot);
    EXPECT_EQ(got[1], 0u);  // nothing above 100
    EXPECT_EQ(got[2], 1u);  // everything above -100
    EXPECT_EQ(static_cast<int>(got[3]), input[3]);
    EXPECT_EQ(static_cast<int>(got[4]), input[5] + input[4]);
    EXPECT_EQ(static_cast<unsigned>(got[5]), static_cast<unsigned>(std::accumulate(input.begin(), input.end(), 0)));
    EXPECT_EQ(got[6], 10u);  // lanes 3, 6, ..., 30
    EXPECT_EQ(static_cast<int>(got[7]), input[5]);
}

TEST_F(Emulator, AtomicsAreAtomicAcrossBlocksOnSeveralWorkers)
{
    const int n = 100000;
    std::vector<int> input(n);
    for (int i = 0; i < n; ++i) input[i] = (i * 7919) % 1000;
    DeviceBuffer<int> in(n), sum(1), biggest(1);
    DeviceBuffer<unsigned> ticket(1);
    DeviceBuffer<float> float_sum(1);
    in.upload(input);
    sum.fill(0);
    biggest.fill(-1);
    ticket.fill(0);
    float_sum.fill(0.0f);
    ASSERT_EQ(error_of([&] { emulated::atomics(in.data(), n, sum.data(), biggest.data(), ticket.data(), float_sum.data()); }), "");
    EXPECT_EQ(sum.download()[0], std::accumulate(input.begin(), input.end(), 0));
    EXPECT_EQ(biggest.download()[0], 999);
    EXPECT_EQ(ticket.download()[0], static_cast<unsigned>(n));
    EXPECT_EQ(float_sum.download()[0], 50000.0f);
}

// A GPU runs blocks in no promised order: in the reverse order they run last to first, so a
// kernel that counts on block 0 running first (a ticket counter it resets as it starts) passes in
// index order and fails there, as it may on a GPU.
TEST_F(Emulator, BlocksRunLastToFirstInTheReverseOrder)
{
    // ctest runs this test with LAB_CPU_WORKERS=1 (tests/CMakeLists.txt): on two workers, block 1
    // may draw its ticket before block 0 resets the counter, whatever the order blocks start in.
    cudaDeviceProp device{};
    ASSERT_EQ(cudaGetDeviceProperties(&device, 0), cudaSuccess);
    ASSERT_EQ(device.multiProcessorCount, 1) << "one multiprocessor per worker thread: run it with LAB_CPU_WORKERS=1";
    const int blocks = 64;
    DeviceBuffer<unsigned> counter(1);
    DeviceBuffer<int> total(1), partials(blocks);
    const auto run = [&](Schedule order) {
        lab::cpu::set_schedule(order, 11);
        counter.fill(12345u);  // what an earlier launch left
        total.fill(-1);
        EXPECT_EQ(error_of([&] { emulated::reset_by_block_zero(counter.data(), total.data(), partials.data(), blocks); }), "");
        return total.download()[0];
    };
    EXPECT_EQ(run(Schedule::forward), blocks) << "block 0 runs first in index order";
    EXPECT_NE(run(Schedule::reverse), blocks) << "block 0 ran first in the reverse order too: the blocks' order never changes";
    // The random order is a permutation of the blocks: every block runs once, whatever the seed.
    for (unsigned long long seed : {1ull, 2ull, 99ull}) {
        lab::cpu::set_schedule(Schedule::random, seed);
        DeviceBuffer<unsigned> out(3 * 4 * 2 * 5);
        out.fill(0u);
        ASSERT_EQ(error_of([&] { emulated::grid_indices(out.data()); }), "");
        const auto got = out.download();
        for (unsigned y = 0; y < 10; ++y)
            for (unsigned x = 0; x < 12; ++x) EXPECT_EQ(got[y * 12 + x], y * 1000 + x) << "seed " << seed;
    }
}

// cudaMalloc hands back what was there on a GPU, never promised zeros: here every byte of a new
// allocation is 0xFF, so a kernel that reads scratch memory it never wrote gets -1 (or a NaN), not 0.
TEST_F(Emulator, NewAllocationsHoldNoZeros)
{
    DeviceBuffer<int> scratch(32), out(32);
    ASSERT_EQ(error_of([&] { emulated::read_unwritten_global(scratch.data(), out.data()); }), "");
    for (int v : out.download())
        EXPECT_EQ(v, 0) << "scratch + 1 read " << v << " from a new allocation (0 from one of 0xFF bytes): a kernel that reads "
                        << "memory it never wrote would pass here";
    DeviceBuffer<float> floats(8);
    for (float v : floats.download()) EXPECT_TRUE(std::isnan(v)) << "a new float allocation reads as " << v;
}

TEST_F(Emulator, TwoDimensionalGridsAndBlocks)
{
    DeviceBuffer<unsigned> out(12 * 10);
    ASSERT_EQ(error_of([&] { emulated::grid_indices(out.data()); }), "");
    const auto got = out.download();
    for (unsigned y = 0; y < 10; ++y)
        for (unsigned x = 0; x < 12; ++x) EXPECT_EQ(got[y * 12 + x], y * 1000 + x);
}

TEST_F(Emulator, SharedMemoryIsPoisonedBeforeEachBlock)
{
    DeviceBuffer<int> out(4);
    ASSERT_EQ(error_of([&] { emulated::read_unwritten_shared(out.data(), 4); }), "");
    for (int v : out.download()) {
        EXPECT_NE(v, 0) << "an unwritten shared slot read as zero, which hides a missing store";
        EXPECT_NE(v, 42) << "an unwritten shared slot kept the previous block's value";
    }
}

// The poison a block reads is the launch's, never what ran before on the worker: the same launch run
// again, in any thread order, reads the same values, so a result that differs between orders is a
// race (a read of an unwritten slot is wrong in every order alike, and ./lab says so); across a grid
// both fills appear, -1 and 0x7F7F7F7F, so that a sum, a max and a min each meet one they cannot hide.
TEST_F(Emulator, TheSharedPoisonIsTheLaunchsInEveryOrder)
{
    const int blocks = 8;
    DeviceBuffer<int> out(blocks);
    std::vector<int> first;
    for (int run = 0; run < 3; ++run)
        for (Schedule order : kOrders) {
            lab::cpu::set_schedule(order, 11);
            ASSERT_EQ(error_of([&] { emulated::read_never_written_shared(out.data(), blocks); }), "");
            const std::vector<int> got = out.download();
            if (first.empty()) first = got;
            EXPECT_EQ(got, first) << "run " << run << ", order " << static_cast<int>(order)
                                  << ": an unwritten shared slot read other values than the first launch's";
        }
    int minus_one = 0, huge = 0;
    for (int v : first) {
        minus_one += v == -1;
        huge += v == 0x7F7F7F7F;
    }
    EXPECT_EQ(minus_one + huge, blocks) << "a slot read neither fill";
    EXPECT_GT(minus_one, 0) << "no block of the grid was filled with 0xFF";
    EXPECT_GT(huge, 0) << "no block of the grid was filled with 0x7F";
}

TEST_F(Emulator, MissingBarrierGivesOrderDependentResults)
{
    const int n = 256;
    const auto input = ramp(n);
    float want = 0;
    for (float v : input) want += v;
    DeviceBuffer<float> in(n), out(1);
    in.upload(input);
    std::vector<float> results;
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 11);
        ASSERT_EQ(error_of([&] { emulated::tree_sum_missing_barrier(in.data(), out.data(), n); }), "");
        results.push_back(out.download()[0]);
    }
    const bool some_wrong = results[0] != want || results[1] != want || results[2] != want;
    EXPECT_TRUE(some_wrong) << "a tree without barriers gave the right sum under every order";
}

TEST_F(Emulator, LegacyWarpUnrollFailsAndTheSyncwarpFormPasses)
{
    const int blocks = 8;
    std::vector<float> input(blocks * 128);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 7);
    DeviceBuffer<float> in(input.size()), out(blocks);
    in.upload(input);
    for (Schedule order : {Schedule::forward, Schedule::reverse}) {
        lab::cpu::set_schedule(order);
        for (bool safe : {false, true}) {
            ASSERT_EQ(error_of([&] { emulated::last_warp_unroll(in.data(), out.data(), blocks, safe); }), "");
            const auto got = out.download();
            int wrong = 0;
            for (int b = 0; b < blocks; ++b) {
                float want = 0;
                for (int i = 0; i < 128; ++i) want += input[b * 128 + i];
                wrong += got[b] != want;
            }
            if (safe) EXPECT_EQ(wrong, 0) << "the __syncwarp form is wrong in " << lab::cpu::name_of(order) << " order";
            else EXPECT_GT(wrong, 0) << "the volatile-only unroll passed in " << lab::cpu::name_of(order) << " order";
        }
    }
}

TEST_F(Emulator, DivergentBarrierIsReported)
{
    DeviceBuffer<float> out(64);
    const auto error = error_of([&] { emulated::divergent_barrier(out.data()); });
    EXPECT_NE(error.find("barrier divergence"), std::string::npos) << error;
    EXPECT_NE(error.find("kernels.cu:"), std::string::npos) << "should name the lines: " << error;
}

TEST_F(Emulator, EarlyReturnBeforeABarrierIsReported)
{
    DeviceBuffer<float> in(300), out(2);
    in.fill(1.0f);
    for (Schedule order : {Schedule::forward, Schedule::reverse}) {
        lab::cpu::set_schedule(order);
        const auto error = error_of([&] { emulated::early_return(in.data(), out.data(), 300); });
        EXPECT_NE(error.find("early return"), std::string::npos) << lab::cpu::name_of(order) << ": " << error;
    }
}

// No return at all: half the block skips the barrier inside an `if` and ends. Whichever half gets
// there first, the message names the barrier inside an `if`, and never claims a return it did not see.
TEST_F(Emulator, ABarrierInsideAnIfIsReported)
{
    DeviceBuffer<float> out(64);
    for (Schedule order : {Schedule::forward, Schedule::reverse}) {
        lab::cpu::set_schedule(order);
        const auto error = error_of([&] { emulated::barrier_in_if(out.data()); });
        EXPECT_NE(error.find("a barrier inside an `if` that only some threads take"), std::string::npos)
            << lab::cpu::name_of(order) << ": " << error;
        EXPECT_EQ(error.find("returned while"), std::string::npos) << lab::cpu::name_of(order) << ": " << error;
    }
}

TEST_F(Emulator, MaskWithoutTheCallerIsReported)
{
    DeviceBuffer<int> out(32);
    for (Schedule order : {Schedule::forward, Schedule::reverse}) {
        lab::cpu::set_schedule(order);
        const auto error = error_of([&] { emulated::wrong_mask(out.data()); });
        EXPECT_NE(error.find("leaves out its own lane"), std::string::npos) << error;
        EXPECT_NE(error.find("__shfl_xor_sync at"), std::string::npos) << error;
    }
}

TEST_F(Emulator, FullMaskOverAPartialWarpIsReported)
{
    DeviceBuffer<int> out(48);
    const auto error = error_of([&] { emulated::full_mask_partial_warp(out.data()); });
    EXPECT_NE(error.find("that this warp does not have"), std::string::npos) << error;
}

// A lane of the mask that has returned takes no part ("all non-exited threads named in mask", the
// CUDA C++ Programming Guide): the others' shuffle, vote and ballot go on without it, in either order.
TEST_F(Emulator, LaneThatReturnsBeforeAWarpCallTakesNoPart)
{
    DeviceBuffer<int> out(32);
    for (Schedule order : {Schedule::forward, Schedule::reverse}) {
        lab::cpu::set_schedule(order);
        out.fill(-1);
        const auto error = error_of([&] { emulated::lane_leaves(out.data()); });
        EXPECT_EQ(error, "") << lab::cpu::name_of(order);
        std::vector<int> want(32, 100 + 1000 * 31);
        want[3] = -1;
        EXPECT_EQ(out.download(), want) << lab::cpu::name_of(order);
    }
}

// What a shuffle reads from a lane that has returned is undefined: reported, with the lane.
TEST_F(Emulator, ShuffleThatReadsAReturnedLaneIsReported)
{
    DeviceBuffer<int> out(32);
    for (Schedule order : {Schedule::forward, Schedule::reverse}) {
        lab::cpu::set_schedule(order);
        const auto error = error_of([&] { emulated::reads_returned_lane(out.data()); });
        EXPECT_NE(error.find("reads lane 0 through __shfl_sync at"), std::string::npos) << lab::cpu::name_of(order) << ": " << error;
        EXPECT_NE(error.find("has already returned, so the value it gets is undefined"), std::string::npos) << error;
    }
}

TEST_F(Emulator, DeadlockBetweenWarpAndBarrierIsReported)
{
    DeviceBuffer<int> out(32);
    const auto error = error_of([&] { emulated::warp_and_barrier_deadlock(out.data()); });
    EXPECT_NE(error.find("no thread of the block can go on"), std::string::npos) << error;
    // One line per place where threads wait, with the path as it is inside the kit (the same
    // wherever the kit was cloned).
    EXPECT_NE(error.find("lanes 0-15 of warp 0 (threads 0-15) wait at __shfl_sync at tests/emulator/kernels.cu:"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("lanes 16-31 of warp 0 (threads 16-31) wait at __syncthreads at tests/emulator/kernels.cu:"),
              std::string::npos)
        << error;
}

TEST_F(Emulator, DeadlockReportStaysShortForTheLargestBlock)
{
    DeviceBuffer<int> out(1024);
    const auto error = error_of([&] { emulated::block_and_barrier_deadlock(out.data()); });
    // 32 warps, each split in two: one line per place, the threads as ranges, the list cut short.
    EXPECT_NE(error.find("threads 0-15, 32-47, 64-79, "), std::string::npos) << error;
    EXPECT_NE(error.find(" and 384 more threads wait at __shfl_sync at tests/emulator/kernels.cu:"), std::string::npos) << error;
    EXPECT_NE(error.find("threads 16-31, 48-63, "), std::string::npos) << error;
    EXPECT_NE(error.find(" and 384 more threads wait at __syncthreads at tests/emulator/kernels.cu:"), std::string::npos) << error;
    EXPECT_LT(error.size(), 1000u) << error;
}

TEST_F(Emulator, DynamicSharedOverflowIsStopped)
{
    DeviceBuffer<int> out(64);
    const auto error = error_of([&] { emulated::dynamic_shared_overflow(out.data()); });
    EXPECT_NE(error.find("invalid memory access"), std::string::npos) << error;
    EXPECT_NE(error.find("dynamic shared memory"), std::string::npos) << error;
}

TEST_F(Emulator, GlobalOverflowIsStoppedAndLocated)
{
    DeviceBuffer<int> in(32), out(32);
    in.fill(1);
    const auto error = error_of([&] { emulated::global_overflow(in.data(), out.data()); });
    EXPECT_NE(error.find("past the end of a device allocation of 128 bytes"), std::string::npos) << error;
}

// A read far past the end (pages beyond it, where the system's next mapping may lie: here the
// buffer allocated before, which the system places just after) faults every time, and is located.
TEST_F(Emulator, AReadFarPastTheEndIsStoppedWhateverLiesBeyond)
{
    for (int past : {2048, 16384, 65536, 1 << 20}) {
        DeviceBuffer<int> before(1 << 16), in(1 << 10), out(32);
        before.fill(7);
        in.fill(1);
        const auto error = error_of([&] { emulated::far_past_end(in.data(), out.data(), 1 << 10, past); });
        EXPECT_NE(error.find("past the end of a device allocation of 4096 bytes"), std::string::npos)
            << past << " ints past the end: " << error;
    }
}

TEST_F(Emulator, WritePastTheEndIsReportedWhenTheBufferIsFreed)
{
    lab::take_deferred_errors();
    {
        DeviceBuffer<int> out(1);
        ASSERT_EQ(error_of([&] { emulated::write_past_end(out.data()); }), "") << "the write lands before the guard page";
    }
    // DeviceBuffer's destructor cannot throw: it keeps cudaFree's error for the test to report.
    const std::string deferred = lab::take_deferred_errors();
    EXPECT_NE(deferred.find("a kernel wrote past the end of a device allocation of 4 bytes"), std::string::npos)
        << deferred;
    EXPECT_EQ(lab::take_deferred_errors(), "") << "taken once";
}

TEST_F(Emulator, StackOverflowIsStopped)
{
    DeviceBuffer<int> out(2);
    const auto error = error_of([&] { emulated::huge_local_array(out.data()); });
    EXPECT_NE(error.find("ran out of stack"), std::string::npos) << error;
}

// Tickets (CPU_BACKEND.md): while required, a ticket needs a __threadfence() of the thread's own
// since its last one; a block-scope fence is not enough, and an int atomic that adds data is no ticket.
TEST_F(Emulator, ATicketWithoutAFenceIsRefusedWhenRequired)
{
    constexpr int kBlocks = 5;
    DeviceBuffer<float> partials(kBlocks);
    DeviceBuffer<unsigned> tickets(1);
    DeviceBuffer<int> data(1);
    const auto run = [&](int fence) {
        tickets.fill(0u);
        data.fill(0);
        return error_of([&] { emulated::tickets(partials.data(), tickets.data(), data.data(), fence, kBlocks); });
    };
    EXPECT_EQ(run(0), "") << "not required: no rule";
    lab::cpu::require_ticket_fence(true);
    EXPECT_EQ(run(2), "");
    EXPECT_EQ(tickets.download().front(), unsigned{kBlocks});
    EXPECT_EQ(data.download().front(), kBlocks * 64);
    for (int fence : {0, 1, 3}) {
        const auto error = run(fence);
        EXPECT_NE(error.find("took a ticket (atomicAdd on an unsigned counter, at "), std::string::npos) << fence << ": " << error;
        EXPECT_NE(error.find("with no __threadfence() since its last one"), std::string::npos) << fence << ": " << error;
    }
    lab::cpu::require_ticket_fence(false);
}

// A ticket on a 64-bit counter is a ticket too (unsigned long long, as atomicAdd takes it).
TEST_F(Emulator, AWideTicketWithoutAFenceIsRefusedWhenRequired)
{
    constexpr int kBlocks = 5;
    DeviceBuffer<float> partials(kBlocks);
    DeviceBuffer<unsigned long long> tickets(1);
    const auto run = [&](int fence) {
        tickets.fill(0ull);
        return error_of([&] { emulated::wide_tickets(partials.data(), tickets.data(), fence, kBlocks); });
    };
    lab::cpu::require_ticket_fence(true);
    EXPECT_EQ(run(2), "");
    EXPECT_EQ(tickets.download().front(), static_cast<unsigned long long>(kBlocks));
    const auto error = run(0);
    EXPECT_NE(error.find("took a ticket (atomicAdd on an unsigned counter, at "), std::string::npos) << error;
    lab::cpu::require_ticket_fence(false);
}

// libcu++'s atomics take tickets too, checked as the built-in ones are: a fetch_add(1) that releases
// at device (or system) scope is its own fence, as is a fence of any order but relaxed at that scope
// before a relaxed one; a relaxed or acquire ticket, a block-scope one or a block-scope fence is not.
TEST_F(Emulator, LibcuTicketsAreCheckedAsTheBuiltInOnes)
{
    constexpr int kBlocks = 5;
    DeviceBuffer<float> partials(kBlocks);
    DeviceBuffer<unsigned> tickets(1);
    const auto run = [&](int mode) {
        tickets.fill(0u);
        return error_of([&] { emulated::libcu_tickets(partials.data(), tickets.data(), mode, kBlocks); });
    };
    for (int mode = 0; mode <= 14; ++mode) EXPECT_EQ(run(mode), "") << "not required: no rule (mode " << mode << ")";
    lab::cpu::require_ticket_fence(true);
    for (int mode : {0, 1, 2, 3, 4, 5, 13}) {
        EXPECT_EQ(run(mode), "") << "mode " << mode;
        EXPECT_EQ(tickets.download().front(), unsigned(mode == 13 ? 2 * kBlocks : kBlocks)) << "mode " << mode;
    }
    for (int mode : {6, 7, 8, 9, 10, 11, 12}) {
        const auto error = run(mode);
        EXPECT_NE(error.find("took a ticket (fetch_add on an unsigned counter, at tests/emulator/kernels.cu:"),
                  std::string::npos) << "mode " << mode << ": " << error;
        EXPECT_NE(error.find("a relaxed or acquire one publishes nothing"), std::string::npos) << "mode " << mode << ": " << error;
    }
    // ++ takes its ticket inside the kit's header: the report still names the kernel's line.
    const auto error = run(14);
    EXPECT_NE(error.find("took a ticket (fetch_add on an unsigned counter, at tests/emulator/kernels.cu:"), std::string::npos)
        << error;
    lab::cpu::require_ticket_fence(false);
}

TEST_F(Emulator, IntegerDivisionByZeroIsStopped)
{
    DeviceBuffer<int> in(4), out(4);
    in.upload(std::vector<int>{1, 2, 0, 4});
    const auto error = error_of([&] { emulated::divide(in.data(), out.data()); });
    EXPECT_NE(error.find("division by zero"), std::string::npos) << error;
}

TEST_F(Emulator, AFailedLaunchDoesNotSpoilTheNext)
{
    DeviceBuffer<float> junk(64);
    EXPECT_NE(error_of([&] { emulated::divergent_barrier(junk.data()); }), "");
    const auto input = ramp(256);
    DeviceBuffer<float> in(256), out(1);
    in.upload(input);
    ASSERT_EQ(error_of([&] { emulated::tree_sum(in.data(), out.data(), 256, 256); }), "");
    EXPECT_EQ(out.download()[0], std::accumulate(input.begin(), input.end(), 0.0f));
}

TEST_F(Emulator, LaunchLimitsAreEnforced)
{
    DeviceBuffer<int> out(1);
    auto error = error_of([&] { emulated::launch_with(2048, 0, out.data()); });
    EXPECT_NE(error.find("at most 1024"), std::string::npos) << error;
    error = error_of([&] { emulated::launch_with(64, 64 * 1024, out.data()); });
    EXPECT_NE(error.find("cudaFuncAttributeMaxDynamicSharedMemorySize"), std::string::npos) << error;
    emulated::allow_shared(64 * 1024);
    EXPECT_EQ(error_of([&] { emulated::launch_with(64, 64 * 1024, out.data()); }), "");
}

TEST_F(Emulator, CopiesInTheWrongDirectionAreRefused)
{
    DeviceBuffer<int> device(16);
    std::vector<int> host(16, 3);
    EXPECT_EQ(cudaMemcpy(host.data(), device.data(), 64, cudaMemcpyHostToDevice), cudaErrorInvalidMemcpyDirection);
    EXPECT_NE(std::string(lab::cpu::last_error_detail()).find("check the direction"), std::string::npos);
    EXPECT_EQ(cudaMemcpy(device.data(), host.data(), 65, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_NE(std::string(lab::cpu::last_error_detail()).find("past the end"), std::string::npos);
    EXPECT_EQ(cudaMemcpy(device.data(), host.data(), 64, cudaMemcpyHostToDevice), cudaSuccess);
    cudaGetLastError();
}

TEST_F(Emulator, LeaksAndBadFreesAreCounted)
{
    const auto before = lab::cpu::live_allocations();
    void* p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, 100), cudaSuccess);
    EXPECT_EQ(lab::cpu::live_allocations(), before + 1);
    int host = 0;
    EXPECT_EQ(cudaFree(&host), cudaErrorInvalidDevicePointer);
    EXPECT_EQ(cudaFree(p), cudaSuccess);
    EXPECT_EQ(lab::cpu::live_allocations(), before);
    cudaGetLastError();
}

// The grader's runner says which cases had a cudaMalloc refused for want of memory (judge/protocol.hpp):
// every such refusal is counted, and nothing else.
TEST_F(Emulator, AllocationsRefusedForWantOfMemoryAreCounted)
{
    const std::uint64_t before = lab::cpu::refused_allocations();
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, std::size_t{1} << 62), cudaErrorMemoryAllocation);
    EXPECT_EQ(lab::cpu::refused_allocations(), before + 1);
    EXPECT_EQ(cudaMalloc(nullptr, 100), cudaErrorInvalidValue);
    ASSERT_EQ(cudaMalloc(&p, 100), cudaSuccess);
    EXPECT_EQ(cudaFree(p), cudaSuccess);
    EXPECT_EQ(lab::cpu::refused_allocations(), before + 1) << "counted what was not refused for want of memory";
    cudaGetLastError();
}

TEST_F(Emulator, CheckedCallsCarryTheEmulatorsExplanation)
{
    DeviceBuffer<int> device(4);
    int host[4] = {};
    try {
        LAB_CUDA_CHECK(cudaMemcpy(host, device.data(), sizeof host, cudaMemcpyHostToDevice));
        FAIL() << "a copy in the wrong direction went through";
    } catch (const lab::CudaError& e) {
        EXPECT_NE(std::string(e.what()).find("check the direction"), std::string::npos) << e.what();
    }
}

}  // namespace
