// Kit tool: the benchmark's yardstick for the row rung's kernels, written on cub::BlockReduce.
// CUDA backend only.
#pragma once

#include <cstddef>

#include "lab/types.hpp"

namespace lab {

// The row kernels as a plain CUB kernel would write them: one block of kCubRowBlock threads per row,
// 16-byte loads where the rows lie on 16 bytes, every reduction a cub::BlockReduce whose result
// thread 0 hands to the others through shared memory, and every pass over the row read from memory
// again (no row kept in registers). Launches `op` over rows of `cols` floats; a dot product's y
// follows x at in + rows * cols.
constexpr unsigned kCubRowBlock = 256;
void launch_cub_rows(Op op, const float* in, float* out, std::size_t rows, std::size_t cols);

}  // namespace lab
