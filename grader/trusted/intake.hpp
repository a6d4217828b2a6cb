// TRUSTED SIDE. Intake: takes only the rungs' student files (exercises/NN_name.cu, from the
// registry) out of a submission (a directory, a git checkout, a .zip or a .tar.gz) and refuses what
// could escape or mislead: symbolic links, absolute paths, "..", devices, oversized files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lab::grading {

constexpr std::size_t kMaxSubmittedFileBytes = 256 * 1024;

struct Intake {
    std::map<std::string, std::string> files;  // rung id -> the file's contents
    // exercises/hints_used.json, the record of the hints the student saw (lab/hints.hpp), as it is:
    // untrusted, read only by lab::parse_hints_record. Empty when the submission has none.
    std::optional<std::string> hints_record;
    std::vector<std::string> ignored;          // paths left alone (not a rung's file)
    std::vector<std::string> refused;          // "path: why"
};

// Throws std::runtime_error when the submission cannot be read at all.
Intake take_in(const std::string& submission);

}  // namespace lab::grading
