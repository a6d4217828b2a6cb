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
    const unsigned tid = threadIdx.x;
    // TODO(03-load, ~3 lines): bring your own code of TODO 01-shared-decl and 01-padding (rung 01)
    //   here.
    T partial[lab::kMaxBlockSize];  // private to each thread: nothing is shared yet
    partial[tid] = T(0);
    __syncthreads();

    // TODO(03-loop, ~4 lines): the tree, the other way round: each step folds the upper half
    //   of the partials still live onto the lower half, slot for slot, until slot 0 holds the
    //   block's sum. The live partials stay the first ones, so the working threads are the first
    //   ones and neighbouring threads touch neighbouring slots: no two lanes of a warp share a bank.
    //   Within a step no working thread reads a slot that another one writes; no thread begins a
    //   step before the whole block has finished the one before.

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex03
