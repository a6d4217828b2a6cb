// TRUSTED SIDE. The sanitizer category of a grading (see grader/README.md): compute-sanitizer's
// tools on a GPU, the CPU backend's thread orders everywhere, and the CPU backend's second build
// they and the lessons need on a GPU machine. Speed is speed.hpp's.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "builder.hpp"
#include "judge.hpp"
#include "plan.hpp"
#include "result.hpp"
#include "rubric.hpp"
#include "sanitizer.hpp"

namespace lab::grading {

// The device graded on, as reports name it.
std::string device_name();

// Puts the calling thread, and the processes it starts from now on (they inherit it), below the
// work that feeds the GPU in priority (nice 10: nice is per thread on Linux): on a GPU the runners
// and the checks of their answers come first, and CPU-only work (the CPU backend's build, its thread
// orders, the lessons) takes the cores they leave.
void below_the_gpu_work();

// On a GPU machine, the second build of the files for the CPU backend: runners for the sanitizer
// category's thread orders, and explain programs for the lessons (lessons.hpp). Begun in the
// background as soon as the GPU runners are built, so that it compiles while the GPU runs the cases
// (on an H100 it took 17 s of its own after them). Nothing to do where the kernels already run on
// the CPU backend, or the rubric runs no thread orders and measures no lessons.
class CpuOrdersBuild {
public:
    // `files`: rung id -> the file, for every rung whose GPU runner built.
    CpuOrdersBuild(const Rubric& rubric, const std::map<std::string, std::string>& files, int jobs);
    ~CpuOrdersBuild();
    CpuOrdersBuild(const CpuOrdersBuild&) = delete;
    CpuOrdersBuild& operator=(const CpuOrdersBuild&) = delete;
    bool wanted() const { return wanted_; }
    bool for_orders() const { return orders_; }  // the rubric runs the sanitizer's thread orders
    // Waits for the build. `missing`: why there are no CPU-backend runners at all ("" when there are).
    const Built& wait(std::string& missing, double& seconds);
    const std::string& tree() const { return tree_; }  // the CPU backend's build tree, once waited for
    // Waits for the build, if any. Any thread may call it, and several at once (the thread orders and
    // the lessons both wait).
    void finish()
    {
        const std::lock_guard<std::mutex> lock(joining_);
        if (worker_.joinable()) worker_.join();
    }

private:
    bool wanted_ = false, orders_ = false;
    std::thread worker_;
    std::mutex joining_;
    Built built_;
    std::string tree_;
    std::string missing_;
    double seconds_ = 0;
};

// The sanitizer category (sanitizer.hpp): an untimed pass over a few small cases of each rung that
// passes every visible case (or of every rung that built, when the rubric takes a penalty), under
// compute-sanitizer's tools on a GPU and under the CPU backend's thread orders everywhere. Whether a
// rung gets a pass follows from its cases (wanted()); on a GPU the tools run beside the other rungs'
// cases (the speed runs come only after every tool has ended), and the thread orders on the CPU
// beside the cases and the speed, below them in priority. run() may be called from several threads
// at once, each with a rung and a half of its own.
class SanitizerPasses {
public:
    SanitizerPasses(const Rubric& rubric, const Built& built, const std::map<std::string, std::vector<PlannedCase>>& planned,
                    CpuOrdersBuild& cpu_build, Limits limits, std::string work);
    // The rung gets a pass (ask once its cases are in).
    bool wanted(const RungResult& r) const;
    // One half of the pass over rung `id` (sanitizer.hpp) into `result`, nothing else written: the
    // tools use the GPU, the thread orders the CPU alone.
    enum class Half { tools, orders };
    void run(const std::string& id, Half half, SanitizerResult& result);
    // A pass into its rung: scored, and said.
    void keep(RungResult& r, SanitizerResult result, double seconds);
    // Once every pass has run: on a GPU, waits for the CPU backend's build where the rubric asked for
    // it (its time is the grading's), and writes its time into the grading's phases.
    void finish(Grade& g);

private:
    SanitizerRun run_for(const std::string& id);
    void wait_for_cpu();
    const Rubric& rubric_;
    const Built& built_;
    const std::map<std::string, std::vector<PlannedCase>>& planned_;
    CpuOrdersBuild& cpu_build_;
    Limits limits_;
    std::string work_;
    bool gpu_;
    SanitizerRun base_;
    std::once_flag cpu_waited_;
    std::string cpu_missing_;
    double cpu_seconds_ = 0;
    std::map<std::string, std::string> cpu_runners_, cpu_logs_;
};

}  // namespace lab::grading
