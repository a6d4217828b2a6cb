// A kernel for ./lab explain's counts of a thread-block cluster (cluster_explain_test.cpp), compiled
// with the explain instrumentation: each block writes one partial to shared memory; after the
// cluster's barrier, block rank 0's thread 0 reads the other blocks' through map_shared_rank (one
// distributed-shared-memory request each) and its own; a second barrier ends the kernel.
#include <cooperative_groups.h>

#include "lab/kernel.hpp"

namespace cg = cooperative_groups;

namespace {

__global__ void __cluster_dims__(4, 1, 1) cluster_partials(const int* in, int* out)
{
    __shared__ int partial;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) partial = in[blockIdx.x];
    __syncthreads();
    cluster.sync();
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        int total = 0;
        for (unsigned rank = 0; rank < cluster.num_blocks(); ++rank) total += *cluster.map_shared_rank(&partial, rank);
        out[blockIdx.x / cluster.num_blocks()] = total;
    }
    cluster.sync();
}

}  // namespace

namespace emulated {

void cluster_partials(const int* in, int* out, int clusters) { ::cluster_partials<<<4 * clusters, 64>>>(in, out); }

}  // namespace emulated
