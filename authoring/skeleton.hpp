// Instructor side. Turns a reference solution into the exercise students start from.
//
// In solutions/, each gap is a region:
//     // BEGIN TODO(03-loop, ~4 lines): what must become true, and why
//     //   (more lines of it, as comments)
//     <the solution's lines>
//     // STUB: <a line that compiles and runs safely but gives a wrong answer>
//     // END TODO
// The exercise keeps the instruction (without BEGIN) and the stub lines, and drops the solution
// lines and the markers. A region may have several STUB lines; "// STUB:" alone stands for no code.
//
// A TODO says what must become true and why, never the code: a region whose instruction holds a
// statement, a call with arguments or an indexed expression of its own solution lines is refused
// (dictation.hpp), with the TODO and the fragment it gives away.
//
// A later rung that needs code an earlier rung's TODO asked for does not show it: it carries it in
// a region of its own, which names the TODOs it comes from instead of a size,
//     // BEGIN TODO(05-load, from 01-shared-decl 04-two-loads): what changes, if anything
//     <the code>
//     // STUB: ...
//     // END TODO
// and the exercise asks the student to bring their own code there:
//     // TODO(05-load, ~5 lines): bring your code of TODO 01-shared-decl (rung 01) and TODO
//     //   04-two-loads (rung 04) here: what changes, if anything
// Its size is counted from its code.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace lab {

class SkeletonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One TODO region of a solution.
struct TodoRegion {
    std::string name;               // "05-warp-unroll"
    std::string size;               // "~6 lines"
    std::string instruction;        // the exercise's TODO comment after "TODO(name, size): ", one line
    std::vector<std::string> from;  // a carried region: the earlier rungs' TODOs whose code it holds
    std::string code;               // its solution lines, indented as in the file less the BEGIN line's indentation
    int line = 0;                   // the BEGIN line in the solution
};

struct Skeleton {
    std::string text;                     // the exercise file
    std::vector<std::string> todo_names;  // in order of appearance
    std::vector<std::string> solution_lines;  // the regions' solution lines, without indentation: what the exercise must never show
    std::vector<TodoRegion> todos;            // in order of appearance
};

// `source_name` is used in error messages ("solutions/03_sequential.cu:21: ...");
// `rung_number` ("03") must prefix every TODO name. Throws SkeletonError on a malformed region or a
// TODO that dictates its answer.
Skeleton make_skeleton(const std::string& solution, const std::string& source_name, const std::string& rung_number);

}  // namespace lab
