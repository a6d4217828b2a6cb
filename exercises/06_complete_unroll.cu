// 06_complete_unroll: the whole tree unrolled at compile time (NVIDIA's kernel 6).
// Changed since 05: the block size is a template parameter, kBlockSize, so each
// `if (kBlockSize >= ...)` below is settled by the compiler: the steps a block size does not need
// vanish, and no loop, counter or loop test is left. The shared array shrinks to the block's own
// size. The kit picks the instantiation that matches the launch's block size (one dispatcher for
// every rung: lab::with_block_size in harness/include/lab/dispatch.hpp).
// Preconditions: blockDim.x == kBlockSize, a power of two from 64 to 1024; one block per
// 2 * kBlockSize elements.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 06 (./lab watch 06 checks on every save); stuck? ./lab hint 06.
#include "lab/kernel.hpp"

namespace ex06 {

// Writes the sum of block b's slice, in[b * 2 * kBlockSize ...] up to n, to block_sums[b].
template <unsigned kBlockSize, typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const unsigned tid = threadIdx.x;
    // TODO(06-load, ~4 lines): bring your own code of TODO 01-shared-decl (rung 01) and TODO
    //   04-two-loads (rung 04) here; with kBlockSize for the block's size, and the array kBlockSize
    //   long.
    T partial[kBlockSize];  // private to each thread: nothing is shared yet
    T sum = T(0);
    partial[tid] = sum;
    __syncthreads();

    // TODO(06-unrolled-tree, ~4 lines): the tree's steps from the largest block's first one
    //   down to the one that leaves 64 partials, with no loop: one step per stride, each kept or
    //   dropped by the compiler according to kBlockSize, so that no counter, loop test or idle
    //   step is left at run time. Every thread of the block meets the same compile-time
    //   conditions, so a barrier inside one is reached by the whole block or by none of it.

    if (tid < 32) {
        // TODO(06-warp-unroll, ~6 lines): bring your own code of TODO 05-warp-unroll (rung 05) here.
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex06
