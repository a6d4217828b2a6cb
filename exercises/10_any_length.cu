// 10_any_length: from an array of any length to one value, with host code that launches kernels.
// Changed since 09: the kernels are given; what is new is the host side. One launch leaves one
// partial per block, so reaching one value takes more than one launch, and how those launches are
// arranged is a choice. This rung teaches three, as the tutorials the kit grew from do:
//   multipass  launch, shrink the count to the number of blocks, launch again on the partials, until
//              one is left (the first tutorial's recursive launches);
//   split      cut the input into pieces whose lengths are powers of two of at least one block, each
//              reduced by a kernel that checks no bounds, and pad the short tail with zeros to a
//              whole block (the second tutorial: 1856 = 1024 + 512 + 320, the 320 padded to 512);
//   two_phase  one launch with a fixed grid whose threads stride over the whole input, then one
//              block over the grid's partials (the third tutorial's two-phase reduction).
// A Reducer owns its scratch memory: allocated once, in the constructor, for the largest n it will
// see, reused by every call, freed in the destructor. Sizes are std::size_t throughout: n may be
// beyond 2^31. n = 0 gives the sum's identity, 0.
// Preconditions: blockDim.x is a power of two from 32 to 1024; n up to max_n.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 10 (./lab watch 10 checks on every save); stuck? ./lab hint 10.
#include <algorithm>
#include <cstddef>

#include "lab/kernel.hpp"

namespace ex10 {

// The two_phase scheme's first launch: this many blocks at most, whatever n is.
constexpr unsigned kPhaseOneBlocks = 1024;

// Returns, in lane 0, the sum of `value` over the warp's 32 lanes.
template <typename T>
__device__ T warp_sum(T value)
{
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

// Returns, in thread 0, the sum of `value` over the block's threads (blockDim.x a multiple of 32).
template <typename T>
__device__ T block_sum(T value)
{
    __shared__ T warp_sums[lab::kMaxBlockSize / lab::kWarpSize];
    const unsigned lane = threadIdx.x % lab::kWarpSize, warp = threadIdx.x / lab::kWarpSize;
    value = warp_sum(value);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    value = T(0);
    if (warp == 0) {
        if (lane < blockDim.x / lab::kWarpSize) value = warp_sums[lane];
        value = warp_sum(value);
    }
    return value;
}

struct Plus {
    template <typename T>
    __device__ T operator()(T a, T b) const
    {
        return a + b;
    }
};

// Given (rung 08's kernel): block b writes to block_sums[b] the sum of the elements its threads
// visit as the whole grid strides over in[0, n). Any grid, any n.
template <typename T>
__global__ void reduce_strided(const T* in, T* block_sums, std::size_t n)
{
    const T sum = block_sum(lab::thread_fold(in, n, T(0), Plus{}));
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

// Given: block b writes to block_sums[b] the sum of in[b * blockDim.x, (b + 1) * blockDim.x). It
// checks no bounds: every block must have blockDim.x elements to read.
template <typename T>
__global__ void reduce_whole_blocks(const T* in, T* block_sums)
{
    const T sum = block_sum(in[std::size_t{blockIdx.x} * blockDim.x + threadIdx.x]);
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

template <typename T>
class Reducer {
public:
    // Gets the scratch memory every scheme needs for up to max_n elements at this block size.
    Reducer(std::size_t max_n, unsigned block);
    ~Reducer();
    Reducer(const Reducer&) = delete;
    Reducer& operator=(const Reducer&) = delete;

    // Each writes the sum of in[0, n) to *out (one T in device memory) and returns without waiting.
    void multipass(const T* in, std::size_t n, T* out);
    void split(const T* in, std::size_t n, T* out);
    void two_phase(const T* in, std::size_t n, T* out);

private:
    unsigned block_;
    T* scratch_[2] = {nullptr, nullptr};  // partials, in turn: one pass reads one and writes the other
    T* pad_ = nullptr;                    // one block: the split scheme's tail, padded with zeros
};

template <typename T>
Reducer<T>::Reducer(std::size_t max_n, unsigned block) : block_(block)
{
    // TODO(10-scratch, ~4 lines): allocate, once, what the schemes below need: scratch_[0]
    //   and scratch_[1] each hold the partials of one pass, at most ceil(max_n / block) of them and
    //   at least kPhaseOneBlocks; pad_ holds one block. cudaMalloc each (sizes in bytes, as
    //   std::size_t). The destructor frees the same three.
    (void)max_n;
}

template <typename T>
Reducer<T>::~Reducer()
{
    // TODO(10-free, ~3 lines): free what the constructor allocated, each with cudaFree.
}

template <typename T>
void Reducer<T>::multipass(const T* in, std::size_t n, T* out)
{
    if (n == 0) {
        cudaMemsetAsync(out, 0, sizeof(T));  // the sum of nothing
        return;
    }
    // TODO(10-multipass, ~10 lines): launch reduce_strided<T> with one block per 2 * block_
    //   elements (so each thread adds two), which leaves `grid` partials; then the same on those
    //   partials, and again, until one is left. Write the passes' partials to scratch_[0] and
    //   scratch_[1] in turn, never to the buffer the pass reads, and the last pass to out. Count and
    //   grid are std::size_t until the launch (n may pass 2^31). n == 1 needs no launch: copy in[0]
    //   to out (cudaMemcpyAsync, cudaMemcpyDeviceToDevice).
    (void)in;
    (void)out;
}

template <typename T>
void Reducer<T>::split(const T* in, std::size_t n, T* out)
{
    if (n == 0) {
        cudaMemsetAsync(out, 0, sizeof(T));
        return;
    }
    const std::size_t block = block_;
    const T* from = in;
    std::size_t count = n;
    int next = 0;
    while (count > 1) {
        T* to = scratch_[next];
        std::size_t done = 0, made = 0;  // elements reduced, partials written
        // TODO(10-split, ~14 lines): one round. While at least one block of elements is left,
        //   take the largest power of two (at least `block`) that fits in what is left: that piece
        //   is piece / block whole blocks, reduce_whole_blocks<T><<<piece / block, block_>>> from
        //   from + done into to + made. Then the tail, fewer than `block` elements: clear pad_ to
        //   zeros (cudaMemsetAsync), copy the tail into it (cudaMemcpyAsync, device to device) and
        //   reduce that one padded block into to + made. `made` partials are left for the next round.
        (void)from;
        (void)to;
        made = 1;
        from = to;
        count = made;
        next = 1 - next;
    }
    cudaMemcpyAsync(out, from, sizeof(T), cudaMemcpyDeviceToDevice);
}

template <typename T>
void Reducer<T>::two_phase(const T* in, std::size_t n, T* out)
{
    if (n == 0) {
        cudaMemsetAsync(out, 0, sizeof(T));
        return;
    }
    // TODO(10-two-phase, ~4 lines): phase one, reduce_strided over the whole input with a
    //   fixed grid: kPhaseOneBlocks blocks, or fewer when n needs fewer (one per block_ elements),
    //   into scratch_[0]; phase two, one block over those partials, into out.
    (void)in;
    (void)out;
}

}  // namespace ex10
