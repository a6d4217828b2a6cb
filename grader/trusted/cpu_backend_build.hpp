// TRUSTED SIDE. On a GPU machine, the submission's files built a second time, for the CPU backend:
// runners for the sanitizer category's thread orders and explain programs for the lessons, one build
// for both. Begun in the background as soon as the files are screened, so that it compiles while
// the GPU build runs and the GPU runs the cases, below them in priority. Nothing to do where the
// kernels already run on the CPU backend (the runners and explain programs are that build's).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "builder.hpp"

namespace lab::grading {

// Puts the calling thread, and the processes it starts from now on (they inherit it), below the
// work that feeds the GPU in priority (nice 10: nice is per thread on Linux): on a GPU the runners
// and the checks of their answers come first, and CPU-only work (the CPU backend's build, its thread
// orders, the lessons) takes the cores they leave.
// (Defined in pipeline.cpp.)
void below_the_gpu_work();

class CpuBackendBuild {
public:
    // `files`: rung id -> the file, for every rung to build; `runners`, `explainers`: what to build.
    CpuBackendBuild(const std::map<std::string, std::string>& files, int jobs, bool runners, bool explainers);
    ~CpuBackendBuild();
    CpuBackendBuild(const CpuBackendBuild&) = delete;
    CpuBackendBuild& operator=(const CpuBackendBuild&) = delete;
    bool runners() const { return runners_; }
    bool explainers() const { return explainers_; }
    // Waits for the build; any thread may call it, and several at once. `missing`: why there is
    // nothing built at all ("" when there is).
    const Built& wait(std::string& missing, double& seconds);
    const std::string& tree() const { return tree_; }  // the CPU backend's build tree, once waited for

private:
    void join();
    bool runners_ = false, explainers_ = false;
    std::thread worker_;
    std::mutex joining_;
    Built built_;
    std::string tree_, missing_;
    double seconds_ = 0;
};

}  // namespace lab::grading
