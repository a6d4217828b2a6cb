// 02_strided_index: no divergent branch (reduce1 in the tutorials).
// Changed since 01: thread t no longer works on slot t. The slots that add in a step are handed
// to the first threads, one each, so the busy threads are the first ones: whole warps are either
// busy or idle, and the costly % is gone. New problem: the slots a warp touches lie 2*s apart in
// the step with stride s, so several of its threads hit the same shared-memory bank at once (03
// fixes that).
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per blockDim.x elements.
#include "lab/kernel.hpp"

namespace ex02 {

// Writes the sum of block b's slice, in[b * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const unsigned tid = threadIdx.x;
    // BEGIN TODO(02-load, from 01-shared-decl 01-padding)
    __shared__ T partial[lab::kMaxBlockSize];
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : T(0);
    // STUB: T partial[lab::kMaxBlockSize];  // private to each thread: nothing is shared yet
    // STUB: partial[tid] = T(0);
    // END TODO
    __syncthreads();

    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        // BEGIN TODO(02-strided-index, ~4 lines): the same step as rung 01's (after it, each slot at
        //   a multiple of 2 * stride holds the sum of the 2 * stride elements from there on), done by
        //   the first threads: thread t works on the t-th such slot, so a warp is either all busy or
        //   all idle, and no thread needs a %. A thread whose slot lies past the block does nothing:
        //   the slot it would add in lies past the array.
        const unsigned index = 2 * stride * tid;
        if (index < blockDim.x) {
            partial[index] += partial[index + stride];
        }
        // STUB:
        // END TODO
        __syncthreads();
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex02
