// 06_complete_unroll: the whole tree unrolled at compile time (NVIDIA's kernel 6).
// Changed since 05: the block size is a template parameter, kBlockSize, so each
// `if (kBlockSize >= ...)` below is settled by the compiler: the steps a block size does not need
// vanish, and no loop, counter or loop test is left. The shared array shrinks to the block's own
// size. The kit picks the instantiation that matches the launch's block size (one dispatcher for
// every rung: lab::with_block_size in harness/include/lab/dispatch.hpp).
// Preconditions: blockDim.x == kBlockSize, a power of two from 64 to 1024; one block per
// 2 * kBlockSize elements.
#include "lab/kernel.hpp"

namespace ex06 {

// Writes the sum of block b's slice, in[b * 2 * kBlockSize ...] up to n, to block_sums[b].
template <unsigned kBlockSize, typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const unsigned tid = threadIdx.x;
    // BEGIN TODO(06-load, from 01-shared-decl 04-two-loads): with kBlockSize for the block's size,
    //   and the array kBlockSize long.
    __shared__ T partial[kBlockSize];
    const std::size_t i = std::size_t{blockIdx.x} * (2 * kBlockSize) + tid;
    T sum = i < n ? in[i] : T(0);
    if (i + kBlockSize < n) sum += in[i + kBlockSize];
    // STUB: T partial[kBlockSize];  // private to each thread: nothing is shared yet
    // STUB: T sum = T(0);
    // END TODO
    partial[tid] = sum;
    __syncthreads();

    // BEGIN TODO(06-unrolled-tree, ~4 lines): the tree's steps from the largest block's first one
    //   down to the one that leaves 64 partials, with no loop: one step per stride, each kept or
    //   dropped by the compiler according to kBlockSize, so that no counter, loop test or idle
    //   step is left at run time. Every thread of the block meets the same compile-time
    //   conditions, so a barrier inside one is reached by the whole block or by none of it.
    if (kBlockSize >= 1024) { if (tid < 512) partial[tid] += partial[tid + 512]; __syncthreads(); }
    if (kBlockSize >= 512) { if (tid < 256) partial[tid] += partial[tid + 256]; __syncthreads(); }
    if (kBlockSize >= 256) { if (tid < 128) partial[tid] += partial[tid + 128]; __syncthreads(); }
    if (kBlockSize >= 128) { if (tid < 64) partial[tid] += partial[tid + 64]; __syncthreads(); }
    // STUB:
    // END TODO

    if (tid < 32) {
        // BEGIN TODO(06-warp-unroll, from 05-warp-unroll)
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

}  // namespace ex06
