// TRUSTED SIDE. The judge's checker (judge/checker.hpp: each runner started confined, every case's
// buffers checked here), its limits and its case result, under the grader's names.
#pragma once

#include "checker.hpp"

namespace lab::grading {
using namespace lab::judge;
}  // namespace lab::grading
