// Host entry points for the CPU backend's own test kernels (kernels.cu).
#pragma once

#include <cstddef>

namespace emulated {

void tree_sum(const float* in, float* out, int n, int block);
void dynamic_tree_sum(const int* in, int* out, int n, int block, std::size_t shared);
void shuffle_sum(const int* in, int* out, int n, int block);
// out[0] ballot, [1] any, [2] all, [3] broadcast of lane 3, [4] lane 5 + lane 4, [5] warp sum,
// [6] __syncthreads_count, [7] lane 7's value from lane 5
void warp_votes(const int* in, unsigned* out);
void atomics(const int* in, int n, int* sum, int* biggest, unsigned* ticket, float* float_sum);
// Each block's thread 0 writes partials[block], fences as `fence` says (0: none, 1: block scope,
// 2: __threadfence(), 3: __threadfence() then two tickets) and takes a ticket: atomicAdd(tickets, 1u);
// every thread also adds 1 to *data, an int (not a ticket).
void tickets(float* partials, unsigned* tickets, int* data, int fence, int blocks);
// The ticket with libcu++: 0 fetch_add(1, acq_rel), 1 release, 2 seq_cst on a device-scope atomic_ref;
// 3 a release fence of device scope, then a relaxed fetch_add; 4 cuda::std::atomic_thread_fence
// (system scope), then relaxed; 5 ++ on a cuda::atomic of device scope (all pass); 6 relaxed alone;
// 7 acquire; 8 acq_rel of block scope; 9 a block-scope fence, then relaxed; 10 a relaxed fence, then
// relaxed; 11 relaxed on a cuda::atomic; 12 relaxed on a cuda::std::atomic_ref (all refused while
// required); 13 fetch_add(2), relaxed: an add, not a ticket; 14 ++ on a cuda::atomic of block scope
// (refused, the report naming the kernel's line, not the header's).
void libcu_tickets(float* partials, unsigned* tickets, int mode, int blocks);
// The same on a 64-bit counter (fence 0 or 2): atomicAdd(tickets, 1ull).
void wide_tickets(float* partials, unsigned long long* tickets, int fence, int blocks);
void grid_indices(unsigned* out);  // grid 3x2 of blocks 4x5: out[y * 12 + x] = y * 1000 + x
// A ticket whose counter block 0 resets as it starts: *total = blocks when block 0 ran first.
void reset_by_block_zero(unsigned* counter, int* total, int* partials, int blocks);
void read_unwritten_global(const int* scratch, int* out);  // out[i] = scratch[i] + 1, 32 threads
void read_unwritten_shared(int* out, int blocks);
void read_never_written_shared(int* out, int blocks);  // out[b] = a slot block b never wrote, 64 threads

void tree_sum_missing_barrier(const float* in, float* out, int n);
void divergent_barrier(float* out);
void early_return(const float* in, float* out, int n);
void barrier_in_if(float* out);
void wrong_mask(int* out);
void full_mask_partial_warp(int* out);
void lane_leaves(int* out);
void reads_returned_lane(int* out);
void warp_and_barrier_deadlock(int* out);
void block_and_barrier_deadlock(int* out);
void write_past_end(int* out);
void dynamic_shared_overflow(int* out);
void global_overflow(const int* in, int* out);
void far_past_end(const int* in, int* out, int n, int past);
void huge_local_array(int* out);
void divide(const int* in, int* out);
void last_warp_unroll(const float* in, float* out, int blocks, bool safe);

void launch_with(int block, std::size_t shared, int* out);  // dynamic_tree_sum with any configuration
void allow_shared(std::size_t bytes);                        // opts dynamic_tree_sum in to more shared memory

}  // namespace emulated
