// TRUSTED SIDE. The sandbox every submission's build and runner run in: bubblewrap, with the
// whole file system read-only, the grader's secrets out of sight, only the named folders writable,
// no network, a clean environment, and only the GPU's device nodes.
#pragma once

#include <string>
#include <vector>

namespace lab::grading {

// bubblewrap: $LAB_BWRAP when set, else /usr/bin/bwrap, else the first bwrap on PATH; "" if none.
const std::string& bwrap();

// Why no sandbox can be made here ("" when one can): bwrap is missing, or it cannot make its
// namespaces. Checked once, by making one.
std::string sandbox_missing();

// What the sandbox hides besides the kit's own secrets (the hidden cases, the solutions, the
// corpus, the build tree's grading folder): the report folder and the rubric of this run.
void hide_in_sandbox(const std::string& path);

struct SandboxSpec {
    std::vector<std::string> writable;  // bound read-write (inside hidden folders too)
    std::vector<std::string> readable;  // bound read-only again inside a hidden folder
    bool gpu = true;                    // the NVIDIA device nodes
};

// `command` wrapped in bubblewrap as the spec says; `command` itself where no sandbox can be made
// (the report says so: see sandbox_missing).
std::vector<std::string> sandboxed(const std::vector<std::string>& command, const SandboxSpec& spec);

}  // namespace lab::grading
