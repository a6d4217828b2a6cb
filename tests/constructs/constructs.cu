// Kit test: the construct corpus. One small kernel per CUDA construct that the CPU backend once
// rejected, mis-ran or could not parse, each run by constructs_test.cpp on the active backend
// (the CPU backend in CI, the GPU on the device machine) and compared with the answer worked out
// on the host. A construct that works on a GPU must work, with the same answer, on the CPU backend.
#include "constructs.hpp"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>

#include <cstddef>
#include <utility>
#include <vector>

#include "lab/device_buffer.hpp"
#include "lab/error.hpp"
#include "lab/kernel.hpp"

namespace cg = cooperative_groups;

namespace {

// The warp-aggregated atomic: inside a divergent branch, __activemask() names the lanes that took
// it, one of them takes tickets for all, and a shuffle over that mask hands them out.
__global__ void aggregated_tickets(int* counter, int* ticket)
{
    const unsigned tid = threadIdx.x;
    ticket[tid] = -1;
    if (tid % 3 == 0) {
        const unsigned active = __activemask();
        const int leader = __ffs(active) - 1;
        const unsigned lane = tid % 32;
        int base = 0;
        if (static_cast<int>(lane) == leader) base = atomicAdd(counter, __popc(active));
        base = __shfl_sync(active, base, leader);
        ticket[tid] = base + __popc(active & ((1u << lane) - 1));
    }
}

// __syncwarp() reached by the two halves of a warp at two different calls (allowed since Volta).
__global__ void syncwarp_at_two_sites(int* out)
{
    __shared__ int slot[32];
    const unsigned lane = threadIdx.x;
    slot[lane] = static_cast<int>(lane) * 10;
    if (lane < 16) {
        __syncwarp();
        out[lane] = slot[lane + 16];
    } else {
        __syncwarp();
        out[lane] = slot[lane - 16];
    }
}

// CUDA's min and max on mixed and wide integer types.
__global__ void mixed_min_max(unsigned long long* out)
{
    const std::size_t a = 5, b = 7;
    const unsigned u = 3;
    const int i = -1;
    out[0] = min(a, b);
    out[1] = max(a, b);
    out[2] = min(u, 4);
    out[3] = max(u, i);  // unsigned wins: -1 becomes 2^32 - 1
    out[4] = static_cast<unsigned long long>(warpSize);
}

// Dynamic shared memory declared as aligned bytes and used as another type.
template <typename T>
__global__ void aligned_dynamic_shared(T* out)
{
    extern __shared__ __align__(sizeof(T)) unsigned char smem[];
    T* slots = reinterpret_cast<T*>(smem);
    slots[threadIdx.x] = static_cast<T>(threadIdx.x) * 2;
    __syncthreads();
    out[threadIdx.x] = slots[blockDim.x - 1 - threadIdx.x];
}

template <typename T, int N>
struct Box {
    T v[N];
};

// A shared array of a template type with a comma in its arguments, a volatile shared scalar, and
// digit separators next to character literals.
__global__ void shared_declarations(int* out)
{
    __shared__ Box<int, 4> boxes[32];
    __shared__ volatile int flag;
    const unsigned t = threadIdx.x;
    for (int k = 0; k < 4; ++k) boxes[t].v[k] = static_cast<int>(t) * 4 + k;
    if (t == 0) flag = 10'000 + 0x1'00;
    __syncthreads();
    out[t] = boxes[31 - t].v[3] + (t == 1 ? flag : 0) + (t == 2 ? 'a' : 0);
}

// CUB's idiom: a block-wide helper with its own TempStorage type, declared __shared__ by the kernel.
template <typename T, int kThreads>
struct BlockSum {
    union TempStorage {
        T warp[kThreads / 32];
    };
    TempStorage& temp;
    __device__ explicit BlockSum(TempStorage& storage) : temp(storage) {}
    __device__ T sum(T value)
    {
        for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
        if (threadIdx.x % 32 == 0) temp.warp[threadIdx.x / 32] = value;
        __syncthreads();
        T total = 0;
        if (threadIdx.x == 0)
            for (int w = 0; w < kThreads / 32; ++w) total += temp.warp[w];
        return total;
    }
};

template <int kThreads>
__global__ void temp_storage_sum(const int* in, int* out)
{
    using Sum = BlockSum<int, kThreads>;
    __shared__ typename Sum::TempStorage temp;
    const int total = Sum(temp).sum(in[blockIdx.x * kThreads + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// NVIDIA's cooperative-groups reduction: tiles of 32 shuffle down, the first tile sums the tiles'
// results with cg::reduce; tiles of 8 check a sub-warp tile's shuffles and ranks.
__global__ void cooperative_sum(const int* in, int* out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ int tile_sums[32];
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const unsigned long long i = blockIdx.x * block.size() + block.thread_rank();
    int v = i < static_cast<unsigned long long>(n) ? in[i] : 0;
    for (int offset = static_cast<int>(tile.size()) / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = v;
    cg::sync(block);
    if (tile.meta_group_rank() == 0) {
        int w = tile.thread_rank() < tile.meta_group_size() ? tile_sums[tile.thread_rank()] : 0;
        w = cg::reduce(tile, w, cg::plus<int>());
        if (tile.thread_rank() == 0) atomicAdd(&out[0], w);
    }
    cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(block);
    const int rank_sum = cg::reduce(eighth, static_cast<int>(eighth.thread_rank()), cg::plus<int>());
    if (block.thread_rank() == 0) out[1] = rank_sum + 100 * static_cast<int>(eighth.meta_group_size());
    const unsigned votes = eighth.ballot(eighth.thread_rank() % 2 == 0);
    if (block.thread_rank() == 9) out[2] = static_cast<int>(votes);
}

// A thread waits, spinning on an atomic, for a flag that a thread of another warp sets after
// writing a value (valid on every GPU: warps make progress independently).
__global__ void spin_wait_on_flag(int* out)
{
    __shared__ int flag;
    __shared__ volatile int value;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        while (atomicAdd(&flag, 0) == 0) {
        }
        out[0] = value;
    }
    if (threadIdx.x == 32) {
        value = 1234;
        __threadfence_block();
        atomicExch(&flag, 1);
    }
}

// The same wait on a plain volatile flag, with no atomic in the loop.
__global__ void spin_wait_on_volatile_flag(int* out)
{
    __shared__ volatile int flag;
    __shared__ volatile int value;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        while (flag == 0) {
        }
        __threadfence_block();
        out[0] = value;
    }
    if (threadIdx.x == 32) {
        value = 4321;
        __threadfence_block();
        flag = 1;
    }
}

template <typename T>
std::vector<long long> widened(const std::vector<T>& values)
{
    return std::vector<long long>(values.begin(), values.end());
}

Outcome run_aggregated_tickets()
{
    lab::DeviceBuffer<int> counter(1), tickets(256);
    counter.fill(0);
    aggregated_tickets<<<1, 256>>>(counter.data(), tickets.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> got = tickets.download();
    std::vector<bool> seen(256, false);
    std::vector<long long> result{counter.download()[0]};
    // Each participant holds a distinct ticket below the count; the rest hold -1.
    int wrong = 0;
    for (unsigned t = 0; t < 256; ++t) {
        if (t % 3 != 0) wrong += got[t] != -1;
        else if (got[t] < 0 || got[t] >= 86 || seen[static_cast<std::size_t>(got[t])]) ++wrong;
        else seen[static_cast<std::size_t>(got[t])] = true;
    }
    result.push_back(wrong);
    return {result, {86, 0}};
}

Outcome run_syncwarp_at_two_sites()
{
    lab::DeviceBuffer<int> out(32);
    syncwarp_at_two_sites<<<1, 32>>>(out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<long long> expected;
    for (int lane = 0; lane < 32; ++lane) expected.push_back((lane < 16 ? lane + 16 : lane - 16) * 10);
    return {widened(out.download()), expected};
}

Outcome run_mixed_min_max()
{
    lab::DeviceBuffer<unsigned long long> out(5);
    mixed_min_max<<<1, 1>>>(out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<unsigned long long> got = out.download();
    return {std::vector<long long>(got.begin(), got.end()), {5, 7, 3, 4294967295ll, 32}};
}

Outcome run_aligned_dynamic_shared()
{
    lab::DeviceBuffer<double> out(64);
    aligned_dynamic_shared<double><<<1, 64, 64 * sizeof(double)>>>(out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<long long> got, expected;
    for (double d : out.download()) got.push_back(static_cast<long long>(d));
    for (int t = 0; t < 64; ++t) expected.push_back((63 - t) * 2);
    return {got, expected};
}

Outcome run_shared_declarations()
{
    lab::DeviceBuffer<int> out(32);
    shared_declarations<<<1, 32>>>(out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<long long> expected;
    for (int t = 0; t < 32; ++t) expected.push_back((31 - t) * 4 + 3 + (t == 1 ? 10256 : 0) + (t == 2 ? 'a' : 0));
    return {widened(out.download()), expected};
}

Outcome run_temp_storage_sum()
{
    constexpr int kBlocks = 3, kThreads = 128;
    std::vector<int> in(kBlocks * kThreads);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<int>(k % 17) - 8;
    lab::DeviceBuffer<int> device_in(in.size()), out(kBlocks);
    device_in.upload(in);
    temp_storage_sum<kThreads><<<kBlocks, kThreads>>>(device_in.data(), out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<long long> expected(kBlocks, 0);
    for (std::size_t k = 0; k < in.size(); ++k) expected[k / kThreads] += in[k];
    return {widened(out.download()), expected};
}

Outcome run_cooperative_sum()
{
    constexpr int n = 1000, block = 256;
    std::vector<int> in(n);
    for (int k = 0; k < n; ++k) in[static_cast<std::size_t>(k)] = (k * 7) % 23 - 11;
    lab::DeviceBuffer<int> device_in(n), out(3);
    device_in.upload(in);
    out.fill(0);
    cooperative_sum<<<(n + block - 1) / block, block>>>(device_in.data(), out.data(), n);
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    long long total = 0;
    for (int v : in) total += v;
    // Ranks 0..7 sum to 28 in every tile of 8; 256 threads make 32 such tiles; lanes 8..15 vote
    // for their even ranks: bits 0, 2, 4, 6 of the tile's own ballot.
    return {widened(out.download()), {total, 28 + 100 * 32, 0x55}};
}

Outcome run_spin_wait_on_flag()
{
    lab::DeviceBuffer<int> out(1);
    out.fill(0);
    spin_wait_on_flag<<<1, 64>>>(out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    return {widened(out.download()), {1234}};
}

Outcome run_spin_wait_on_volatile_flag()
{
    lab::DeviceBuffer<int> out(1);
    out.fill(0);
    spin_wait_on_volatile_flag<<<1, 64>>>(out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    return {widened(out.download()), {4321}};
}

// The single-pass ticket with libcu++'s atomics: each block writes its partial, then takes a ticket
// with fetch_add(1, acq_rel) on a device-scope atomic_ref, a release of the partial and an acquire
// of the others' in one, with no __threadfence(); the block that draws the last ticket adds them up.
__global__ void libcu_ticket_sum(const int* in, int* partials, unsigned* tickets, long long* out)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        int sum = 0;
        for (unsigned k = 0; k < blockDim.x; ++k) sum += in[blockIdx.x * blockDim.x + k];
        partials[blockIdx.x] = sum;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(*tickets);
        last = ticket.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        long long total = 0;
        for (unsigned b = 0; b < gridDim.x; ++b)
            total += cuda::atomic_ref<int, cuda::thread_scope_device>(partials[b]).load(cuda::memory_order_relaxed);
        out[0] = total;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*tickets).store(0, cuda::memory_order_relaxed);
    }
}

Outcome run_libcu_ticket_sum()
{
    constexpr int kBlocks = 37, kThreads = 32;
    std::vector<int> in(kBlocks * kThreads);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<int>(k % 29) - 13;
    lab::DeviceBuffer<int> device_in(in.size()), partials(kBlocks);
    lab::DeviceBuffer<unsigned> tickets(1);
    lab::DeviceBuffer<long long> out(1);
    device_in.upload(in);
    tickets.fill(0u);
    out.fill(0);
    libcu_ticket_sum<<<kBlocks, kThreads>>>(device_in.data(), partials.data(), tickets.data(), out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    long long total = 0;
    for (int v : in) total += v;
    return {{out.download()[0], tickets.download()[0]}, {total, 0}};
}

// A reduction over a thread-block cluster: each block of a cluster of 4 sums its 32 inputs in
// shared memory, and after the cluster's barrier block rank 0 adds the four sums through distributed
// shared memory (map_shared_rank); a second barrier keeps every block's shared memory there until
// then. The cluster's shape comes from the launch (cudaLaunchKernelEx), so the file builds for GPUs
// without clusters too (their code is left empty: the construct is skipped there).
__global__ void cluster_sum(const int* in, int* out)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    __shared__ int partial[32];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = 16; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    cluster.sync();
    if (cluster.block_rank() == 0 && t == 0) {
        int total = 0;
        for (unsigned rank = 0; rank < cluster.num_blocks(); ++rank) total += *cluster.map_shared_rank(&partial[0], rank);
        out[blockIdx.x / cluster.num_blocks()] = total;
    }
    cluster.sync();
#endif
}

Outcome run_cluster_sum()
{
    constexpr int kClusters = 5, kClusterBlocks = 4, kThreads = 32;
    std::vector<int> in(kClusters * kClusterBlocks * kThreads);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<int>(k % 31) - 15;
    lab::DeviceBuffer<int> device_in(in.size()), out(kClusters);
    device_in.upload(in);
    out.fill(-1);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(kClusters * kClusterBlocks);
    config.blockDim = dim3(kThreads);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = kClusterBlocks;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    LAB_CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_sum, static_cast<const int*>(device_in.data()), out.data()));
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<long long> expected(kClusters, 0);
    for (std::size_t k = 0; k < in.size(); ++k) expected[k / (kClusterBlocks * kThreads)] += in[k];
    return {widened(out.download()), expected};
}

// A block's share of the input copied into shared memory with cooperative_groups::memcpy_async (the
// float4 form a row kernel uses), waited for with cooperative_groups::wait, then summed. Asynchronous
// copies on sm_80 and later; on older GPUs the same calls copy synchronously.
__global__ void async_copy_sum(const float4* in, float* out)
{
    constexpr unsigned kThreads = 128;
    __shared__ float4 tile[2 * kThreads];
    __shared__ float partial[kThreads];
    cg::thread_block block = cg::this_thread_block();
    const unsigned t = threadIdx.x;
    cg::memcpy_async(block, tile, in + static_cast<std::size_t>(blockIdx.x) * 2 * kThreads, std::size_t{2} * kThreads * sizeof(float4));
    cg::wait(block);
    float mine = 0.0f;
    for (unsigned k = t; k < 2 * kThreads; k += kThreads) mine += tile[k].x + tile[k].y + tile[k].z + tile[k].w;
    partial[t] = mine;
    __syncthreads();
    for (unsigned stride = kThreads / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

Outcome run_async_copy_sum()
{
    constexpr int kBlocks = 6, kThreads = 128, kPerBlock = 2 * kThreads * 4;
    std::vector<float> in(kBlocks * kPerBlock);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(static_cast<int>(k % 23) - 11);
    lab::DeviceBuffer<float> device_in(in.size()), out(kBlocks);
    device_in.upload(in);
    out.fill(-1.0f);
    async_copy_sum<<<kBlocks, kThreads>>>(reinterpret_cast<const float4*>(device_in.data()), out.data());
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<long long> expected(kBlocks, 0), got;
    for (std::size_t k = 0; k < in.size(); ++k) expected[k / kPerBlock] += static_cast<long long>(in[k]);
    for (float v : out.download()) got.push_back(static_cast<long long>(v));
    return {got, expected};
}

// The cluster's split barrier: after cluster.sync(), every block reads every block's partial through
// distributed shared memory, arrives (barrier_arrive) after its last such read, writes its total,
// and waits (barrier_wait) before it ends, so that no block's shared memory goes while another may
// still read it. Clusters need sm_90 (the code is left empty below it, and the construct skipped).
__global__ void split_barrier_exchange(const int* in, int* out)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    __shared__ int partial[32];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = 16; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    cluster.sync();
    int total = 0;
    if (t == 0)
        for (unsigned rank = 0; rank < cluster.num_blocks(); ++rank) total += *cluster.map_shared_rank(&partial[0], rank);
    auto token = cluster.barrier_arrive();
    if (t == 0) out[blockIdx.x] = total;
    cluster.barrier_wait(std::move(token));
#endif
}

Outcome run_split_barrier_exchange()
{
    constexpr int kClusters = 3, kClusterBlocks = 4, kThreads = 32;
    std::vector<int> in(kClusters * kClusterBlocks * kThreads);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<int>(k % 29) - 14;
    lab::DeviceBuffer<int> device_in(in.size()), out(kClusters * kClusterBlocks);
    device_in.upload(in);
    out.fill(-1);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(kClusters * kClusterBlocks);
    config.blockDim = dim3(kThreads);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = kClusterBlocks;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    LAB_CUDA_CHECK(cudaLaunchKernelEx(&config, split_barrier_exchange, static_cast<const int*>(device_in.data()), out.data()));
    LAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<long long> expected(kClusters * kClusterBlocks, 0);
    for (std::size_t k = 0; k < in.size(); ++k)
        for (int b = 0; b < kClusterBlocks; ++b) expected[k / (kClusterBlocks * kThreads) * kClusterBlocks + b] += in[k];
    return {widened(out.download()), expected};
}

}  // namespace

const std::vector<Construct>& constructs()
{
    static const std::vector<Construct> all{
        {"activemask_in_divergent_branch", run_aggregated_tickets},
        {"syncwarp_at_two_sites", run_syncwarp_at_two_sites},
        {"min_max_on_mixed_types_and_runtime_warp_size", run_mixed_min_max},
        {"aligned_extern_shared_bytes", run_aligned_dynamic_shared},
        {"template_comma_volatile_and_digit_separators", run_shared_declarations},
        {"cub_style_temp_storage", run_temp_storage_sum},
        {"cooperative_groups_reduction", run_cooperative_sum},
        {"spin_wait_on_an_atomic_flag", run_spin_wait_on_flag},
        {"spin_wait_on_a_volatile_flag", run_spin_wait_on_volatile_flag},
        {"libcu_atomic_ref_ticket", run_libcu_ticket_sum},
        {"thread_block_cluster_reduction", run_cluster_sum, 90},
        {"memcpy_async_into_shared_memory", run_async_copy_sum},
        {"cluster_split_barrier_exchange", run_split_barrier_exchange, 90},
    };
    return all;
}
