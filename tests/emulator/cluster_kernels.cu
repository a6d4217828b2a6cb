// Kernels for the CPU backend's tests of thread-block clusters (cluster_test.cpp): correct ones that
// must give the host's answer under every thread order, and planted mistakes the backend must
// report with their line. Launched with <<<...>>> (clusters from __cluster_dims__) and with
// cudaLaunchKernelEx (clusters from the launch's attribute).
#include "cluster_kernels.hpp"

#include <cooperative_groups.h>

#include <utility>

#include "lab/kernel.hpp"

namespace cg = cooperative_groups;

namespace {

// Each block of a cluster of 4 sums its 64 inputs in shared memory; after the cluster's barrier,
// block rank 0 adds the four partials through distributed shared memory and writes the cluster's
// total; the second barrier keeps every block's shared memory alive until rank 0 has read it.
// `mistake`: 0 none, 1 no first barrier (rank 0 reads before the others have written), 2 no second
// barrier (the other blocks end while rank 0 may still read), 3 a rank past the cluster's last.
__global__ void __cluster_dims__(4, 1, 1) cluster_sum(const int* in, int* out, int mistake)
{
    __shared__ int partial[64];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = 32; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (mistake != 1) cluster.sync();
    if (cluster.block_rank() == 0 && t == 0) {
        int total = 0;
        for (unsigned rank = 0; rank < cluster.num_blocks() + (mistake == 3 ? 1 : 0); ++rank)
            total += *cluster.map_shared_rank(&partial[0], rank);
        out[blockIdx.x / cluster.num_blocks()] = total;
    }
    if (mistake != 2) cluster.sync();
}

// The same with the cluster's shape from the launch and the partials in dynamic shared memory.
__global__ void dynamic_cluster_sum(const int* in, int* out)
{
    extern __shared__ int slots[];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned t = threadIdx.x;
    slots[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) slots[t] += slots[t + stride];
        __syncthreads();
    }
    cluster.sync();
    if (cluster.block_rank() == 0 && t == 0) {
        int total = 0;
        for (unsigned rank = 0; rank < cluster.num_blocks(); ++rank) total += cluster.map_shared_rank(slots, rank)[0];
        out[blockIdx.x / cluster.num_blocks()] = total;
    }
    cluster.sync();
}

// What a cluster tells each block about itself: out[block] = rank, number of blocks, the cluster's
// x and y, the block's x and y in it, and query_shared_rank of an address in the block's shared memory.
__global__ void cluster_shape(unsigned* out)
{
    __shared__ int mine;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
    if (threadIdx.x == 0) {
        unsigned* o = out + block * 7;
        o[0] = cluster.block_rank();
        o[1] = cluster.num_blocks();
        o[2] = cluster.dim_blocks().x;
        o[3] = cluster.dim_blocks().y;
        o[4] = cluster.block_index().x;
        o[5] = cluster.block_index().y;
        o[6] = cluster.query_shared_rank(&mine);
    }
    cluster.sync();
}

// The cluster's barrier missed: `which` 0, block rank 1 returns without reaching it; 1, block rank 1's
// first warp waits at __syncthreads() while the rest of the cluster waits at cluster.sync().
__global__ void __cluster_dims__(2, 1, 1) cluster_barrier_missed(int* out, int which)
{
    cg::cluster_group cluster = cg::this_cluster();
    if (cluster.block_rank() == 1) {
        if (which == 0) return;
        if (threadIdx.x < 32) {
            __syncthreads();
            out[0] = 1;
            return;
        }
    }
    cluster.sync();
    out[blockIdx.x] = 1;
}

// The exchange with the cluster's split barrier: each block of a cluster of 4 sums its 64 inputs;
// after cluster.sync(), thread 0 of every block adds the four partials through distributed shared
// memory, the block arrives (barrier_arrive) once its last read of another block is done, writes
// its total (work that needs no other block), and waits (barrier_wait) before it ends, so that its
// own shared memory outlives every other block's reads of it.
// `mistake` (emulated::SplitMistake): 0 none, 1 arrive before the reads, 2 no wait before the end,
// 3 a wait without an arrival, 4 two arrivals without a wait, 5 block rank 1 returns instead of arriving.
__global__ void __cluster_dims__(4, 1, 1) split_exchange(const int* in, int* out, int mistake)
{
    __shared__ int partial[64];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = 32; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    cluster.sync();
    cg::cluster_group::arrival_token token;
    if (mistake == 1) token = cluster.barrier_arrive();
    int total = 0;
    if (t == 0)
        for (unsigned rank = 0; rank < cluster.num_blocks(); ++rank) total += *cluster.map_shared_rank(&partial[0], rank);
    if (mistake == 5 && cluster.block_rank() == 1) return;
    if (mistake != 1 && mistake != 3) token = cluster.barrier_arrive();
    if (mistake == 4) token = cluster.barrier_arrive();
    if (t == 0) out[blockIdx.x] = total;
    if (mistake != 2) cluster.barrier_wait(std::move(token));
}

// The same without the token (barrier_wait()), the cluster's shape from the launch, and a second
// round: the blocks arrive and wait twice, the second time through cluster.sync().
__global__ void split_exchange_twice(const int* in, int* out)
{
    __shared__ int partial[32];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    cluster.sync();
    for (int round = 0; round < 2; ++round) {
        int total = 0;
        for (unsigned rank = 0; rank < cluster.num_blocks(); ++rank) total += cluster.map_shared_rank(partial, rank)[t];
        if (round == 0) {
            cluster.barrier_arrive();
            out[blockIdx.x * blockDim.x + t] = total;
            cluster.barrier_wait();
        } else {
            cluster.sync();
            out[blockIdx.x * blockDim.x + t] += total;
        }
    }
    cluster.sync();
}

}  // namespace

namespace emulated {

void split_exchange(const int* in, int* out, int clusters, SplitMistake mistake)
{
    ::split_exchange<<<4 * clusters, 64>>>(in, out, static_cast<int>(mistake));
}

cudaError_t split_exchange_twice(const int* in, int* out, int clusters, unsigned cluster_size)
{
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(cluster_size * clusters);
    config.blockDim = dim3(32);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster_size;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, ::split_exchange_twice, in, out);
}

void cluster_sum(const int* in, int* out, int clusters, int mistake) { ::cluster_sum<<<4 * clusters, 64>>>(in, out, mistake); }

cudaError_t dynamic_cluster_sum(const int* in, int* out, int clusters, unsigned cluster_size)
{
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(cluster_size * clusters);
    config.blockDim = dim3(32);
    config.dynamicSmemBytes = 32 * sizeof(int);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster_size;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, ::dynamic_cluster_sum, in, out);
}

cudaError_t cluster_shape(unsigned* out, dim3 grid, dim3 cluster)
{
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = dim3(64);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster.x;
    attribute[0].val.clusterDim.y = cluster.y;
    attribute[0].val.clusterDim.z = cluster.z;
    config.attrs = attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, ::cluster_shape, out);
}

cudaError_t cluster_sum_with_launch_attribute(const int* in, int* out, unsigned cluster_size)
{
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(8);
    config.blockDim = dim3(64);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = cluster_size;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, ::cluster_sum, in, out, 0);
}

void cluster_barrier_missed(int* out, int which) { ::cluster_barrier_missed<<<2, 64>>>(out, which); }

void allow_large_clusters()
{
    cudaFuncSetAttribute(::cluster_shape, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
}

}  // namespace emulated
