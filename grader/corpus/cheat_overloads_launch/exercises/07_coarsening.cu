// A cheat from the in-process suites: a more specialised lab::launch that computes the answer on the
// host and never runs the kernel. The grader refuses a file that adds to namespace lab.
#include <vector>

#include "lab/kernel.hpp"
#include "lab/launch.hpp"

namespace ex07 {

template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
}

}  // namespace ex07

namespace lab {
template <typename T>
void launch(void (*)(const T*, T*, std::size_t), dim3 grid, dim3, std::size_t, const T* in, T* out, std::size_t n)
{
    std::vector<T> host(n), zeros(grid.x, T(0));
    cudaMemcpy(host.data(), in, n * sizeof(T), cudaMemcpyDeviceToHost);
    T sum = T(0);
    for (const T& x : host) sum += x;
    zeros[0] = sum;
    cudaMemcpy(out, zeros.data(), grid.x * sizeof(T), cudaMemcpyHostToDevice);
}
}  // namespace lab
