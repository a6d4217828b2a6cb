// TRUSTED SIDE. `lab-grade replay`: one case, as a grading report gives it, run on a kernel file
// (the student's exercise by default) built and run as a grading builds and runs it.
#pragma once

#include <cstdint>
#include <string>

namespace lab::grading {

// Rung `key`'s case (--op, --input, --n or --rows and --cols, --block, --seed, and where the report
// gives them --grid, --offset and --scheme) on `file`: 0 when it passes, 1 when it fails or does
// not build, 2 without a usable device.
int replay(const std::string& key, const std::string& op, const std::string& input, std::uint64_t n, unsigned block,
           const std::string& seed_text, unsigned grid, std::uint64_t offset, const std::string& scheme,
           const std::string& file, bool has_n, std::uint64_t rows, std::uint64_t cols);

}  // namespace lab::grading
