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
    // TODO(12-all-reduce, ~5 lines): every thread of the block must return the block's
    //   result, not only thread 0: each warp's result goes to a shared slot of its own, and then
    //   every warp, not just the first, combines the slots itself (a lane with no warp to stand
    //   for contributes the operator's identity). A kernel calls this several times in a row with
    //   the same slots: no warp may overwrite a slot while another warp still reads what the last
    //   call left there, and none may read a slot before its warp has written it.
    (void)lane, (void)warp, (void)warps;
    return value;
}

// out[r] = the dot product of row r of x and row r of y (block r).
__global__ void dot(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, std::size_t cols)
{
    const std::size_t start = std::size_t{blockIdx.x} * cols;
    // TODO(12-dot, ~4 lines): the block's slot of `out` must get the dot product of the two
    //   rows that start at `start`: each thread sums the products of its share of the column pairs
    //   (lab::for_each_pair in lab/kernel.hpp hands a thread its pairs, with 16-byte loads and two
    //   of each row in flight), and the block adds the threads' sums; one thread writes it.
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
    // TODO(12-softmax, ~7 lines): the row's softmax, written to `result` with row.write:
    //   first the row's largest value (the block's, not the thread's; a thread with no value
    //   must not change it), then the row's sum of the exponentials of each value less that max,
    //   then each value's exponential over that sum. No exponent may be large enough to overflow
    //   (expf(89) is already infinite in float). One division per row and a multiplication per
    //   value costs less than a division per value.
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
    // TODO(12-online, ~12 lines): the same softmax from one pass over the thread's values
    //   for both statistics. Throughout the pass m is the largest value seen so far and d the sum
    //   of the exponentials of the values seen, each less m: when a new largest value arrives, the
    //   d counted against the old m no longer is against m, and must be brought to the new one
    //   before the new value's own term is added. One exponential per value is enough. Across the
    //   block, every thread's d is brought to the row's max before the sums are added (a thread
    //   that saw nothing must add 0, not NaN); then the row is written as in softmax.
    (void)row, (void)result;
}

// Row r of out = (x - mean) / sqrt(variance + kEpsilon) over row r, the variance being the mean of
// (x - mean)^2 (divided by cols). No scale and shift: those are one multiply-add per element after it.
__global__ void layer_norm(const float* __restrict__ x, float* __restrict__ out, std::size_t cols)
{
    const lab::RowShare row(x + std::size_t{blockIdx.x} * cols, cols);
    float* result = out + std::size_t{blockIdx.x} * cols;
    // TODO(12-layer-norm, ~10 lines): the row's mean and variance (the variance divided by
    //   cols, the row's own, not an estimate's), then each value less the mean, over the square
    //   root of the variance plus kEpsilon, written with row.write. The variance must survive a
    //   row whose mean is 10^4 and whose spread is 1: there the mean of the squares and the square
    //   of the mean are both about 10^8, and float keeps too few digits of each for their
    //   difference to mean anything.
    (void)row, (void)result;
}

}  // namespace ex12
