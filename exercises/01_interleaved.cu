// 01_interleaved: the naive tree (reduce0 in the tutorials).
// Each block copies its slice of the input into shared memory, then halves the number of
// partial sums each step: with stride s, a thread whose index is a multiple of 2*s adds in the
// partial s slots to its right. Slow on purpose: % is costly, and the busy threads are scattered
// over every warp, so each warp runs both sides of the branch.
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per blockDim.x elements.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 01 (./lab watch 01 checks on every save); stuck? ./lab hint 01.
#include "lab/kernel.hpp"

namespace ex01 {

// Writes the sum of block b's slice, in[b * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    // TODO(01-shared-decl, ~1 line): declare `partial`, a __shared__ array of T with one
    //   slot for each thread of the largest block the kit launches (lab::kMaxBlockSize).
    T partial[lab::kMaxBlockSize];  // private to each thread: nothing is shared yet

    const unsigned tid = threadIdx.x;

    // TODO(01-padding, ~2 lines): compute i, the index of this thread's element (in 64 bits:
    //   convert blockIdx.x to std::size_t before multiplying), and store in[i] in partial[tid].
    //   A thread past the end of the input (i >= n) stores 0 instead, which leaves the sum unchanged.
    partial[tid] = T(0);
    __syncthreads();

    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        // TODO(01-loop-cond, ~3 lines): if tid is a multiple of 2 * stride, add the partial
        //   `stride` slots to the right into partial[tid].
        __syncthreads();
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex01
