// 12_real_kernels: the reduction inside the kernels people run every day.
// Changed since 11: the reduction is no longer the whole job. A dot product, a softmax and a layer
// norm each reduce a row and then use the result: one block per row, its threads striding over the
// row, a block-wide reduction that hands its result to every thread, and a last pass that writes.
// Softmax needs two reductions (the max, then the sum of exponentials) and layer norm two sums (the
// mean, then the variance), one after the other: two calls with the same operator share one array.
// Softmax and layer norm go over their row three times; lab::RowShare (lab/kernel.hpp) reads each
// thread's share of the row once and keeps it in registers, so the row crosses the memory bus once
// on the way in and once on the way out, which is all the operation needs.
// Preconditions: blockDim.x is a multiple of 32 up to 1024; one block per row; any row length.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 12 (./lab watch 12 checks on every save); stuck? ./lab hint 12.
#include <cstddef>

#include "lab/kernel.hpp"

namespace ex12 {

// layer_norm's epsilon, added to the variance before the square root (PyTorch's default).
constexpr float kEpsilon = 1e-5f;

struct Sum {
    __device__ float operator()(float a, float b) const { return a + b; }
    static __device__ float identity() { return 0.0f; }
};

struct Max {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
    static __device__ float identity() { return -INFINITY; }
};

// Returns to every lane the reduction of `value` over the warp's 32 lanes: with __shfl_xor_sync each
// lane swaps with its partner `offset` lanes away, so all of them end with the whole warp's result.
template <typename Op>
__device__ float warp_all_reduce(float value, Op op)
{
    for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
    return value;
}

// Returns to every thread of the block the reduction of `value` over the block's threads. A kernel
// may call it several times in a row (each operator has its own warp_results, so layer_norm's two
// sums share one): each call starts with a barrier, so no warp writes the slots for this call while
// another still reads those of the last one.
template <typename Op>
__device__ float block_all_reduce(float value, Op op)
{
    __shared__ float warp_results[lab::kMaxBlockSize / lab::kWarpSize];
    const unsigned lane = threadIdx.x % lab::kWarpSize, warp = threadIdx.x / lab::kWarpSize;
    const unsigned warps = blockDim.x / lab::kWarpSize;
    value = warp_all_reduce(value, op);
    // TODO(12-all-reduce, ~5 lines): lane 0 of each warp stores its warp's result in
    //   warp_results[warp]; after a barrier, every warp reads the slots (a lane past the last warp
    //   takes Op::identity()) and reduces them with warp_all_reduce, so every thread returns the
    //   block's result. Put a __syncthreads() before the store too: the previous call's readers
    //   must be done with the slots before they are overwritten.
    (void)lane, (void)warp, (void)warps;
    return value;
}

// out[r] = the dot product of row r of x and row r of y (block r).
__global__ void dot(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, std::size_t cols)
{
    const std::size_t start = std::size_t{blockIdx.x} * cols;
    // TODO(12-dot, ~4 lines): each thread adds a * b for each pair of its columns:
    //   lab::for_each_pair(x + start, y + start, cols, [&](float a, float b) { ... }) calls the lambda
    //   with x and y at each of them (lab/kernel.hpp: 16-byte loads, two of each row in flight);
    //   block_all_reduce the sums with Sum{}; thread 0 writes out[blockIdx.x].
    (void)start;
}

// Row r of out = softmax(row r of x): exp(x_i - m) / sum_j exp(x_j - m), m the row's max. Subtracting
// m changes nothing mathematically and keeps every exponent at or below 0, so no exp overflows:
// expf(89) is already infinite in float.
__global__ void softmax(const float* __restrict__ x, float* __restrict__ out, std::size_t cols)
{
    // This thread's share of row blockIdx.x, read once: row.for_each(f) calls f(v) for each of its
    // values v, and row.write(result, f) stores f(v) in each one's place in the output row.
    const lab::RowShare row(x + std::size_t{blockIdx.x} * cols, cols);
    float* result = out + std::size_t{blockIdx.x} * cols;
    // TODO(12-softmax, ~7 lines): three passes over the thread's share of the row:
    //   (1) the largest value, block_all_reduce with Max{} (start from Max::identity(), not 0);
    //   (2) the sum of expf(v - max), block_all_reduce with Sum{};
    //   (3) row.write(result, ...) with expf(v - max) / sum: one division per row, 1 / sum, and a
    //       multiplication per value, which is cheaper than a division per value.
    //   A pass is row.for_each([&](float v) { ... }): the lambda sees the kernel's variables.
    (void)row, (void)result;
}

// The same softmax, going over the row once for both statistics (Milakov and Gimelshein, "Online
// normalizer calculation for softmax", 2018): each thread keeps the largest value m it has seen and
// d, the sum of exp(x - m) over what it has seen. When a larger value arrives, d was computed against
// the old m and is rescaled by exp(old m - new m). Across the block, the threads' m are reduced to the
// row's max M, and each d, rescaled by exp(m - M), is summed.
__global__ void softmax_online(const float* __restrict__ x, float* __restrict__ out, std::size_t cols)
{
    const lab::RowShare row(x + std::size_t{blockIdx.x} * cols, cols);
    float* result = out + std::size_t{blockIdx.x} * cols;
    // TODO(12-online, ~12 lines): one pass over the thread's values keeping m (from
    //   Max::identity()) and d (from 0). For each value v the running max becomes the larger of m
    //   and v; d, which counted against the old m, is rescaled to the new one before v's own term
    //   (its exponential against the new max) is added. One expf a value is enough: expf(-|v - m|)
    //   is v's term when v <= m, and the rescale factor when v is the new max. After the pass, the
    //   row's max M is the block's max of the m; each thread rescales its d to M and the block sums
    //   them (a thread that saw no value has d = 0 and m = -infinity: its rescaled d must stay 0).
    //   Last, row.write(result, ...) with expf(v - M) / that sum.
    (void)row, (void)result;
}

// Row r of out = (x - mean) / sqrt(variance + kEpsilon) over row r, the variance being the mean of
// (x - mean)^2 (divided by cols). No scale and shift: those are one multiply-add per element after it.
__global__ void layer_norm(const float* __restrict__ x, float* __restrict__ out, std::size_t cols)
{
    const lab::RowShare row(x + std::size_t{blockIdx.x} * cols, cols);
    float* result = out + std::size_t{blockIdx.x} * cols;
    // TODO(12-layer-norm, ~10 lines): the mean (a block sum over cols); then the variance as
    //   the mean of (v - mean)^2, in a second pass (or Welford's running mean and sum of squares).
    //   Not mean(x^2) - mean^2: with a mean of 10^4 and a spread of 1 both terms are about 10^8,
    //   and float keeps too few digits for their difference. Then row.write(result, ...) with
    //   (v - mean) * rsqrtf(variance + kEpsilon).
    (void)row, (void)result;
}

}  // namespace ex12
