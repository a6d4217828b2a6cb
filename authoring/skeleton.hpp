// Instructor side. Turns a reference solution into the exercise students start from.
//
// In solutions/, each gap is a region:
//     // BEGIN TODO(03-loop, ~1 line): what to write
//     //   (more instruction lines, as comments)
//     <the solution's lines>
//     // STUB: <a line that compiles and runs safely but gives a wrong answer>
//     // END TODO
// The exercise keeps the instruction (without BEGIN) and the stub lines, and drops the solution
// lines and the markers. A region may have several STUB lines; "// STUB:" alone stands for no code.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace lab {

class SkeletonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Skeleton {
    std::string text;                     // the exercise file
    std::vector<std::string> todo_names;  // in order of appearance
    std::vector<std::string> solution_lines;  // the regions' solution lines, without indentation: what the exercise must never show
};

// `source_name` is used in error messages ("solutions/03_sequential.cu:21: ...");
// `rung_number` ("03") must prefix every TODO name. Throws SkeletonError on a malformed region.
Skeleton make_skeleton(const std::string& solution, const std::string& source_name, const std::string& rung_number);

}  // namespace lab
