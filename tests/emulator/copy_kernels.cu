// Kernels for the CPU backend's tests of cooperative_groups::memcpy_async (copy_test.cpp): correct
// ones that must give the host's answer under every thread order, and planted mistakes the backend
// must report with their line (or, for a read of a destination smaller than a page before the copy
// has landed, get wrong in every order).
#include "copy_kernels.hpp"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

#include <cstddef>

#include "lab/kernel.hpp"

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;

// The block's 256 partials summed into partial[0] (a tree; every thread reaches every barrier).
__device__ float block_sum(float* partial, float mine)
{
    const unsigned t = threadIdx.x;
    partial[t] = mine;
    __syncthreads();
    for (unsigned stride = kThreads / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    return partial[0];
}

__global__ void copy_sum(const float4* in, float* out, int blocks, int mistake_number)
{
    const auto mistake = static_cast<emulated::CopyMistake>(mistake_number);
    using emulated::CopyMistake;
    __shared__ float4 tile[kThreads];  // 4096 bytes: a whole page
    __shared__ float4 half_tile[kThreads / 2];
    __shared__ float4 small_tile[kThreads / 4];
    __shared__ float partial[kThreads];
    cg::thread_block block = cg::this_thread_block();
    const unsigned t = threadIdx.x;
    const float4* source = in + static_cast<std::size_t>(blockIdx.x) * kThreads;
    std::size_t bytes = kThreads * sizeof(float4);
    if (mistake == CopyMistake::source_past_end && static_cast<int>(blockIdx.x) == blocks - 1) source += 1;
    if (mistake == CopyMistake::size_not_whole) bytes -= 4;
    if (mistake == CopyMistake::other_arguments && t == 5) source += 1;
    float mine = 0.0f;
    if (mistake == CopyMistake::destination_past_end) {
        cg::memcpy_async(block, half_tile, source, bytes);
    } else if (mistake == CopyMistake::small_read_before_wait) {
        cg::memcpy_async(block, small_tile, source + kThreads / 4, sizeof small_tile);  // an earlier stage, waited for
        cg::wait(block);
        cg::memcpy_async(block, small_tile, source, sizeof small_tile);  // the stage it means to sum, into the same tile
        const float4 v = small_tile[t % (kThreads / 4)];  // too early: the tile may still hold the earlier stage
        cg::wait(block);
        mine = t < kThreads / 4 ? v.x + v.y + v.z + v.w : 0.0f;
        const float total = block_sum(partial, mine);
        if (t == 0) out[blockIdx.x] = total;
        return;
    } else if (mistake != CopyMistake::half_the_threads || t < kThreads / 2) {
        cg::memcpy_async(block, tile, source, bytes);
    }
    if (mistake == CopyMistake::read_before_wait) mine = tile[t].x;  // too early: the copy may not have landed
    if (mistake == CopyMistake::no_wait) __syncthreads();
    else cg::wait(block);
    const float4 v = tile[t];
    mine += v.x + v.y + v.z + v.w;
    const float total = block_sum(partial, mine);
    if (t == 0) out[blockIdx.x] = total;
}

__global__ void staged_copy_sum(const float4* in, float* out)
{
    __shared__ float4 stage[2][kThreads / 2];
    __shared__ float partial[kThreads];
    cg::thread_block block = cg::this_thread_block();
    const unsigned t = threadIdx.x;
    const float4* source = in + static_cast<std::size_t>(blockIdx.x) * kThreads;
    cg::memcpy_async(block, stage[0], source, sizeof stage[0]);
    cg::memcpy_async(block, stage[1], source + kThreads / 2, sizeof stage[1]);
    cg::wait_prior<1>(block);  // the first stage has landed; the second may not have
    float mine = 0.0f;
    if (t < kThreads / 2) mine = stage[0][t].x + stage[0][t].y + stage[0][t].z + stage[0][t].w;
    cg::wait(block);
    if (t >= kThreads / 2) {
        const float4 v = stage[1][t - kThreads / 2];
        mine = v.x + v.y + v.z + v.w;
    }
    const float total = block_sum(partial, mine);
    if (t == 0) out[blockIdx.x] = total;
}

__global__ void dynamic_copy_sum(const float4* in, float* out)
{
    extern __shared__ float4 tiles[];
    __shared__ float partial[kThreads];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, tiles, in + static_cast<std::size_t>(blockIdx.x) * kThreads, kThreads * sizeof(float4));
    cg::wait(block);
    const float4 v = tiles[threadIdx.x];
    const float total = block_sum(partial, v.x + v.y + v.z + v.w);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

}  // namespace

namespace emulated {

void copy_sum(const float* in, float* out, int blocks, CopyMistake mistake)
{
    ::copy_sum<<<blocks, kThreads>>>(reinterpret_cast<const float4*>(in), out, blocks, static_cast<int>(mistake));
}

void staged_copy_sum(const float* in, float* out, int blocks)
{
    ::staged_copy_sum<<<blocks, kThreads>>>(reinterpret_cast<const float4*>(in), out);
}

void dynamic_copy_sum(const float* in, float* out, int blocks)
{
    ::dynamic_copy_sum<<<blocks, kThreads, kThreads * sizeof(float4)>>>(reinterpret_cast<const float4*>(in), out);
}

}  // namespace emulated
