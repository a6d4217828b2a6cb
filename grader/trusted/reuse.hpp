// TRUSTED SIDE. Grading a student again (grader/DEVELOPING.md, "screen"): a rung's earlier result
// stands for this grading's when nothing it depends on changed: the kit (its sources, data and
// build configuration), the rubric, the seed, the device and the file, byte for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "result.hpp"

namespace lab::grading {

// The configuration a build depends on, from a build tree's CMakeCache.txt: the compilers (their
// paths and their programs' bytes), flags, CUDA architectures and the kit's own options, each
// set one (an empty setting is no setting: CMake reads both alike); not the tree's path or the
// settings' types, so that grade-all's workers, each in a tree of its own, share one key.
std::string build_configuration(const std::string& cache_text);

// Everything of the kit's that a rung's verdict may depend on, hashed once per grading.
std::uint64_t kit_fingerprint();

// The key under which a rung graded here may be reused: the kit, the rubric's text, the seed (so
// the same cases, hidden ones included), the device and backend, whether the integrity checks ran.
std::string reuse_key(const Grade& g, const std::string& rubric_text, bool skip_integrity, const std::string& id);

// The rungs of the earlier grading in DIR (its grade.json, and the files it graded in DIR/graded/)
// that can stand for this one's: the same key, and the file byte for byte the same. Says on stdout
// why each other rung is graded again.
std::map<std::string, RungResult> reusable_rungs(const std::string& dir, const std::map<std::string, std::string>& files,
                                                 const std::function<std::string(const std::string&)>& key_of);

}  // namespace lab::grading
