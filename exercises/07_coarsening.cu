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
    __shared__ T partial[lab::kMaxBlockSize];

    const unsigned tid = threadIdx.x;

    // TODO(07-grid-stride, ~5 lines): sum this thread's elements into `sum`. Start at element
    //   i = blockIdx.x * blockDim.x + tid and walk the input in steps of the whole grid,
    //   stride = blockDim.x * gridDim.x, taking two elements per step, in[i] and in[i + stride], so
    //   that two loads are in flight at once; then the last one alone if it is left over. Count in
    //   std::size_t: past 2^31 elements an int index wraps around.
    T sum = T(0);
    partial[tid] = sum;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
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

}  // namespace ex07
