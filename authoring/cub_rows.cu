// Kit tool; CUDA backend only. See cub_rows.hpp.
#include "cub_rows.hpp"

#include <cub/block/block_reduce.cuh>

#include "lab/error.hpp"

namespace lab {

namespace {

using BlockReduce = cub::BlockReduce<float, kCubRowBlock>;

// Every thread gets the block's reduction of `value` with `op`.
template <typename Op>
__device__ float all_reduce(float value, Op op)
{
    __shared__ typename BlockReduce::TempStorage scratch;
    __shared__ float result;
    const float reduced = BlockReduce(scratch).Reduce(value, op);
    if (threadIdx.x == 0) result = reduced;
    __syncthreads();
    const float everyone = result;
    __syncthreads();  // scratch and result are free for the next call
    return everyone;
}

struct Add {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct Larger {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// f(i, value) for each of the row's elements this thread reads: 16-byte groups when `row` is on 16
// bytes and cols a multiple of 4, one float at a time otherwise.
template <typename F>
__device__ void each(const float* row, std::size_t cols, F f)
{
    if (reinterpret_cast<std::uintptr_t>(row) % 16 == 0 && cols % 4 == 0) {
        const float4* groups = reinterpret_cast<const float4*>(row);
        for (std::size_t g = threadIdx.x; g < cols / 4; g += blockDim.x) {
            const float4 v = groups[g];
            f(4 * g, v.x), f(4 * g + 1, v.y), f(4 * g + 2, v.z), f(4 * g + 3, v.w);
        }
    } else {
        for (std::size_t i = threadIdx.x; i < cols; i += blockDim.x) f(i, row[i]);
    }
}

__global__ void __launch_bounds__(kCubRowBlock) cub_dot(const float* x, const float* y, float* out, std::size_t cols)
{
    const std::size_t start = std::size_t{blockIdx.x} * cols;
    float products = 0;
    each(x + start, cols, [&](std::size_t i, float v) { products += v * y[start + i]; });
    const float total = all_reduce(products, Add{});
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

__global__ void __launch_bounds__(kCubRowBlock) cub_softmax(const float* x, float* out, std::size_t cols)
{
    const float* row = x + std::size_t{blockIdx.x} * cols;
    float* result = out + std::size_t{blockIdx.x} * cols;
    float top = -INFINITY;
    each(row, cols, [&](std::size_t, float v) { top = fmaxf(top, v); });
    top = all_reduce(top, Larger{});
    float total = 0;
    each(row, cols, [&](std::size_t, float v) { total += expf(v - top); });
    const float inverse = 1.0f / all_reduce(total, Add{});
    each(row, cols, [&](std::size_t i, float v) { result[i] = expf(v - top) * inverse; });
}

__global__ void __launch_bounds__(kCubRowBlock) cub_layer_norm(const float* x, float* out, std::size_t cols)
{
    const float* row = x + std::size_t{blockIdx.x} * cols;
    float* result = out + std::size_t{blockIdx.x} * cols;
    float total = 0;
    each(row, cols, [&](std::size_t, float v) { total += v; });
    const float mean = all_reduce(total, Add{}) / static_cast<float>(cols);
    float spread = 0;
    each(row, cols, [&](std::size_t, float v) { spread += (v - mean) * (v - mean); });
    const float scale = rsqrtf(all_reduce(spread, Add{}) / static_cast<float>(cols) + 1e-5f);
    each(row, cols, [&](std::size_t i, float v) { result[i] = (v - mean) * scale; });
}

}  // namespace

void launch_cub_rows(Op op, const float* in, float* out, std::size_t rows, std::size_t cols)
{
    const auto grid = static_cast<unsigned>(rows);
    switch (op) {
    case Op::dot: cub_dot<<<grid, kCubRowBlock>>>(in, in + rows * cols, out, cols); break;
    case Op::softmax:
    case Op::softmax_online: cub_softmax<<<grid, kCubRowBlock>>>(in, out, cols); break;
    case Op::layer_norm: cub_layer_norm<<<grid, kCubRowBlock>>>(in, out, cols); break;
    default: throw UsageError("launch_cub_rows: " + std::string(name_of(op)) + " is not a row operation");
    }
    LAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace lab
