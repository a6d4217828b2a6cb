// TRUSTED SIDE. Reads a submitted rung file as text (it is never run here) and refuses the
// constructs a kernel file has no use for and that could reach into the kit's code compiled in the
// same program: reopening namespace lab or a library's (std, cuda, ...), specialising a template by
// a qualified name (the kit's, the standard library's), #undef, #define of a kit or
// CUDA name, conditional compilation (#if and its kin: a file that compiles differently for nvcc
// and the host compiler could show the integrity checks one thing and run another), code that runs
// before main, and line markers (#line, `# 12 "file"`: the integrity checks find the file's own
// lines by the preprocessor's markers). It reads the text as the compiler does: backslash-newline
// joins lines, %: is #, raw string literals and digit separators (1'000) are understood. A kernel
// file holds kernels and their device helpers; what the kit gives it, it takes through lab/kernel.hpp.
#pragma once

#include <string>
#include <vector>

namespace lab::grading {

// Each problem as "line N: what and why"; empty when the file may be built.
std::vector<std::string> screen_source(const std::string& text);

// The text with comments (and, when blank_strings, string, raw string and character literals)
// blanked, newlines kept so that line numbers hold.
std::string code_only(const std::string& text, bool blank_strings);

}  // namespace lab::grading
