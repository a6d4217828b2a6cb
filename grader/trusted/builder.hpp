// TRUSTED SIDE. Builds one runner per submitted rung (judge/untrusted/runner.cpp with the
// submission's kernel file) in this grader's own build tree: the kit's registry, harness and CMake
// are the grader's, never the submission's. Every runner is rebuilt from the file just taken in;
// none is reused from an earlier submission.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
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

// Whether the build tree `dir` is one of the exercises (LAB_TREE=exercises, as ./lab check and
// ./lab replay build): its rung_ID objects are the skeletons, not the reference.
bool is_exercises_tree(const std::string& dir);

// Why a grading cannot run in the build tree `dir`, or "" when it can: the integrity checks compare
// a submission's objects with the reference's (rung_ID), which a tree of the exercises builds from
// the skeletons, so that the reference itself would be refused there.
std::string grading_tree_refusal(const std::string& dir);

// `files`: rung id -> the submitted file's contents. Holds a lock on the build tree while it works.
// `dir`: the build tree (this grader's, or the CPU backend's beside it); `inspect`: also build the
// reference's objects and gather what the integrity checks read (this grader's tree only);
// `explain`: also each file's explain program (a CPU-backend tree only), in the same sandboxed build.
// `linked`, when given, is told of each rung whose runner is linked as soon as the build's log says
// so, while the build goes on (from a thread of the build's): a pipeline starts that rung's cases
// then. Every runner in the Built returned is told of, once, before it returns.
using Linked = std::function<void(const std::string& id, const std::string& runner, const CompiledRung* compiled)>;
Built build_runners(const std::map<std::string, std::string>& files, int jobs,
                    const std::string& dir = grading_build_dir(), bool inspect = true, bool explain = false,
                    const Linked& linked = {});

// The rung whose runner a line of the build's log says was linked (ninja prints a step's line when
// the step ends, where its output is not a terminal), if it is such a line.
std::optional<std::string> linked_runner(const std::string& line);

// This grader's runners built in the background (a grading's pipeline, pipeline.cpp): each
// rung's runner is there to use as soon as it is linked, while the others still build.
class RunnersBuilding {
public:
    // `explain`: the explain programs too, in the same build (a CPU-backend tree); `below_the_cases`:
    // the compilers run at a lower priority than the cases (the CPU backend's, which use every core).
    RunnersBuilding(std::map<std::string, std::string> files, int jobs, bool explain, bool below_the_cases);
    ~RunnersBuilding();  // waits for the build
    RunnersBuilding(const RunnersBuilding&) = delete;
    RunnersBuilding& operator=(const RunnersBuilding&) = delete;

    // What is known of rung `id` once its runner is linked or the build has ended (waiting until
    // then): the runner ("" when it did not build), what the compilers made of the file, the
    // compiler's messages when it did not build.
    struct Rung {
        std::string runner, log;
        std::optional<CompiledRung> compiled;
    };
    Rung wait_for(const std::string& id);
    // Waits for the build to end; its seconds.
    double finish();
    // The whole build's result, once finish() has returned.
    const Built& built() const { return built_; }

private:
    std::mutex lock_;
    std::condition_variable changed_;
    std::map<std::string, Rung> linked_;
    bool ended_ = false;
    std::exception_ptr error_;  // what the build threw, thrown again to whoever waits
    Built built_;
    double seconds_ = 0;
    std::thread worker_;
};

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
