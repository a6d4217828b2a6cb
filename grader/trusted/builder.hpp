// TRUSTED SIDE. Builds one runner per submitted rung (grader/untrusted/runner.cpp with the
// submission's kernel file) in this grader's own build tree: the kit's registry, harness and CMake
// are the grader's, never the submission's. Every runner is rebuilt from the file just taken in;
// none is reused from an earlier submission.
#pragma once

#include <map>
#include <string>

#include "integrity.hpp"

namespace lab::grading {

struct Built {
    std::map<std::string, std::string> runners;  // rung id -> the runner program
    std::map<std::string, std::string> logs;     // rung id -> the compiler's messages, when it did not build
    // rung id -> what the compilers made of the file, for the integrity checks (every rung whose
    // file compiled, even where the runner did not link).
    std::map<std::string, CompiledRung> compiled;
};

// `files`: rung id -> the submitted file's contents. Holds a lock on the build tree while it works.
Built build_runners(const std::map<std::string, std::string>& files, int jobs);

// The build tree lab-grade belongs to.
std::string grading_build_dir();

}  // namespace lab::grading
