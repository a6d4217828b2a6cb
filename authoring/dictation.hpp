// Instructor side. Whether a TODO's comment dictates its answer: holds a statement, a call with
// arguments or an indexed expression of the code it stands for (skeleton.cpp refuses such a TODO).
//
// Both sides are read as C++ tokens, so whitespace never matters (`partial[ tid+offset ]` is
// `partial[tid + offset]`), and a number's suffixes are dropped (`1u` is `1`, `0xffffffffu` is
// `0xffffffff`, `1.0f` is `1.0`). The answer's fragments:
//   statements      each piece between `;`, `{` and `}` of three tokens or more, without its `;`;
//                   a control statement's header parts (`stride > 0`) and its body on their own;
//                   an assignment from the variable on (`stride = blockDim.x / 2`) and its right
//                   side (`blockDim.x / 2`), each of three tokens or more
//   calls           a name (with its template arguments or a kernel launch's <<< >>>) and its
//                   parenthesised arguments, when there are any: `atomicAdd(tickets, 1u)`;
//                   `std::size_t{blockIdx.x}` too
//   indexed         a name and its brackets: `partial[tid + offset]`
// A fragment the exercise shows anyway (its code outside the TODO comments: the given lines and
// the stubs) tells the student nothing, and does not count.
#pragma once

#include <string>
#include <vector>

namespace lab {

struct Dictation {
    std::string fragment;  // as the solution spells it, whitespace runs made one space
    std::string kind;      // "statement", "call", "indexed read"
};

// The answer's fragments that `comment` holds, longest first; empty when it dictates nothing.
// `answer`: the region's solution lines; `shown`: the exercise's code outside TODO comments.
std::vector<Dictation> dictated(const std::string& comment, const std::string& answer, const std::string& shown);

}  // namespace lab
