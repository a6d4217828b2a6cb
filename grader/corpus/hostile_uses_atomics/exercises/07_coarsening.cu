// Hostile (integrity): rung 07 without its tree. Every thread adds its grid-stride sum into one
// shared slot with atomicAdd. Right answers (to rounding), but rung 07 forbids atomics.
#include "lab/kernel.hpp"

namespace ex07 {

#define ADD_INTO(slot, value) atomic##Add(&(slot), (value))

template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    __shared__ T total;
    if (threadIdx.x == 0) total = T(0);
    __syncthreads();
    const std::size_t stride = std::size_t{blockDim.x} * gridDim.x;
    T sum = T(0);
    for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) sum += in[i];
    ADD_INTO(total, sum);
    __syncthreads();
    if (threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

}  // namespace ex07
