// 04_first_add: first add during load (reduce3 in the tutorials).
// Changed since 03: there, half the threads idled from the very first step. Now each block
// covers 2 * blockDim.x elements and every thread adds two of them while loading, so the grid
// needs half as many blocks and every thread does useful work before the tree starts.
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per 2 * blockDim.x
// elements.
#include "lab/kernel.hpp"

namespace ex04 {

// Writes the sum of block b's slice, in[b * 2 * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const unsigned tid = threadIdx.x;
    // BEGIN TODO(04-shared-decl, from 01-shared-decl)
    __shared__ T partial[lab::kMaxBlockSize];
    // STUB: T partial[lab::kMaxBlockSize];  // private to each thread: nothing is shared yet
    // END TODO

    // BEGIN TODO(04-two-loads, ~3 lines): `sum` must hold this thread's two elements of the block's
    //   slice, which is twice as long now (the comment above the kernel says where it starts): two
    //   elements a block's width apart, so that each half of the slice is read by consecutive
    //   threads, side by side in memory. Either element may lie past the end of the input (an odd
    //   n, a short last block): each is read only when it exists, and a missing one adds nothing.
    //   Count in 64 bits, as in rung 01.
    const std::size_t i = std::size_t{blockIdx.x} * (2 * blockDim.x) + tid;
    T sum = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    // STUB: T sum = T(0);
    // END TODO
    partial[tid] = sum;
    __syncthreads();

    // BEGIN TODO(04-tree, from 03-loop)
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    // STUB:
    // END TODO

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex04
