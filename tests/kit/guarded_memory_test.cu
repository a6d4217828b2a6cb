// On a GPU, cudaMalloc as the suites' programs and the grader's runner have it
// (lab/guarded_memory.hpp): poisoned, 256-byte aligned, ending at a guard that a read faults on.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#include "lab/cpu/memory_layout.hpp"
#include "lab/guarded_memory.hpp"

namespace {

__global__ void read_at(const float* in, std::size_t at, float* out)
{
    *out = in[at];
}

// The whole process ends here, with the status saying whether a read `past` floats beyond the end
// of an allocation of n floats faulted: 0 it did not, 1 it faulted, 2 something else went wrong.
[[noreturn]] void read_past_the_end(std::size_t n, std::size_t past)
{
    float* in = nullptr;
    float* out = nullptr;
    if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, sizeof(float)) != cudaSuccess) std::_Exit(2);
    read_at<<<1, 1>>>(in, n - 1 + past, out);
    const cudaError_t e = cudaDeviceSynchronize();
    std::_Exit(e == cudaSuccess ? 0 : e == cudaErrorIllegalAddress ? 1 : 2);
}

bool a_gpu()
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace

TEST(GuardedMemory, IsOnUnlessATool)
{
    if (!a_gpu()) GTEST_SKIP() << "no GPU";
    const char* tool = std::getenv("LAB_EXPECT_A_TOOL");
    EXPECT_EQ(lab::device_memory_guarded(), !(tool && *tool)) << "LAB_EXPECT_A_TOOL=" << (tool ? tool : "");
}

TEST(GuardedMemory, StartsPoisonedAlignedAndEndsInSlack)
{
    if (!a_gpu()) GTEST_SKIP() << "no GPU";
    if (!lab::device_memory_guarded()) GTEST_SKIP() << "cudaMalloc's own memory here (a tool watches)";
    for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20, (std::size_t{1} << 20) + 3}) {
        float* in = nullptr;
        ASSERT_EQ(cudaMalloc(&in, n * sizeof(float)), cudaSuccess);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(in) % 256, 0u) << n;
        const std::size_t bytes = n * sizeof(float);
        const std::size_t slack = (bytes + 255) / 256 * 256 - bytes;
        std::vector<unsigned char> got(bytes + slack);
        ASSERT_EQ(cudaMemcpy(got.data(), in, got.size(), cudaMemcpyDeviceToHost), cudaSuccess) << n;
        std::size_t poisoned = 0, slack_bytes = 0;
        for (std::size_t i = 0; i < bytes; ++i) poisoned += got[i] == 0xFF;
        for (std::size_t i = bytes; i < got.size(); ++i) slack_bytes += got[i] == 0xCD;
        EXPECT_EQ(poisoned, bytes) << n;
        EXPECT_EQ(slack_bytes, slack) << n;
        ASSERT_EQ(cudaFree(in), cudaSuccess) << n;
    }
}

// The grader's runner says which cases had a cudaMalloc refused for want of memory (judge/protocol.hpp),
// on a shared GPU the cases run again alone: every refusal is counted, guarded or not, and nothing else.
TEST(GuardedMemory, CountsEveryAllocationRefusedForWantOfMemory)
{
    if (!a_gpu()) GTEST_SKIP() << "no GPU";
    std::size_t free = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    const std::uint64_t before = lab::cpu::refused_allocations();
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, total + (std::size_t{1} << 30)), cudaErrorMemoryAllocation) << "more than the GPU has";
    EXPECT_EQ(lab::cpu::refused_allocations(), before + 1);
    EXPECT_EQ(cudaMalloc(&p, std::size_t{1} << 42), cudaErrorMemoryAllocation) << "4 TiB, past the guarded sizes";
    EXPECT_EQ(lab::cpu::refused_allocations(), before + 2);
    cudaGetLastError();
    ASSERT_EQ(cudaMalloc(&p, 1000), cudaSuccess);
    EXPECT_EQ(cudaFree(p), cudaSuccess);
    EXPECT_EQ(cudaMalloc(nullptr, 1000), cudaErrorInvalidValue);
    cudaGetLastError();
    EXPECT_EQ(lab::cpu::refused_allocations(), before + 2) << "counted what was not refused for want of memory";
}

TEST(GuardedMemory, FreedAllocationsGiveTheirMemoryBack)
{
    if (!a_gpu()) GTEST_SKIP() << "no GPU";
    std::size_t free_before = 0, free_after = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    for (int i = 0; i < 200; ++i) {
        void* p = nullptr;
        ASSERT_EQ(cudaMalloc(&p, std::size_t{64} << 20), cudaSuccess) << i;
        ASSERT_EQ(cudaFree(p), cudaSuccess) << i;
    }
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    EXPECT_LT(free_before - std::min(free_before, free_after), std::size_t{256} << 20);  // 200 x 64 MiB not kept
}

// A child of its own for each read (a fault ends the CUDA context): threadsafe death tests start the
// program again rather than fork a process that has a context.
TEST(GuardedMemory, AReadPastTheSlackFaultsAndOneInItDoesNot)
{
    if (!a_gpu()) GTEST_SKIP() << "no GPU";
    if (!lab::device_memory_guarded()) GTEST_SKIP() << "cudaMalloc's own memory here (a tool watches)";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const std::size_t n = 1000;  // 4000 bytes: 96 bytes of slack, 24 floats
    EXPECT_EXIT(read_past_the_end(n, 24), testing::ExitedWithCode(0), "") << "the last float of the slack";
    EXPECT_EXIT(read_past_the_end(n, 25), testing::ExitedWithCode(1), "") << "the first float of the guard";
    EXPECT_EXIT(read_past_the_end(n, 1000000), testing::ExitedWithCode(1), "") << "a million floats on";
    EXPECT_EXIT(read_past_the_end((std::size_t{1} << 20) + 3, 4096), testing::ExitedWithCode(1), "");
}
