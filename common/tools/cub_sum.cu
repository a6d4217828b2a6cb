// Kit tool; CUDA backend only.
#include "cub_sum.hpp"

#include <cub/device/device_reduce.cuh>

namespace lab {

namespace {

template <typename T>
std::size_t scratch_bytes(std::size_t n)
{
    std::size_t bytes = 0;
    LAB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                          static_cast<long long>(n)));
    return bytes;
}

}  // namespace

CubSum::CubSum(Dtype dtype, std::size_t n)
    : dtype_(dtype), n_(n), scratch_(dtype == Dtype::i32 ? scratch_bytes<int>(n) : scratch_bytes<float>(n))
{
}

void CubSum::run(const void* in, void* out) const
{
    std::size_t bytes = scratch_.size();
    if (dtype_ == Dtype::i32)
        LAB_CUDA_CHECK(cub::DeviceReduce::Sum(scratch_.data(), bytes, static_cast<const int*>(in), static_cast<int*>(out),
                                              static_cast<long long>(n_)));
    else
        LAB_CUDA_CHECK(cub::DeviceReduce::Sum(scratch_.data(), bytes, static_cast<const float*>(in),
                                              static_cast<float*>(out), static_cast<long long>(n_)));
}

}  // namespace lab
