// TRUSTED SIDE. Builds one runner per submitted rung (judge/untrusted/runner.cpp with the
// submission's kernel file) in this grader's own build tree: the kit's registry, harness and CMake
// are the grader's, never the submission's. Every runner is rebuilt from the file just taken in;
// none is reused from an earlier submission.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "integrity.hpp"
#include "sandbox.hpp"

namespace lab::grading {

struct Built {
    std::map<std::string, std::string> runners;  // rung id -> the runner program
    std::map<std::string, std::string> logs;     // rung id -> the compiler's messages, when it did not build
    // rung id -> what the compilers made of the file, for the integrity checks (every rung whose
    // file compiled, even where the runner did not link).
    std::map<std::string, CompiledRung> compiled;
    // rung id -> the file's explain program (the kernel built for the CPU backend with every load and
    // store counted, harness/explain/explain.cpp), where one was asked for and built.
    std::map<std::string, std::string> explainers;
};

// The paths the compilers see rung `id`'s submitted file under in the build tree `dir` (the file
// lab-grade writes, and the CPU backend's rewrite of it): what messages show as exercises/ID.cu.
std::vector<std::string> submitted_paths(const std::string& dir, const std::string& id);

// `files`: rung id -> the submitted file's contents. Holds a lock on the build tree while it works.
// `dir`: the build tree (this grader's, or the CPU backend's beside it); `inspect`: also build the
// reference's objects and gather what the integrity checks read (this grader's tree only);
// `explain`: also each file's explain program (a CPU-backend tree only), in the same sandboxed build.
Built build_runners(const std::map<std::string, std::string>& files, int jobs,
                    const std::string& dir = grading_build_dir(), bool inspect = true, bool explain = false);

// The reference's explain programs of rungs `ids` in the CPU-backend tree `dir` (rung id -> program),
// built in one go (outside the sandbox: the kit's code only) where missing or out of date; none,
// and `why`, when they cannot be.
std::map<std::string, std::string> reference_explainers(const std::string& dir, const std::vector<std::string>& ids,
                                                        int jobs, std::string& why);

// On a GPU machine, a build tree of this kit for the CPU backend (grader/cpu-backend in this one),
// where the sanitizer category builds the same files again to run them under the CPU backend's
// thread orders. Configured, and the kit's own libraries built, the first time (outside the
// sandbox: the kit's code only). "" and `why` when it cannot be made.
std::string cpu_backend_tree(int jobs, std::string& why);

}  // namespace lab::grading
