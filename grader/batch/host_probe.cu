// One GPU process as a grading's case runner starts one: CUDA's context, an allocation of the
// given size (MiB) filled once, a kernel over it LAUNCHES times (default 1), then the end. Prints
// its two parts in milliseconds: "context MS work MS". host_probe.sh runs many at once, on one GPU
// or spread: the context's part is the host's and the driver's, the work's mostly the GPU's.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

__global__ void touch(unsigned* data, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        data[i] += 1u;
}

int main(int argc, char** argv)
{
    const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 512;
    const int launches = argc > 2 ? std::atoi(argv[2]) : 1;
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    if (cudaFree(nullptr) != cudaSuccess) { std::fprintf(stderr, "host_probe: no CUDA device\n"); return 1; }
    const auto context = clock::now();
    unsigned* data = nullptr;
    const size_t n = mib * (1u << 20) / sizeof(unsigned);
    if (cudaMalloc(&data, n * sizeof(unsigned)) != cudaSuccess) { std::fprintf(stderr, "host_probe: cudaMalloc failed\n"); return 1; }
    cudaMemset(data, 0, n * sizeof(unsigned));
    for (int k = 0; k < launches; ++k) touch<<<1024, 256>>>(data, n);
    if (cudaDeviceSynchronize() != cudaSuccess) { std::fprintf(stderr, "host_probe: the kernel failed\n"); return 1; }
    cudaFree(data);
    const auto end = clock::now();
    const auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
    std::printf("context %.1f work %.1f\n", ms(context - start), ms(end - context));
    return 0;
}
