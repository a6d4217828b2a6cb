// Hostile (integrity): rung 06's block reduction handed to CUB's BlockReduce instead of written.
// It computes the right sums on a GPU; the rung forbids libraries, so it earns nothing.
#include "lab/kernel.hpp"

#include <cub/block/block_reduce.cuh>

namespace ex06 {

template <unsigned kBlockSize, typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    using Reduce = cub::BlockReduce<T, kBlockSize>;
    __shared__ typename Reduce::TempStorage scratch;
    const std::size_t i = std::size_t{blockIdx.x} * (2 * kBlockSize) + threadIdx.x;
    T sum = i < n ? in[i] : T(0);
    if (i + kBlockSize < n) sum += in[i + kBlockSize];
    sum = Reduce(scratch).Sum(sum);
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

}  // namespace ex06
