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
    __shared__ T partial[kBlockSize];

    const unsigned tid = threadIdx.x;
    const std::size_t i = std::size_t{blockIdx.x} * (2 * kBlockSize) + tid;
    T sum = i < n ? in[i] : T(0);
    if (i + kBlockSize < n) sum += in[i + kBlockSize];
    partial[tid] = sum;
    __syncthreads();

    // TODO(06-unrolled-tree, ~4 lines): the tree's steps for strides 512, 256, 128 and 64,
    //   with no loop: for each stride S, `if (kBlockSize >= 2 * S) { if (tid < S) partial[tid] +=
    //   partial[tid + S]; __syncthreads(); }`. Every thread evaluates the same compile-time
    //   condition, so the barrier inside it is reached by the whole block or by none of it.

    if (tid < 32) {
#pragma unroll
        for (unsigned offset = 32; offset > 0; offset /= 2) {
            const T other = partial[tid + offset];
            __syncwarp();
            partial[tid] += other;
            __syncwarp();
        }
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex06
