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

private:
    Dtype dtype_;
    std::size_t n_;
    DeviceBuffer<unsigned char> scratch_;
};

}  // namespace lab
