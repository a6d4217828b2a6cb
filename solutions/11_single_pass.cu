// 11_single_pass: from an array of any length to one value in a single launch.
// Changed since 10: rung 10 needed a second launch to add up the blocks' partials, because a block
// cannot wait for the others. This rung needs none, in two ways:
//   ticket  every block writes its partial, then takes a numbered ticket from a counter in device
//           memory (an atomic add of 1). The block that draws the last ticket knows that every other
//           block has written its partial, so it adds them up and writes the result. Two things
//           make it correct: a __threadfence() between writing the partial and taking the ticket
//           (otherwise the last block may see the ticket before the partial), and setting the
//           counter back to zero for the next call. The blocks' partials are added in a fixed
//           order, so a float result is the same, bit for bit, every time.
//   atomic  every block adds its partial straight into the result with atomicAdd (cleared to zero
//           first). Simpler and as fast, but the blocks add in whatever order they finish: a float
//           result may differ in its last bits from run to run (ints do not round, so they cannot).
// Both launch at most kMaxBlocks blocks whose threads stride over the whole input (rung 07's idea).
// Preconditions: blockDim.x is a power of two from 32 to 1024; n up to max_n.
#include <algorithm>
#include <cstddef>

#include "lab/kernel.hpp"

namespace ex11 {

// The most blocks one launch uses: enough to keep an H100 or H200 busy (132 SMs, each holding 2048
// threads) at the usual block of 256, and the number of partials the ticket scheme keeps.
constexpr unsigned kMaxBlocks = 1024;

// Elements per thread when n needs fewer than kMaxBlocks blocks: 16 is four 16-byte loads in flight,
// lab::thread_fold's unrolled step. Fewer, fuller blocks draw fewer tickets (one atomic each) and
// leave the last block fewer partials to add: on an H100 this took the ticket scheme at 2^20
// elements from 1.14 to 1.25 times CUB's speed.
constexpr unsigned kPerThread = 16;

// Returns, in lane 0, the sum of `value` over the warp's 32 lanes.
template <typename T>
__device__ T warp_sum(T value)
{
    // BEGIN TODO(11-warp-sum, from 08-warp-reduce)
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    // STUB:
    // END TODO
    return value;
}

// Returns, in thread 0, the sum of `value` over the block's threads (blockDim.x a multiple of 32).
// Ends with a __syncthreads(), so the block may call it again.
template <typename T>
__device__ T block_sum(T value)
{
    const unsigned lane = threadIdx.x % lab::kWarpSize, warp = threadIdx.x / lab::kWarpSize;
    // BEGIN TODO(11-block-sum, from 08-block-reduce): as a function: thread 0 returns the block's sum
    //   of `value`.
    __shared__ T warp_sums[lab::kMaxBlockSize / lab::kWarpSize];
    value = warp_sum(value);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    value = T(0);
    if (warp == 0) {
        if (lane < blockDim.x / lab::kWarpSize) value = warp_sums[lane];
        value = warp_sum(value);
    }
    // STUB: (void)lane, (void)warp;
    // END TODO
    __syncthreads();
    return value;
}

struct Plus {
    template <typename T>
    __device__ T operator()(T a, T b) const
    {
        return a + b;
    }
};

// The ticket scheme's kernel. partials holds gridDim.x slots; *tickets is 0 when it starts, and the
// kernel leaves it 0 again.
template <typename T>
__global__ void reduce_ticket(const T* in, std::size_t n, T* partials, unsigned* tickets, T* out)
{
    __shared__ bool last;
    const T sum = block_sum(lab::thread_fold(in, n, T(0), Plus{}));
    // A grid of one block (n up to kPerThread * blockDim.x) waits for nobody: its sum is the answer,
    // with no partial, fence, ticket or second pass. At 2^12 floats and fewer that is the whole call.
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = sum;
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        // BEGIN TODO(11-ticket, ~3 lines): take this block's ticket, a number from the counter at
        //   `tickets` that no other block gets, and set `last` (which the block's other threads read
        //   after the barrier) when it is the last of the grid's tickets: then every other block has
        //   written its partial. That holds only if this block's partial is visible to the whole
        //   GPU before its ticket is: a GPU may let another block see the count go up first.
        __threadfence();
        const unsigned ticket = atomicAdd(tickets, 1u);
        last = ticket == gridDim.x - 1;
        // STUB: last = false;
        // END TODO
    }
    __syncthreads();
    if (!last) return;
    // BEGIN TODO(11-last-block, ~7 lines): only the last block gets here, and every other block's
    //   partial is written. *out must get the sum of all gridDim.x partials, in the same order
    //   every call (so a float sum comes out bit for bit the same), read afresh from memory: a
    //   plain load may be served from a cache that has not seen the other blocks' writes. The
    //   counter must read 0 again when the kernel ends, or the next call's blocks count on from
    //   this call's.
    __threadfence();
    const volatile T* written = partials;
    T value = T(0);
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) value += written[i];
    value = block_sum(value);
    if (threadIdx.x == 0) {
        *out = value;
        *tickets = 0;
    }
    // STUB: (void)out;
    // END TODO
}

// The atomic scheme's kernel: *out is 0 when it starts.
template <typename T>
__global__ void reduce_atomic(const T* in, std::size_t n, T* out)
{
    const T sum = block_sum(lab::thread_fold(in, n, T(0), Plus{}));
    // BEGIN TODO(11-atomic-add, ~1 line): the block's sum goes into *out, once per block, with no
    //   other block's addition lost: blocks finish in any order and at the same time.
    if (threadIdx.x == 0) atomicAdd(out, sum);
    // STUB: (void)sum;
    // END TODO
}

template <typename T>
class Reducer {
public:
    // Gets what both schemes need, once: kMaxBlocks partials and one counter, set to 0.
    Reducer(std::size_t max_n, unsigned block);
    ~Reducer();
    Reducer(const Reducer&) = delete;
    Reducer& operator=(const Reducer&) = delete;

    // Each writes the sum of in[0, n) to *out (one T in device memory) and returns without waiting.
    void ticket(const T* in, std::size_t n, T* out);
    void atomic(const T* in, std::size_t n, T* out);

private:
    // Blocks for n elements: one per kPerThread * block_ elements, at most kMaxBlocks (and at least 1).
    unsigned grid_for(std::size_t n) const
    {
        const std::size_t per_block = std::size_t{kPerThread} * block_;
        return static_cast<unsigned>(std::clamp<std::size_t>((n + per_block - 1) / per_block, 1, kMaxBlocks));
    }

    unsigned block_;
    T* partials_ = nullptr;
    unsigned* tickets_ = nullptr;
};

template <typename T>
Reducer<T>::Reducer(std::size_t max_n, unsigned block) : block_(block)
{
    (void)max_n;  // a fixed grid: the scratch memory does not grow with n
    // BEGIN TODO(11-scratch, ~3 lines): device memory for the ticket scheme, once: room for the
    //   most partials a launch leaves (kMaxBlocks) and one unsigned counter, which must read 0
    //   before the first call, since its blocks count from whatever it holds.
    cudaMalloc(&partials_, std::size_t{kMaxBlocks} * sizeof(T));
    cudaMalloc(&tickets_, sizeof(unsigned));
    cudaMemset(tickets_, 0, sizeof(unsigned));
    // STUB:
    // END TODO
}

template <typename T>
Reducer<T>::~Reducer()
{
    // BEGIN TODO(11-free, ~2 lines): give back everything the constructor allocated, each once.
    cudaFree(partials_);
    cudaFree(tickets_);
    // STUB:
    // END TODO
}

template <typename T>
void Reducer<T>::ticket(const T* in, std::size_t n, T* out)
{
    reduce_ticket<T><<<grid_for(n), block_>>>(in, n, partials_, tickets_, out);
}

template <typename T>
void Reducer<T>::atomic(const T* in, std::size_t n, T* out)
{
    // BEGIN TODO(11-atomic, ~2 lines): the blocks add into *out, so it must hold 0 when the first
    //   of them adds, and without waiting on the host: the work must run in order on the stream,
    //   before the kernel. Then the launch, with the same grid as the ticket scheme's.
    cudaMemsetAsync(out, 0, sizeof *out);
    reduce_atomic<T><<<grid_for(n), block_>>>(in, n, out);
    // STUB: (void)in;
    // STUB: (void)n;
    // STUB: (void)out;
    // END TODO
}

}  // namespace ex11
