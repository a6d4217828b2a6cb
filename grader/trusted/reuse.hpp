// TRUSTED SIDE. Grading a student again (grader/README.md, step 10): a rung's earlier result
// stands for this grading's when nothing it depends on changed: the kit (its sources, data and
// build configuration), the rubric, the seed, the device and the file, byte for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "result.hpp"

namespace lab::grading {

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
