// 05_unroll_last_warp: the last warp without __syncthreads (reduce4 and reduce5 in the tutorials).
// Changed since 04: once 32 or fewer threads still add, they all belong to warp 0, yet the loop
// keeps stopping the whole block at __syncthreads() and testing `tid < stride`. Here the loop ends
// at 64 partials, and warp 0 folds those alone, synchronised by __syncwarp(), which waits for the
// warp only. Since Volta a warp's threads may drift apart, so each step reads into a register,
// syncs, writes and syncs again; the tutorials' `volatile`-only version is no longer safe.
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per 2 * blockDim.x elements.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 05 (./lab watch 05 checks on every save); stuck? ./lab hint 05.
#include "lab/kernel.hpp"

namespace ex05 {

// Writes the sum of block b's slice, in[b * 2 * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    __shared__ T partial[lab::kMaxBlockSize];

    const unsigned tid = threadIdx.x;
    const std::size_t i = std::size_t{blockIdx.x} * (2 * blockDim.x) + tid;
    T sum = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    partial[tid] = sum;
    __syncthreads();

    // The tree, while more than one warp has work.
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }

    if (tid < 32) {
        // TODO(05-warp-unroll, ~6 lines): fold the 64 partials left into partial[0] with warp
        //   0 alone. For offset = 32, 16, 8, 4, 2, 1: read partial[tid + offset] into a register,
        //   __syncwarp(), add it into partial[tid], __syncwarp(). Without the first __syncwarp() a
        //   lane may write a slot before another lane has read it; without the second, read it
        //   before it is written.
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex05
