// Host entry points for the CPU backend's tests of thread-block clusters (cluster_kernels.cu).
#pragma once

#include "lab/cuda.hpp"

namespace emulated {

// out[c] = the sum of in's 256 values of cluster c (clusters of 4 blocks of 64, __cluster_dims__);
// mistake: 0 none, 1 no barrier before the blocks read each other's shared memory, 2 no barrier
// before they end, 3 a block rank past the cluster's last.
void cluster_sum(const int* in, int* out, int clusters, int mistake);
// The same with dynamic shared memory, blocks of 32 and the cluster's size from cudaLaunchKernelEx.
cudaError_t dynamic_cluster_sum(const int* in, int* out, int clusters, unsigned cluster_size);
// out[block * 7 ...]: the block's rank, the cluster's number of blocks, its x and y, the block's
// x and y in it, and the rank query_shared_rank finds for the block's own shared memory.
cudaError_t cluster_shape(unsigned* out, dim3 grid, dim3 cluster);
// cluster_sum (with its __cluster_dims__(4, 1, 1)) launched on 8 blocks with a cluster attribute.
cudaError_t cluster_sum_with_launch_attribute(const int* in, int* out, unsigned cluster_size);
// The cluster's barrier not reached by block rank 1: which 0, it returns; 1, a warp of it waits at __syncthreads().
void cluster_barrier_missed(int* out, int which);
void allow_large_clusters();  // cluster_shape may have clusters of up to 16 blocks

// What split_exchange gets wrong on purpose (none: the right way).
enum class SplitMistake { none, arrive_before_reads, no_wait, wait_without_arrive, arrive_twice, one_block_returns };
// out[block] = the sum of in's 256 values of the block's cluster (clusters of 4 blocks of 64), each
// block reading the others' partials after cluster.sync() and arriving at the split barrier after
// its last read, waiting before it ends.
void split_exchange(const int* in, int* out, int clusters, SplitMistake mistake);
// out[block * 32 + t] = twice the sum over the cluster's blocks of in[block' * 32 + t] (blocks of 32,
// the cluster's size from the launch): one round through barrier_arrive()/barrier_wait() without a
// token, one through cluster.sync().
cudaError_t split_exchange_twice(const int* in, int* out, int clusters, unsigned cluster_size);

}  // namespace emulated
