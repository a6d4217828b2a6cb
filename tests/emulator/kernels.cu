// Kernels for the CPU backend's own tests: correct ones that must give the right answer under
// every thread order, and planted bugs the emulator must catch. Launched from host code in this
// file with <<<...>>>, which also exercises the source rewriter.
#include "kernels.hpp"

#include <cuda/atomic>

#include "lab/kernel.hpp"

namespace {

// --- correct kernels ------------------------------------------------------------------------

__global__ void tree_sum(const float* in, float* out, int n)
{
    __shared__ float partial[256];
    const unsigned t = threadIdx.x;
    const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

__global__ void dynamic_tree_sum(const int* in, int* out, int n)
{
    extern __shared__ int slots[];
    const unsigned t = threadIdx.x;
    const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
    slots[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s) slots[t] += slots[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = slots[0];
}

__device__ int warp_sum(int v)
{
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void shuffle_sum(const int* in, int* out, int n)
{
    __shared__ int per_warp[32];
    const unsigned t = threadIdx.x;
    const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
    int v = warp_sum(i < n ? in[i] : 0);
    if (t % 32 == 0) per_warp[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < blockDim.x / 32 ? per_warp[t] : 0;
        v = warp_sum(v);
        if (t == 0) out[blockIdx.x] = v;
    }
}

__global__ void warp_votes(const int* in, unsigned* out)
{
    const unsigned t = threadIdx.x;
    const int v = in[t];
    const unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    const int any = __any_sync(0xffffffffu, v > 100);
    const int all = __all_sync(0xffffffffu, v > -100);
    const int broadcast = __shfl_sync(0xffffffffu, v, 3);
    const int butterfly = v + __shfl_xor_sync(0xffffffffu, v, 1);
    const int up = __shfl_up_sync(0xffffffffu, v, 2);
    const unsigned reduced = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(v));
    const int counted = __syncthreads_count(v > 0);
    if (t == 0) {
        out[0] = ballot;
        out[1] = static_cast<unsigned>(any);
        out[2] = static_cast<unsigned>(all);
        out[3] = static_cast<unsigned>(broadcast);
        out[5] = reduced;
        out[6] = static_cast<unsigned>(counted);
    }
    if (t == 5) out[4] = static_cast<unsigned>(butterfly);
    if (t == 7) out[7] = static_cast<unsigned>(up);
}

__global__ void atomics(const int* in, int n, int* sum, int* biggest, unsigned* ticket, float* float_sum)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    atomicAdd(sum, in[i]);
    atomicMax(biggest, in[i]);
    atomicInc(ticket, 1000000u);
    atomicAdd(float_sum, 0.5f);
}

__global__ void tickets(float* partials, unsigned* tickets, int* data, int fence)
{
    atomicAdd(data, 1);
    if (threadIdx.x != 0) return;
    partials[blockIdx.x] = static_cast<float>(blockIdx.x);
    if (fence == 1) __threadfence_block();
    if (fence >= 2) __threadfence();
    atomicAdd(tickets, 1u);
    if (fence == 3) atomicAdd(tickets, 1u);
}

// The ticket with libcu++'s atomics (tickets() below says the modes; emulator_test.cpp which pass).
__global__ void libcu_tickets(float* partials, unsigned* tickets, int mode)
{
    if (threadIdx.x != 0) return;
    partials[blockIdx.x] = static_cast<float>(blockIdx.x);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> device_ticket(*tickets);
    cuda::atomic_ref<unsigned, cuda::thread_scope_block> block_ticket(*tickets);
    auto* counter = reinterpret_cast<cuda::atomic<unsigned, cuda::thread_scope_device>*>(tickets);
    switch (mode) {
    case 0: device_ticket.fetch_add(1, cuda::memory_order_acq_rel); break;
    case 1: device_ticket.fetch_add(1, cuda::memory_order_release); break;
    case 2: device_ticket.fetch_add(1); break;
    case 3:
        cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
        device_ticket.fetch_add(1, cuda::memory_order_relaxed);
        break;
    case 4:
        cuda::std::atomic_thread_fence(cuda::std::memory_order_seq_cst);
        device_ticket.fetch_add(1, cuda::memory_order_relaxed);
        break;
    case 5: (*counter)++; break;
    case 6: device_ticket.fetch_add(1, cuda::memory_order_relaxed); break;
    case 7: device_ticket.fetch_add(1, cuda::memory_order_acquire); break;
    case 8: block_ticket.fetch_add(1, cuda::memory_order_acq_rel); break;
    case 9:
        cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_block);
        device_ticket.fetch_add(1, cuda::memory_order_relaxed);
        break;
    case 10:
        cuda::atomic_thread_fence(cuda::memory_order_relaxed, cuda::thread_scope_device);
        device_ticket.fetch_add(1, cuda::memory_order_relaxed);
        break;
    case 11: counter->fetch_add(1, cuda::memory_order_relaxed); break;
    case 12: cuda::std::atomic_ref<unsigned>(*tickets).fetch_add(1, cuda::std::memory_order_relaxed); break;
    case 13: device_ticket.fetch_add(2, cuda::memory_order_relaxed); break;  // adds 2: no ticket
    case 14: ++*reinterpret_cast<cuda::atomic<unsigned, cuda::thread_scope_block>*>(tickets); break;
    }
}

// The same ticket on a 64-bit counter.
__global__ void wide_tickets(float* partials, unsigned long long* tickets, int fence)
{
    if (threadIdx.x != 0) return;
    partials[blockIdx.x] = static_cast<float>(blockIdx.x);
    if (fence >= 2) __threadfence();
    atomicAdd(tickets, 1ull);
}

// The single-pass ticket with the counter reset by block 0 as it starts, which works only where
// block 0 runs before every other: the block that draws the last ticket writes the total of the
// blocks that counted (every block adds 1), and no block may count on another's having run.
__global__ void reset_by_block_zero(unsigned* counter, int* total, int* partials)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) *counter = 0;
    partials[blockIdx.x] = 1;
    __threadfence();
    if (atomicAdd(counter, 1u) != gridDim.x - 1) return;
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partials[b];
    *total = sum;
}

// Reads a buffer nobody wrote: out[i] = scratch[i] + 1.
__global__ void read_unwritten_global(const int* scratch, int* out)
{
    out[threadIdx.x] = scratch[threadIdx.x] + 1;
}

__global__ void grid_indices(unsigned* out)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned width = gridDim.x * blockDim.x;
    out[y * width + x] = y * 1000 + x;
}

// Reads a shared slot no thread of this block wrote: on a GPU that holds whatever was there.
__global__ void read_unwritten_shared(int* out)
{
    __shared__ int slots[64];
    if (threadIdx.x == 0) slots[0] = 7;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = slots[1];
    if (threadIdx.x == 1) slots[1] = 42;  // written after the read: the next block must not see it
}

// Reads a shared slot no thread of the block ever writes: only the fill decides what it reads.
__global__ void read_never_written_shared(int* out)
{
    __shared__ int slots[64];
    if (threadIdx.x == 0) slots[0] = 7;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = slots[1];
}

// --- planted bugs ---------------------------------------------------------------------------

__global__ void tree_sum_missing_barrier(const float* in, float* out, int n)
{
    __shared__ float partial[256];
    const unsigned t = threadIdx.x;
    const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s) partial[t] += partial[t + s];  // no barrier: the next step may read unfinished slots
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

__global__ void divergent_barrier(float* out)
{
    if (threadIdx.x < 32) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1.0f;
}

__global__ void early_return(const float* in, float* out, int n)
{
    __shared__ float partial[256];
    const unsigned t = threadIdx.x;
    const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
    if (i >= n) return;  // the others then wait at the barrier for ever
    partial[t] = in[i];
    __syncthreads();
    if (t == 0) out[blockIdx.x] = partial[0];
}

// The barrier inside an `if` that half the block takes: the other half runs to the kernel's end.
__global__ void barrier_in_if(float* out)
{
    __shared__ float held[64];
    held[threadIdx.x] = static_cast<float>(threadIdx.x);
    if (threadIdx.x < 32) {
        __syncthreads();
        out[threadIdx.x] = held[63 - threadIdx.x];
    }
}

__global__ void wrong_mask(int* out)
{
    const int v = static_cast<int>(threadIdx.x);
    out[threadIdx.x] = __shfl_xor_sync(0x0000ffffu, v, 1);  // lanes 16-31 call it too
}

__global__ void full_mask_partial_warp(int* out)
{
    out[threadIdx.x] = __shfl_down_sync(0xffffffffu, static_cast<int>(threadIdx.x), 1);
}

// Lane 3 returns before the warp's calls, whose mask names it: the others go on without it (a
// shuffle, a vote and a ballot over the lanes that have not exited), and none reads lane 3's value.
__global__ void lane_leaves(int* out)
{
    if (threadIdx.x == 3) return;
    const int first = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x), 0);
    out[threadIdx.x] = first + 100 * __all_sync(0xffffffffu, 1) + 1000 * __popc(__ballot_sync(0xffffffffu, 1));
}

// Lane 0 returns, and every other lane reads its value: undefined on a GPU.
__global__ void reads_returned_lane(int* out)
{
    if (threadIdx.x == 0) return;
    out[threadIdx.x] = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x), 0);
}

__global__ void warp_and_barrier_deadlock(int* out)
{
    if (threadIdx.x < 16) out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 0);
    else __syncthreads();
}

// The same in every warp of a block of 1024: half of each warp at a shuffle, half at the barrier.
__global__ void block_and_barrier_deadlock(int* out)
{
    if (threadIdx.x % 32 < 16) out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 0);
    else __syncthreads();
}

__global__ void dynamic_shared_overflow(int* out)
{
    extern __shared__ int slots[];
    slots[threadIdx.x + blockDim.x] = 1;  // one block's worth past the end of what was asked for
    out[threadIdx.x] = slots[threadIdx.x];
}

__global__ void global_overflow(const int* in, int* out)
{
    out[threadIdx.x] = in[threadIdx.x + 64];  // `in` holds 32: this is past its end, and past the slack after it
}

// Reads `in` `past` ints beyond its `n`: a grid's stride past the end, as a read left before its
// bound check does (mistake_07_reads_leftover_before_check), well beyond one page.
__global__ void far_past_end(const int* in, int* out, int n, int past)
{
    out[threadIdx.x] = in[n + past + threadIdx.x];
}

// `out` holds one int: the others land in the slack before the allocation's guard page.
__global__ void write_past_end(int* out)
{
    out[threadIdx.x] = 1;
}

__global__ void huge_local_array(int* out)
{
    volatile int big[200000];  // 800 KB: more than a fiber's stack
    big[threadIdx.x] = 1;
    out[threadIdx.x] = big[threadIdx.x];
}

__global__ void divide(const int* in, int* out)
{
    out[threadIdx.x] = 100 / in[threadIdx.x];
}

// The tutorials' last-warp unroll: correct only if a warp runs in lockstep, which GPUs since
// Volta do not promise. And the safe form of the same step.
__device__ void unsafe_warp_reduce(volatile float* s, unsigned t)
{
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}

__device__ void safe_warp_reduce(float* s, unsigned t)
{
    for (unsigned offset = 32; offset > 0; offset /= 2) {
        const float other = s[t + offset];
        __syncwarp();
        s[t] += other;
        __syncwarp();
    }
}

template <bool Safe>
__global__ void last_warp_unroll(const float* in, float* out)
{
    __shared__ float s[128];
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (t < 64) s[t] += s[t + 64];
    __syncthreads();
    if (t < 32) {
        if (Safe) safe_warp_reduce(s, t);
        else unsafe_warp_reduce(s, t);
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

}  // namespace

namespace emulated {

void tree_sum(const float* in, float* out, int n, int block) { ::tree_sum<<<(n + block - 1) / block, block>>>(in, out, n); }
void dynamic_tree_sum(const int* in, int* out, int n, int block, std::size_t shared)
{
    ::dynamic_tree_sum<<<(n + block - 1) / block, block, shared>>>(in, out, n);
}
void shuffle_sum(const int* in, int* out, int n, int block) { ::shuffle_sum<<<(n + block - 1) / block, block>>>(in, out, n); }
void warp_votes(const int* in, unsigned* out) { ::warp_votes<<<1, 32>>>(in, out); }
void atomics(const int* in, int n, int* sum, int* biggest, unsigned* ticket, float* float_sum)
{
    ::atomics<<<(n + 127) / 128, 128>>>(in, n, sum, biggest, ticket, float_sum);
}
void tickets(float* partials, unsigned* tickets, int* data, int fence, int blocks)
{
    ::tickets<<<blocks, 64>>>(partials, tickets, data, fence);
}
void libcu_tickets(float* partials, unsigned* tickets, int mode, int blocks)
{
    ::libcu_tickets<<<blocks, 64>>>(partials, tickets, mode);
}
void wide_tickets(float* partials, unsigned long long* tickets, int fence, int blocks)
{
    ::wide_tickets<<<blocks, 64>>>(partials, tickets, fence);
}
void grid_indices(unsigned* out) { ::grid_indices<<<dim3(3, 2), dim3(4, 5)>>>(out); }
void reset_by_block_zero(unsigned* counter, int* total, int* partials, int blocks)
{
    ::reset_by_block_zero<<<blocks, 32>>>(counter, total, partials);
}
void read_unwritten_global(const int* scratch, int* out) { ::read_unwritten_global<<<1, 32>>>(scratch, out); }
void read_unwritten_shared(int* out, int blocks) { ::read_unwritten_shared<<<blocks, 64>>>(out); }
void read_never_written_shared(int* out, int blocks) { ::read_never_written_shared<<<blocks, 64>>>(out); }
void tree_sum_missing_barrier(const float* in, float* out, int n)
{
    ::tree_sum_missing_barrier<<<(n + 255) / 256, 256>>>(in, out, n);
}
void divergent_barrier(float* out) { ::divergent_barrier<<<1, 64>>>(out); }
void early_return(const float* in, float* out, int n) { ::early_return<<<(n + 255) / 256, 256>>>(in, out, n); }
void barrier_in_if(float* out) { ::barrier_in_if<<<1, 64>>>(out); }
void wrong_mask(int* out) { ::wrong_mask<<<1, 32>>>(out); }
void full_mask_partial_warp(int* out) { ::full_mask_partial_warp<<<1, 48>>>(out); }
void lane_leaves(int* out) { ::lane_leaves<<<1, 32>>>(out); }
void reads_returned_lane(int* out) { ::reads_returned_lane<<<1, 32>>>(out); }
void warp_and_barrier_deadlock(int* out) { ::warp_and_barrier_deadlock<<<1, 32>>>(out); }
void block_and_barrier_deadlock(int* out) { ::block_and_barrier_deadlock<<<1, 1024>>>(out); }
void write_past_end(int* out) { ::write_past_end<<<1, 8>>>(out); }
void dynamic_shared_overflow(int* out) { ::dynamic_shared_overflow<<<1, 64, 64 * sizeof(int)>>>(out); }
void global_overflow(const int* in, int* out) { ::global_overflow<<<1, 32>>>(in, out); }
void far_past_end(const int* in, int* out, int n, int past) { ::far_past_end<<<1, 32>>>(in, out, n, past); }
void huge_local_array(int* out) { ::huge_local_array<<<1, 2>>>(out); }
void divide(const int* in, int* out) { ::divide<<<1, 4>>>(in, out); }
void last_warp_unroll(const float* in, float* out, int blocks, bool safe)
{
    if (safe) ::last_warp_unroll<true><<<blocks, 128>>>(in, out);
    else ::last_warp_unroll<false><<<blocks, 128>>>(in, out);
}
void launch_with(int block, std::size_t shared, int* out)
{
    ::dynamic_tree_sum<<<1, block, shared>>>(out, out, 1);
}
void allow_shared(std::size_t bytes)
{
    cudaFuncSetAttribute(::dynamic_tree_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

}  // namespace emulated
