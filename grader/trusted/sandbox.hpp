// TRUSTED SIDE. The sandbox every submission's build and runner run in: the whole file system
// read-only, the grader's secrets out of sight, only the named folders writable, no network, a
// clean environment, only the GPU's device nodes, and limits on time, files, processes and memory.
//
// Two ways to make it, chosen once per grading (isolation()):
//  - bubblewrap, where it can make its namespaces;
//  - else, as root, `unshare` (util-linux): the same mounts made by a short script in new mount,
//    network, IPC, host-name and process namespaces, then every capability dropped (`setpriv`), so
//    that the program cannot undo them. /sys and the device nodes are the machine's, read-only.
// $LAB_ISOLATION=bubblewrap|unshare|none asks for one; "none" (trusted code only) runs unconfined
// and every report says so. Where neither can be made and none was asked for, nothing is graded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cgroup.hpp"
#include "confinement.hpp"
#include "lab/process.hpp"

namespace lab::grading {

// The build tree lab-grade belongs to (builder.cpp, which the build tells).
std::string grading_build_dir();

enum class Isolation { bubblewrap, unshare, none };

struct IsolationChoice {
    Isolation kind = Isolation::none;
    std::string name;     // "bubblewrap", "unshare" or "none"
    std::string fallback; // why a stronger one was not used ("" for bubblewrap)
    std::string error;    // why nothing can be used ("" when kind can): grading stops with it
};
const IsolationChoice& isolation();

// bubblewrap: $LAB_BWRAP when set, else /usr/bin/bwrap, else the first bwrap on PATH; "" if none.
const std::string& bwrap();

// What the sandbox hides besides the kit's own secrets (the hidden cases, the solutions, the
// corpus, the build tree's grading folder): the report folder and the rubric of this run.
void hide_in_sandbox(const std::string& path);

// The limits a sandboxed command runs within: the judge's runner limits (judge/confinement.hpp).
using SandboxLimits = judge::RunnerLimits;

struct SandboxSpec {
    std::vector<std::string> writable;  // bound read-write (inside hidden folders too)
    std::vector<std::string> readable;  // bound read-only again inside a hidden folder
    bool gpu = true;                    // the NVIDIA device nodes
    SandboxLimits limits;
};

// One confined run of a command: its command line, and what the process that runs it is started
// with (limits, its cgroup). Lives as long as the child: at its end, what is left of it is killed.
class Sandbox : public judge::Confinement {
public:
    Sandbox(const std::vector<std::string>& command, const SandboxSpec& spec);
    const std::vector<std::string>& argv() const override { return argv_; }
    // What every sandboxed child is started with: its output into `log` (appended to when
    // `append`), a session of its own (no terminal; one process group to kill), stdin from
    // /dev/null, the limits, no core files, and its cgroup.
    lab::process::Options options(const std::string& log, bool append = false) const override;
    // "" or what stopped it: a limit its cgroup reached (memory, processes).
    std::string limit_reached() const override;

private:
    std::vector<std::string> argv_;
    SandboxLimits limits_;
    std::unique_ptr<Cgroup> cgroup_;
};

// How the grader confines every runner the judge starts (judge::Limits::confine): a sandbox whose
// only writable folder is `dir`.
std::unique_ptr<judge::Confinement> sandboxed_runner(const std::vector<std::string>& command, const std::string& dir,
                                                     const SandboxLimits& limits);

// Whether a line of a sandboxed run's output is the sandbox's own complaint that it could not be
// made (bubblewrap's, or the unshare fallback's script's) rather than the program's.
bool sandbox_not_made(const std::string& line);

// The sentence every report gives: which isolation, what it hides, which limits hold.
std::string isolation_summary(const SandboxLimits& limits);

}  // namespace lab::grading
