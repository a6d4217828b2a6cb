// Hostile (integrity): each block's sum from thrust::reduce, run sequentially by its first thread.
// Right answers, no tree: rung 03 forbids libraries, so it earns nothing.
#include "lab/kernel.hpp"

#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

namespace ex03 {

template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    const std::size_t first = std::size_t{blockIdx.x} * blockDim.x;
    const std::size_t last = first + blockDim.x < n ? first + blockDim.x : n;
    if (threadIdx.x == 0) block_sums[blockIdx.x] = thrust::reduce(thrust::seq, in + first, in + last, T(0));
}

}  // namespace ex03
