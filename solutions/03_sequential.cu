// 03_sequential: sequential addressing (reduce2 in the tutorials).
// Changed since 02: the tree runs the other way. The first step folds the upper half of the
// block onto the lower half, the next folds the upper quarter onto the lower quarter, and so on.
// The busy threads are still the first ones, and now consecutive threads touch consecutive
// slots, so no two threads of a warp hit the same bank. Still wasteful: half the threads never
// add anything (04 puts them to work).
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per blockDim.x elements.
#include "lab/kernel.hpp"

namespace ex03 {

// Writes the sum of block b's slice, in[b * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const unsigned tid = threadIdx.x;
    // BEGIN TODO(03-load, from 01-shared-decl 01-padding)
    __shared__ T partial[lab::kMaxBlockSize];
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : T(0);
    // STUB: T partial[lab::kMaxBlockSize];  // private to each thread: nothing is shared yet
    // STUB: partial[tid] = T(0);
    // END TODO
    __syncthreads();

    // BEGIN TODO(03-loop, ~4 lines): the tree, the other way round: each step folds the upper half
    //   of the partials still live onto the lower half, slot for slot, until slot 0 holds the
    //   block's sum. The live partials stay the first ones, so the working threads are the first
    //   ones and neighbouring threads touch neighbouring slots: no two lanes of a warp share a bank.
    //   Within a step no working thread reads a slot that another one writes; no thread begins a
    //   step before the whole block has finished the one before.
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    // STUB:
    // END TODO

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex03
