// 02_strided_index: no divergent branch (reduce1 in the tutorials).
// Changed since 01: thread t no longer works on slot t. In the step with stride s, thread t
// combines slots 2*s*t and 2*s*t + s, so the busy threads are the first ones: whole warps are
// either busy or idle, and the costly % is gone. New problem: the slots a warp touches lie 2*s
// apart, so several of its threads hit the same shared-memory bank at once (03 fixes that).
// Preconditions: blockDim.x is a power of two from 64 to 1024; one block per blockDim.x elements.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 02 (./lab watch 02 checks on every save); stuck? ./lab hint 02.
#include "lab/kernel.hpp"

namespace ex02 {

// Writes the sum of block b's slice, in[b * blockDim.x ...] up to n, to block_sums[b].
template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    __shared__ T partial[lab::kMaxBlockSize];

    const unsigned tid = threadIdx.x;
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : T(0);
    __syncthreads();

    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        // TODO(02-strided-index, ~4 lines): compute `index`, the first of the two slots this
        //   thread combines (2 * stride * tid). If it lies inside the block, add the slot `stride`
        //   further on into it.
        __syncthreads();
    }

    if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

}  // namespace ex02
