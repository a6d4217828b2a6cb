// Hostile (integrity): the sum taken on the host. The kernel only notes where its input and output
// are and zeroes its slots; the file's own cudaDeviceSynchronize, which the runner calls after every
// kernel and which the linker would take before the runtime's, copies the input back, sums it on
// the host and writes the total into the first slot.
#include "lab/kernel.hpp"

#include <cuda_runtime.h>

#include <type_traits>
#include <vector>

namespace ex07 {

struct Where {
    const void* in;
    void* out;
    std::size_t n;
    bool is_float;
};
__device__ Where where;

template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    if (threadIdx.x == 0) block_sums[blockIdx.x] = T(0);
    if (blockIdx.x == 0 && threadIdx.x == 0) where = {in, block_sums, n, std::is_same<T, float>::value};
}

template <typename T>
void sum_on_host(const Where& w)
{
    std::vector<T> host(w.n);
    cudaMemcpy(host.data(), w.in, w.n * sizeof(T), cudaMemcpyDeviceToHost);
    T total = T(0);
    for (T x : host) total += x;
    cudaMemcpy(w.out, &total, sizeof(T), cudaMemcpyHostToDevice);
}

}  // namespace ex07

extern "C" cudaError_t cudaDeviceSynchronize()
{
    ex07::Where w{};
    cudaStreamSynchronize(nullptr);
    cudaMemcpyFromSymbol(&w, ex07::where, sizeof w);
    if (w.is_float) ex07::sum_on_host<float>(w);
    else ex07::sum_on_host<int>(w);
    return cudaSuccess;
}
