// 04_first_add: first add during load (reduce3 in the tutorials).
// Changed since 03: there, half the threads idled from the very first step. Now each block
// covers 2 * blockDim.x elements and every thread adds two of them while loading, so the grid
// needs half as many blocks and every thread does useful work before the tree starts.
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per 2 * blockDim.x
// elements.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 04 (./lab watch 04 checks on every save); stuck? ./lab hint 04.
#include "lab/kernel.hpp"

namespace ex04 {

// Writes the sum of block b's slice, in[b * 2 * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    __shared__ T partial[lab::kMaxBlockSize];

    const unsigned tid = threadIdx.x;

    // TODO(04-two-loads, ~4 lines): compute i, this thread's first element: the block's slice
    //   starts at element blockIdx.x * 2 * blockDim.x (count in std::size_t). Store the sum of the
    //   elements at i and i + blockDim.x in partial[tid]. Either may lie past the end of the input
    //   (an odd n, a short last block): check each bound on its own and count a missing one as 0.
    partial[tid] = T(0);
    __syncthreads();

    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex04
