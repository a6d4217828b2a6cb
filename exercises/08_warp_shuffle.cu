// 08_warp_shuffle: warp shuffles instead of a shared-memory tree.
// Changed since 07: inside a warp, __shfl_down_sync hands a register straight to another lane and
// synchronises the lanes its mask names, so a warp sums its 32 values in five steps with no shared
// memory and no barrier. Each warp leaves its sum in one shared slot; after a single
// __syncthreads() the first warp sums those slots the same way. The grid-stride loop of 07 now
// comes from the kit (lab::thread_fold), which reads four elements per 16-byte load.
// Preconditions: blockDim.x is a multiple of 32 up to 1024; any number of blocks.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 08 (./lab watch 08 checks on every save); stuck? ./lab hint 08.
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
    // TODO(08-warp-reduce, ~2 lines): five steps, offset = 16, 8, 4, 2, 1: add the value of
    //   the lane `offset` places up, __shfl_down_sync(0xffffffff, value, offset). After the last
    //   step lane 0 holds the warp's sum (the other lanes hold partial sums nobody needs).
    return value;
}

// Writes to block_sums[b] the sum of the elements block b's threads visit; over all blocks the
// slots add up to the sum of in[0, n).
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    __shared__ T warp_sums[lab::kMaxBlockSize / lab::kWarpSize];

    const unsigned lane = threadIdx.x % lab::kWarpSize, warp = threadIdx.x / lab::kWarpSize;
    T sum = warp_sum(lab::thread_fold(in, n, T(0), Plus{}));
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();

    if (warp == 0) {
        // Lanes past the block's last warp have no slot: they add 0.
        sum = lane < blockDim.x / lab::kWarpSize ? warp_sums[lane] : T(0);
        sum = warp_sum(sum);
        if (lane == 0) block_sums[blockIdx.x] = sum;
    }
}

}  // namespace ex08
