// The CPU backend's tests of thread-block clusters: the blocks of a cluster run together, the
// cluster's barrier holds all their threads, map_shared_rank reaches another block's shared memory,
// and each mistake the CUDA C++ Programming Guide warns of is reported with its line, not hung.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "cluster_kernels.hpp"
#include "lab/cuda.hpp"
#include "lab/device_buffer.hpp"
#include "emulator_support.hpp"

namespace {

using lab::DeviceBuffer;
using lab::cpu::Schedule;

using emulator_support::error_of;
using emulator_support::kOrders;

class Clusters : public ::testing::Test {
protected:
    void SetUp() override
    {
        lab::cpu::echo_errors(false);
        (void)cudaGetLastError();  // a test before this one in the same process may have left one
    }
    void TearDown() override
    {
        lab::cpu::set_schedule(Schedule::forward);
        lab::cpu::echo_errors(true);
    }
};

std::vector<int> ramp(int n)
{
    std::vector<int> v(n);
    for (int i = 0; i < n; ++i) v[i] = i % 23 - 7;
    return v;
}

std::vector<int> cluster_totals(const std::vector<int>& in, int per_cluster)
{
    std::vector<int> totals(in.size() / per_cluster);
    for (std::size_t c = 0; c < totals.size(); ++c)
        totals[c] = std::accumulate(in.begin() + c * per_cluster, in.begin() + (c + 1) * per_cluster, 0);
    return totals;
}

TEST_F(Clusters, AClusterSumIsRightUnderEveryOrder)
{
    constexpr int kClusters = 6;
    const auto input = ramp(kClusters * 4 * 64);
    DeviceBuffer<int> in(input.size()), out(kClusters);
    in.upload(input);
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 3);
        out.fill(-1);
        ASSERT_EQ(error_of([&] { emulated::cluster_sum(in.data(), out.data(), kClusters, 0); }), "") << lab::cpu::name_of(order);
        EXPECT_EQ(out.download(), cluster_totals(input, 4 * 64)) << lab::cpu::name_of(order);
    }
}

TEST_F(Clusters, DynamicSharedMemoryIsReachedAcrossTheCluster)
{
    constexpr int kClusters = 3;
    for (unsigned size : {1u, 2u, 8u}) {
        const auto input = ramp(kClusters * static_cast<int>(size) * 32);
        DeviceBuffer<int> in(input.size()), out(kClusters);
        in.upload(input);
        for (Schedule order : kOrders) {
            lab::cpu::set_schedule(order, 5);
            out.fill(-1);
            ASSERT_EQ(error_of([&] { return emulated::dynamic_cluster_sum(in.data(), out.data(), kClusters, size); }), "")
                << size << " " << lab::cpu::name_of(order);
            EXPECT_EQ(out.download(), cluster_totals(input, static_cast<int>(size) * 32)) << size << " " << lab::cpu::name_of(order);
        }
    }
}

// A 4x2 grid in clusters of 2x2: ranks x fastest, as CUDA numbers them.
TEST_F(Clusters, EachBlockKnowsItsPlaceInItsCluster)
{
    DeviceBuffer<unsigned> out(8 * 7);
    ASSERT_EQ(error_of([&] { return emulated::cluster_shape(out.data(), dim3(4, 2), dim3(2, 2)); }), "");
    const auto got = out.download();
    for (unsigned by = 0; by < 2; ++by)
        for (unsigned bx = 0; bx < 4; ++bx) {
            const unsigned* o = &got[(by * 4 + bx) * 7];
            const unsigned rank = bx % 2 + by % 2 * 2;
            EXPECT_EQ(std::vector<unsigned>(o, o + 7), (std::vector<unsigned>{rank, 4, 2, 2, bx % 2, by % 2, rank}))
                << "block (" << bx << "," << by << ")";
        }
}

// The Programming Guide's rule: until every block of the cluster has passed a cluster.sync(), a block
// may not reach another's shared memory (it may not have started, nor written it). Reported in
// every order, with the line of the read.
TEST_F(Clusters, AReadOfAnotherBlockBeforeTheClusterBarrierIsReportedWithItsLine)
{
    const auto input = ramp(4 * 64);
    DeviceBuffer<int> in(input.size()), out(1);
    in.upload(input);
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 7);
        const auto error = error_of([&] { emulated::cluster_sum(in.data(), out.data(), 1, 1); });
        EXPECT_NE(error.find("of block rank 1 of its cluster (through map_shared_rank) before the cluster's first barrier"),
                  std::string::npos) << lab::cpu::name_of(order) << ": " << error;
        EXPECT_NE(error.find("tests/emulator/cluster_kernels.cu:37"), std::string::npos) << lab::cpu::name_of(order) << ": " << error;
    }
}

// And no block may end while another may still read its shared memory: with the blocks that end
// first run first (the reverse order), rank 0's read of theirs is reported with its line. In the
// forward order rank 0 reads first and the answer comes out right, as it may on a GPU (unless a
// spin point, every 16384 loop steps of a worker, lets the others end first: then it is reported too).
TEST_F(Clusters, ABlockThatEndsBeforeTheOthersHaveReadItIsReportedInOneOrder)
{
    const auto input = ramp(4 * 64);
    DeviceBuffer<int> in(input.size()), out(1);
    in.upload(input);
    const std::string report = "after that block had ended";
    lab::cpu::set_schedule(Schedule::forward);
    const auto forward = error_of([&] { emulated::cluster_sum(in.data(), out.data(), 1, 2); });
    if (forward.empty()) EXPECT_EQ(out.download(), cluster_totals(input, 4 * 64));
    else EXPECT_NE(forward.find(report), std::string::npos) << forward;
    lab::cpu::set_schedule(Schedule::reverse);
    const auto error = error_of([&] { emulated::cluster_sum(in.data(), out.data(), 1, 2); });
    EXPECT_NE(error.find(report), std::string::npos) << error;
    EXPECT_NE(error.find("tests/emulator/cluster_kernels.cu:37"), std::string::npos) << error;
}

TEST_F(Clusters, ARankPastTheClusterIsReported)
{
    const auto input = ramp(4 * 64);
    DeviceBuffer<int> in(input.size()), out(1);
    in.upload(input);
    const auto error = error_of([&] { emulated::cluster_sum(in.data(), out.data(), 1, 3); });
    EXPECT_NE(error.find("for block rank 4, but its cluster has 4 block(s), ranks 0 to 3"), std::string::npos) << error;
}

// Not hung: a block that returns without reaching the cluster's barrier, in either order (the others
// arrive first, or it returns first), and a barrier of its own that the rest of the cluster never joins.
TEST_F(Clusters, AClusterBarrierNotReachedByEveryBlockIsReported)
{
    DeviceBuffer<int> out(2);
    lab::cpu::set_schedule(Schedule::forward);
    auto error = error_of([&] { emulated::cluster_barrier_missed(out.data(), 0); });
    EXPECT_NE(error.find("thread(s) of the cluster wait at cluster.sync at tests/emulator/cluster_kernels.cu:"), std::string::npos)
        << error;
    lab::cpu::set_schedule(Schedule::reverse);
    error = error_of([&] { emulated::cluster_barrier_missed(out.data(), 0); });
    EXPECT_NE(error.find("thread(s) of the cluster have already returned (every thread of block(s) (1,0,0))"), std::string::npos)
        << error;
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 9);
        error = error_of([&] { emulated::cluster_barrier_missed(out.data(), 1); });
        EXPECT_NE(error.find("no thread of the cluster can go on"), std::string::npos) << lab::cpu::name_of(order) << ": " << error;
        EXPECT_NE(error.find("wait at __syncthreads at tests/emulator/cluster_kernels.cu:"), std::string::npos) << error;
        EXPECT_NE(error.find("wait at cluster.sync at tests/emulator/cluster_kernels.cu:"), std::string::npos) << error;
    }
}

// The split barrier: after cluster.sync(), each block reads the others' shared memory, arrives, works
// and waits before it ends. Right in every order, with a token and without, twice in a row.
TEST_F(Clusters, TheSplitBarrierExchangeIsRightUnderEveryOrder)
{
    constexpr int kClusters = 3;
    const auto input = ramp(kClusters * 4 * 64);
    DeviceBuffer<int> in(input.size()), out(kClusters * 4);
    in.upload(input);
    std::vector<int> want;
    for (int total : cluster_totals(input, 4 * 64)) want.insert(want.end(), 4, total);
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 13);
        out.fill(-1);
        ASSERT_EQ(error_of([&] { emulated::split_exchange(in.data(), out.data(), kClusters, emulated::SplitMistake::none); }), "")
            << lab::cpu::name_of(order);
        EXPECT_EQ(out.download(), want) << lab::cpu::name_of(order);
    }
    for (unsigned size : {1u, 2u, 8u}) {
        const auto values = ramp(kClusters * static_cast<int>(size) * 32);
        DeviceBuffer<int> in2(values.size()), out2(values.size());
        in2.upload(values);
        std::vector<int> twice(values.size(), 0);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::size_t cluster = i / (size * 32), t = i % 32;
            for (unsigned rank = 0; rank < size; ++rank) twice[i] += 2 * values[(cluster * size + rank) * 32 + t];
        }
        for (Schedule order : kOrders) {
            lab::cpu::set_schedule(order, 17);
            out2.fill(-1);
            ASSERT_EQ(error_of([&] { return emulated::split_exchange_twice(in2.data(), out2.data(), kClusters, size); }), "")
                << size << " " << lab::cpu::name_of(order);
            EXPECT_EQ(out2.download(), twice) << size << " " << lab::cpu::name_of(order);
        }
    }
}

// A block that reads another's shared memory after its own arrival: the others may have passed
// their wait and ended by then. Reported in the forward and the reverse order, with the line.
TEST_F(Clusters, ARemoteReadAfterTheArrivalIsReportedWithItsLine)
{
    const auto input = ramp(4 * 64);
    DeviceBuffer<int> in(input.size()), out(4);
    in.upload(input);
    for (Schedule order : {Schedule::forward, Schedule::reverse}) {
        lab::cpu::set_schedule(order);
        const auto error = error_of([&] { emulated::split_exchange(in.data(), out.data(), 1, emulated::SplitMistake::arrive_before_reads); });
        EXPECT_NE(error.find("(through map_shared_rank) after that block had ended"), std::string::npos) << lab::cpu::name_of(order) << ": " << error;
        EXPECT_NE(error.find("tests/emulator/cluster_kernels.cu:124"), std::string::npos) << lab::cpu::name_of(order) << ": " << error;
    }
}

// A block that ends after its arrival without waiting: its shared memory may be gone while another
// block still reads it. Reported in the reverse order (the last block runs ahead to its end).
TEST_F(Clusters, ABlockThatEndsWithoutItsWaitIsReportedInOneOrder)
{
    const auto input = ramp(4 * 64);
    DeviceBuffer<int> in(input.size()), out(4);
    in.upload(input);
    lab::cpu::set_schedule(Schedule::reverse);
    const auto error = error_of([&] { emulated::split_exchange(in.data(), out.data(), 1, emulated::SplitMistake::no_wait); });
    EXPECT_NE(error.find("(through map_shared_rank) after that block had ended"), std::string::npos) << error;
    EXPECT_NE(error.find("tests/emulator/cluster_kernels.cu:124"), std::string::npos) << error;
}

TEST_F(Clusters, AWaitWithoutAnArrivalAndTwoArrivalsAreReported)
{
    const auto input = ramp(4 * 64);
    DeviceBuffer<int> in(input.size()), out(4);
    in.upload(input);
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 19);
        auto error = error_of([&] { emulated::split_exchange(in.data(), out.data(), 1, emulated::SplitMistake::wait_without_arrive); });
        EXPECT_NE(error.find("calls cluster.barrier_wait at tests/emulator/cluster_kernels.cu:129 without having arrived"),
                  std::string::npos) << lab::cpu::name_of(order) << ": " << error;
        error = error_of([&] { emulated::split_exchange(in.data(), out.data(), 1, emulated::SplitMistake::arrive_twice); });
        EXPECT_NE(error.find("calls cluster.barrier_arrive at tests/emulator/cluster_kernels.cu:127, but it has arrived at the "
                             "cluster's barrier already"),
                  std::string::npos) << lab::cpu::name_of(order) << ": " << error;
    }
}

// Not hung: block rank 1 returns where the others arrive at the split barrier; they wait at
// barrier_wait() for an arrival that never comes (or, where it returns first, arrive after it has gone).
TEST_F(Clusters, ASplitBarrierNotReachedByEveryBlockIsReported)
{
    const auto input = ramp(4 * 64);
    DeviceBuffer<int> in(input.size()), out(4);
    in.upload(input);
    for (Schedule order : kOrders) {
        lab::cpu::set_schedule(order, 23);
        const auto error = error_of([&] { emulated::split_exchange(in.data(), out.data(), 1, emulated::SplitMistake::one_block_returns); });
        const bool waiting = error.find("returned while") != std::string::npos &&
                             error.find("for every thread of the cluster to arrive") != std::string::npos;
        const bool gone = error.find("reached cluster.barrier_arrive at tests/emulator/cluster_kernels.cu:127, but") != std::string::npos &&
                          error.find("thread(s) of the cluster have already returned (every thread of block(s) (1,0,0))") != std::string::npos;
        EXPECT_TRUE(waiting || gone) << lab::cpu::name_of(order) << ": " << error;
    }
}

// A GPU refuses these launches before running anything: a grid that is not whole clusters, more than
// 8 blocks a cluster without the kernel's opting in (16 with it), and a launch's cluster shape that
// differs from the kernel's own __cluster_dims__.
TEST_F(Clusters, ClusterLaunchesAreChecked)
{
    DeviceBuffer<unsigned> shape(16 * 7);
    auto error = error_of([&] { return emulated::cluster_shape(shape.data(), dim3(6), dim3(4)); });
    EXPECT_NE(error.find("is not a whole number of clusters of (4,1,1)"), std::string::npos) << error;
    error = error_of([&] { return emulated::cluster_shape(shape.data(), dim3(16), dim3(16)); });
    EXPECT_NE(error.find("a cluster holds at most 8 unless the kernel opts in"), std::string::npos) << error;
    emulated::allow_large_clusters();
    EXPECT_EQ(error_of([&] { return emulated::cluster_shape(shape.data(), dim3(16), dim3(16)); }), "");
    EXPECT_EQ(shape.download()[15 * 7], 15u) << "the last block's rank in a cluster of 16";

    const auto input = ramp(8 * 64);
    DeviceBuffer<int> in(input.size()), out(2);
    in.upload(input);
    EXPECT_EQ(error_of([&] { return emulated::cluster_sum_with_launch_attribute(in.data(), out.data(), 4); }), "");
    EXPECT_EQ(out.download(), cluster_totals(input, 4 * 64));
    error = error_of([&] { return emulated::cluster_sum_with_launch_attribute(in.data(), out.data(), 2); });
    EXPECT_NE(error.find("the kernel's __cluster_dims__(4,1,1) and the launch's cluster dimension (2,1,1) differ"), std::string::npos)
        << error;
}

}  // namespace
