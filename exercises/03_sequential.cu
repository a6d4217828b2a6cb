// 03_sequential: sequential addressing (reduce2 in the tutorials).
// Changed since 02: the tree runs the other way. The first step folds the upper half of the
// block onto the lower half, the next folds the upper quarter onto the lower quarter, and so on.
// The busy threads are still the first ones, and now consecutive threads touch consecutive
// slots, so no two threads of a warp hit the same bank. Still wasteful: half the threads never
// add anything (04 puts them to work).
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per blockDim.x elements.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 03 (./lab watch 03 checks on every save); stuck? ./lab hint 03.
#include "lab/kernel.hpp"

namespace ex03 {

// Writes the sum of block b's slice, in[b * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    __shared__ T partial[lab::kMaxBlockSize];

    const unsigned tid = threadIdx.x;
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : T(0);
    __syncthreads();

    // TODO(03-loop, ~1 line): write the loop header. `stride` starts at half the block,
    //   halves after every step, and the loop ends once it reaches 0.
    for (unsigned stride = 0; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex03
