// 08_warp_shuffle: warp shuffles instead of a shared-memory tree.
// Changed since 07: inside a warp, __shfl_down_sync hands a register straight to another lane and
// synchronises the lanes its mask names, so a warp sums its 32 values in five steps with no shared
// memory and no barrier. Each warp leaves its sum in one shared slot; after a single
// __syncthreads() the first warp sums those slots the same way. The grid-stride loop of 07 now
// comes from the kit (lab::thread_fold), which reads four elements per 16-byte load.
// Preconditions: blockDim.x is a multiple of 32 up to 1024; any number of blocks.
#include "lab/kernel.hpp"

namespace ex08 {

struct Plus {
    template <typename T>
    __device__ T operator()(T a, T b) const
    {
        return a + b;
    }
};

// Returns, in lane 0, the sum of `value` over the warp's 32 lanes.
template <typename T>
__device__ T warp_sum(T value)
{
    // BEGIN TODO(08-warp-reduce, ~1 line): lane 0 must end with the sum of the 32 lanes' values.
    //   A shuffle hands a register from one lane to another, with no shared memory and no barrier:
    //   halving the distance each step, the warp adds itself up in log2(32) = 5 steps. Every lane
    //   of the warp takes part in every step (a block is whole warps), and the mask must say so.
    //   The other lanes end with partial sums nobody needs.
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    // STUB:
    // END TODO
    return value;
}

// Writes to block_sums[b] the sum of the elements block b's threads visit; over all blocks the
// slots add up to the sum of in[0, n).
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const unsigned lane = threadIdx.x % lab::kWarpSize, warp = threadIdx.x / lab::kWarpSize;
    // BEGIN TODO(08-block-reduce, ~10 lines): block_sums[blockIdx.x] must get the sum of what the
    //   block's threads fold, lab::thread_fold's result (the grid-stride loop of rung 07), in two
    //   levels with no shared-memory tree: each warp sums its threads' values with warp_sum; lane
    //   0 of each warp leaves its warp's sum in a shared slot of its own (one per warp of the
    //   largest block); then the first warp sums those slots the same way. No warp may read the
    //   slots before every warp has written its own, and a lane of the first warp that has no
    //   warp to stand for (a block of fewer than 32 warps) adds nothing.
    __shared__ T warp_sums[lab::kMaxBlockSize / lab::kWarpSize];
    T sum = warp_sum(lab::thread_fold(in, n, T(0), Plus{}));
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();

    if (warp == 0) {
        // Lanes past the block's last warp have no slot: they add 0.
        sum = lane < blockDim.x / lab::kWarpSize ? warp_sums[lane] : T(0);
        sum = warp_sum(sum);
        if (lane == 0) block_sums[blockIdx.x] = sum;
    }
    // STUB: (void)lane, (void)warp;
    // STUB: const T mine = lab::thread_fold(in, n, T(0), Plus{});  // this thread's elements, summed
    // STUB: if (threadIdx.x == 0) block_sums[blockIdx.x] = mine;
    // END TODO
}

}  // namespace ex08
