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
    // TODO(10-warp-sum, ~1 line): bring your own code of TODO 08-warp-reduce (rung 08) here.
    return value;
}

// Returns, in thread 0, the sum of `value` over the block's threads (blockDim.x a multiple of 32).
template <typename T>
__device__ T block_sum(T value)
{
    const unsigned lane = threadIdx.x % lab::kWarpSize, warp = threadIdx.x / lab::kWarpSize;
    // TODO(10-block-sum, ~9 lines): bring your own code of TODO 08-block-reduce (rung 08) here; as a
    //   function: thread 0 returns the block's sum of `value`.
    (void)lane, (void)warp;
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
    // TODO(10-scratch, ~4 lines): all the device memory the three schemes below need, for
    //   every call up to max_n elements, allocated here once (a call that allocated would pay for
    //   it every time): two buffers of partials that the passes take turns with, each as large as
    //   the most partials any pass writes (the split scheme's first round leaves one per block of
    //   the input; two_phase's first launch, kPhaseOneBlocks), and one block of padding for the
    //   split scheme's tail. Sizes in bytes pass 2^32 with n: keep them std::size_t.
    (void)max_n;
}

template <typename T>
Reducer<T>::~Reducer()
{
    // TODO(10-free, ~3 lines): give back everything the constructor allocated, each once:
    //   the kit's tests count the device memory a Reducer leaves behind.
}

template <typename T>
void Reducer<T>::multipass(const T* in, std::size_t n, T* out)
{
    if (n == 0) {
        cudaMemsetAsync(out, 0, sizeof(T));  // the sum of nothing
        return;
    }
    // TODO(10-multipass, ~10 lines): one launch leaves one partial per block, so launch again
    //   on those partials, and again, until one value is left, which lands in out. Each pass runs
    //   reduce_strided with one block per two blocks' worth of elements (each thread adds two) and
    //   writes its partials to a scratch buffer it does not read: the two buffers take turns. The
    //   count of elements and the grid stay std::size_t up to the launch itself: n may pass 2^31.
    //   A single element needs no launch at all, only a copy on the device.
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
        // TODO(10-split, ~14 lines): one round: cut the `count` elements at `from` into
        //   pieces whose lengths are powers of two of at least one block, the largest that fits
        //   first, and reduce each with reduce_whole_blocks, which checks no bounds: every block it
        //   runs must be whole. Their partials go side by side into `to`. Then the tail, shorter
        //   than a block: it goes into the padding block, whose other elements must be zeros, and
        //   that block is reduced too. Afterwards `done` counts the elements reduced and `made` the
        //   partials written, which the next round reduces.
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
    // TODO(10-two-phase, ~4 lines): two launches whatever n is: first reduce_strided over
    //   the whole input with a grid of a fixed size (kPhaseOneBlocks blocks, or fewer when n is
    //   too small to give every block an element), whose threads stride over all n elements;
    //   then one block over the partials the first one left, into out.
    (void)in;
    (void)out;
}

}  // namespace ex10
