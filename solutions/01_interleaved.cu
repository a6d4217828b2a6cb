// 01_interleaved: the naive tree (reduce0 in the tutorials).
// Each block copies its slice of the input into shared memory, then halves the number of
// partial sums each step: with stride s, a thread whose index is a multiple of 2*s adds in the
// partial s slots to its right. Slow on purpose: % is costly, and the busy threads are scattered
// over every warp, so each warp runs both sides of the branch.
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per blockDim.x elements.
#include "lab/kernel.hpp"

namespace ex01 {

// Writes the sum of block b's slice, in[b * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    // BEGIN TODO(01-shared-decl, ~1 line): `partial` must be one array that every thread of the
    //   block reads and writes, with a slot for each thread of the largest block the kit launches
    //   (lab::kMaxBlockSize): the tree below adds up slots that other threads wrote. As it stands,
    //   each thread has its own private copy, and nothing is ever added across threads.
    __shared__ T partial[lab::kMaxBlockSize];
    // STUB: T partial[lab::kMaxBlockSize];  // private to each thread: nothing is shared yet
    // END TODO

    const unsigned tid = threadIdx.x;

    // BEGIN TODO(01-padding, ~2 lines): slot tid must hold this thread's element of the block's
    //   slice (the comment above the kernel says where the slice starts). The last block may reach
    //   past the end of the input: a thread with no element reads nothing, since memory past n is
    //   not the input's, and stores the value that leaves a sum unchanged. The index must be right
    //   for any input a GPU holds: in 32 bits, blockIdx.x * blockDim.x wraps past 2^32 elements
    //   (2^31 when signed), so it is 64 bits from the first product on. This rung's cases are far
    //   smaller; from rung 07 on a case past 2^31 elements runs on a GPU with the memory for it.
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : T(0);
    // STUB: partial[tid] = T(0);
    // END TODO
    __syncthreads();

    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        // BEGIN TODO(01-loop-cond, ~3 lines): after this step, every slot whose index is a multiple
        //   of 2 * stride must hold the sum of the 2 * stride elements that start there, so that
        //   slot 0 holds the block's sum when the loop ends. Only the threads at those slots work in
        //   this step; any other thread would write a slot that a working thread is reading.
        if (tid % (2 * stride) == 0) {
            partial[tid] += partial[tid + stride];
        }
        // STUB:
        // END TODO
        __syncthreads();
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex01
