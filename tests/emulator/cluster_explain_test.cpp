// ./lab explain's counts of a thread-block cluster on the CPU backend: requests to another block's
// shared memory (distributed shared memory) and the cluster's barriers, apart from a block's own
// shared memory and its __syncthreads().
#include <gtest/gtest.h>

#include <vector>

#include "lab/cpu/explain.hpp"
#include "lab/cuda.hpp"
#include "lab/device_buffer.hpp"
#include "lab/error.hpp"

namespace emulated {
void cluster_partials(const int* in, int* out, int clusters);
}

namespace {

TEST(ExplainClusters, CountsDistributedSharedMemoryRequestsAndClusterBarriers)
{
    constexpr int kClusters = 3, kBlocks = 4 * kClusters;
    std::vector<int> input(kBlocks);
    for (int b = 0; b < kBlocks; ++b) input[b] = b + 1;
    lab::DeviceBuffer<int> in(kBlocks), out(kClusters);
    in.upload(input);
    lab::cpu::explain::start();
    emulated::cluster_partials(in.data(), out.data(), kClusters);
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    const auto launches = lab::cpu::explain::stop();
    ASSERT_TRUE(lab::cpu::explain::saw_instrumented_code());
    ASSERT_EQ(launches.size(), 1u);
    const auto& total = launches[0].total;
    // Rank 0's thread 0 reads the three other blocks' partials (one request of 4 bytes each) and its own.
    EXPECT_EQ(total.distributed_requests, 3u * kClusters);
    EXPECT_EQ(total.distributed_bytes, 3u * 4 * kClusters);
    EXPECT_EQ(total.cluster_barriers, 2u * kBlocks) << "two cluster.sync() a block";
    EXPECT_EQ(total.barriers, 1u * kBlocks) << "one __syncthreads() a block";
    // Each block's own partial: written once; rank 0's also read once.
    EXPECT_EQ(total.shared_requests, 1u * kBlocks + kClusters);
    EXPECT_EQ(out.download(), (std::vector<int>{1 + 2 + 3 + 4, 5 + 6 + 7 + 8, 9 + 10 + 11 + 12}));
}

}  // namespace
