// Kit tool: NVIDIA's library reduction (CUB), the yardstick of the benchmark. CUDA backend only.
#pragma once

#include <cstddef>

#include "lab/device_buffer.hpp"
#include "lab/types.hpp"

namespace lab {

class CubSum {
public:
    CubSum(Dtype dtype, std::size_t n);  // sizes and allocates CUB's scratch space
    void run(const void* in, void* out) const;  // enqueues cub::DeviceReduce::Sum of n elements into *out
    // The kernels one run launches, counted by capturing a run into a CUDA graph (CUB launches one
    // kernel when the input fits a single tile, two otherwise); 0 when the capture failed.
    std::size_t launches() const { return launches_; }

private:
    template <typename T>
    cudaError_t sum(void* scratch, std::size_t& bytes, const void* in, void* out, cudaStream_t stream) const;
    std::size_t count_launches() const;

    Dtype dtype_;
    std::size_t n_;
    DeviceBuffer<unsigned char> scratch_;
    std::size_t launches_ = 0;
};

}  // namespace lab
