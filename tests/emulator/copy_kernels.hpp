// Host entry points for the CPU backend's tests of cooperative_groups::memcpy_async (copy_kernels.cu).
#pragma once

namespace emulated {

// What the copy kernels get wrong on purpose (none: the right way).
enum class CopyMistake {
    none,
    source_past_end,         // the last block's copy starts 16 bytes late, so it ends 16 bytes past the input's end
    destination_past_end,    // 4096 bytes into a __shared__ array of 2048
    read_before_wait,        // a thread reads the tile before cooperative_groups::wait (a whole page: it faults)
    small_read_before_wait,  // a tile of 1 KiB (inside one page) read after the next copy into it was issued, before its wait
    half_the_threads,        // only threads 0-127 of 256 issue the copy
    size_not_whole,          // 4 bytes short of a whole number of float4s
    other_arguments,         // thread 5 gives another source
    no_wait,                 // __syncthreads() where cooperative_groups::wait belongs
};

// out[b] = the sum of in's 1024 floats of block b (blocks of 256 threads; each block copies its 256
// float4s into shared memory with memcpy_async, waits, and sums them).
void copy_sum(const float* in, float* out, int blocks, CopyMistake mistake);
// The same over two stages (a tile of 128 float4s each): both copies issued, wait_prior<1> for the
// first, then wait for the second; out[b] as copy_sum's.
void staged_copy_sum(const float* in, float* out, int blocks);
// The same with the tile in dynamic shared memory.
void dynamic_copy_sum(const float* in, float* out, int blocks);

}  // namespace emulated
