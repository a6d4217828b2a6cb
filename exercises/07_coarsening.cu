// 07_coarsening: many elements per thread (NVIDIA's kernel 7, "algorithm cascading").
// Changed since 06: a launch no longer needs a thread for every two elements. The grid is sized
// to fill the GPU once (as many blocks as its multiprocessors hold), and each thread first sums
// many elements in a register, striding over the input by the size of the whole grid, two loads
// at a time. The block's tree then runs once per block instead of once per 2 * blockDim.x
// elements, and consecutive threads still read consecutive elements. Every index is 64-bit.
// Preconditions: blockDim.x is a power of two from 64 to 1024; any number of blocks.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 07 (./lab watch 07 checks on every save); stuck? ./lab hint 07.
#include "lab/kernel.hpp"

namespace ex07 {

// Writes to block_sums[b] the sum of the elements block b's threads visit; over all blocks the
// slots add up to the sum of in[0, n).
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const unsigned tid = threadIdx.x;
    // TODO(07-shared-decl, ~1 line): bring your own code of TODO 01-shared-decl (rung 01) here.
    T partial[lab::kMaxBlockSize];  // private to each thread: nothing is shared yet

    // TODO(07-grid-stride, ~5 lines): `sum` must hold the total of this thread's elements.
    //   The grid no longer covers the input (it is sized to fill the GPU once), so each thread
    //   starts at its own element, where rung 01's thread found its one, and moves on by the width
    //   of the whole grid: at every step the grid's threads read side by side. Take two elements a
    //   step, a grid's width apart, so that two independent loads are in flight before either is
    //   added; one element may be left over at the end. Every index and step is 64-bit: past 2^31
    //   elements an int wraps around, and a product of two 32-bit values is 32-bit.
    T sum = T(0);
    partial[tid] = sum;
    __syncthreads();

    // TODO(07-tree, ~12 lines): bring your own code of TODO 05-tree and 05-warp-unroll (rung 05) here;
    //   the block's tree down to 64 partials, then warp 0's last steps, as in rung 05.

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex07
