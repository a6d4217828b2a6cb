// A cheat from the in-process suites: code that runs before main rewrites the kit's case catalogue
// so that only small cases are left, and a kernel without a grid-stride loop passes them. It reaches
// fopen through a pointer, which the grader's text screen does not see: what stops it is that the
// grader chose the cases before any submitted code ran, and that runners see the kit read-only.
#include <cstdio>

#include "lab/kernel.hpp"
#include "lab/registry.hpp"

namespace ex07 {

template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    __shared__ T partial[lab::kMaxBlockSize];
    const unsigned tid = threadIdx.x;
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;  // no grid-stride loop
    partial[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

struct Shrink {
    Shrink()
    {
        FILE* (*const open_file)(const char*, const char*) = &std::fopen;
        if (FILE* f = open_file(lab::kit_path("tests/cases.json").c_str(), "w")) {
            std::fputs("{\"base_seed\": 1, \"groups\": [{\"name\": \"edges\", \"ops\": [\"sum\"], \"inputs\": [\"int\"], "
                       "\"blocks\": [256], \"sizes\": [\"1\"]}]}\n",
                       f);
            std::fclose(f);
        }
    }
};
static Shrink shrink;

}  // namespace ex07
