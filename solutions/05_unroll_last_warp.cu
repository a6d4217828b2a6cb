// 05_unroll_last_warp: the last warp without __syncthreads (reduce4 in the CUDA samples).
// Changed since 04: once 32 or fewer threads still add, they all belong to warp 0, yet the loop
// keeps stopping the whole block at __syncthreads() and testing `tid < stride`. Here the loop ends
// at 64 partials, and warp 0 folds those alone, synchronised by __syncwarp(), which waits for the
// warp only. Since Volta a warp's threads may drift apart, so the tutorials' version, which marks
// the array `volatile` and trusts the lanes to run in step, is no longer safe.
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per 2 * blockDim.x elements.
#include "lab/kernel.hpp"

namespace ex05 {

// Writes the sum of block b's slice, in[b * 2 * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const unsigned tid = threadIdx.x;
    // BEGIN TODO(05-load, from 01-shared-decl 04-two-loads)
    __shared__ T partial[lab::kMaxBlockSize];
    const std::size_t i = std::size_t{blockIdx.x} * (2 * blockDim.x) + tid;
    T sum = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    // STUB: T partial[lab::kMaxBlockSize];  // private to each thread: nothing is shared yet
    // STUB: T sum = T(0);
    // END TODO
    partial[tid] = sum;
    __syncthreads();

    // The tree, while more than one warp has work.
    // BEGIN TODO(05-tree, from 03-loop): it now stops once 64 partials are left, for warp 0 to fold
    //   below on its own.
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    // STUB:
    // END TODO

    if (tid < 32) {
        // BEGIN TODO(05-warp-unroll, ~6 lines): fold the last 64 partials into slot 0 within this one
        //   warp, with no __syncthreads(): the rest of the block has no more work. Since Volta a
        //   warp's lanes need not run in step, so no lane may read a slot another lane has not
        //   finished writing, and no lane may write a slot another lane has yet to read.
#pragma unroll
        for (unsigned offset = 32; offset > 0; offset /= 2) {
            const T other = partial[tid + offset];
            __syncwarp();
            partial[tid] += other;
            __syncwarp();
        }
        // STUB:
        // END TODO
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex05
