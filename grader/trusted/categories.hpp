// TRUSTED SIDE. The two categories of a grading that come after its cases (see grader/README.md):
// speed, on a GPU (each rung's runner times its full reduction with nothing else on the GPU,
// against the kit's baseline and the memory ceiling timed here, in a process that loads no
// submitted code), and the sanitizer (compute-sanitizer's tools on a GPU, the CPU backend's thread
// orders everywhere).
#pragma once

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "builder.hpp"
#include "judge.hpp"
#include "plan.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// The device graded on, as reports name it.
std::string device_name();

// Fills each rung's speed verdict (its points are the rubric's); a rung earns them only once it
// passes every visible case. `work`: where the runs keep their files.
void grade_speed(Grade& g, const Rubric& rubric, const Built& built, const Limits& limits, const std::string& work);

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
    // Waits for the build, if any: nothing of it may still run while a speed sample is timed.
    void finish()
    {
        if (worker_.joinable()) worker_.join();
    }

private:
    bool wanted_ = false, orders_ = false;
    std::thread worker_;
    Built built_;
    std::string tree_;
    std::string missing_;
    double seconds_ = 0;
};

// The sanitizer category (sanitizer.hpp): for each rung that passes every visible case (or every
// rung that built, when the rubric takes a penalty), an untimed pass over a few small cases. On a
// GPU a few rungs' passes run at once (untimed, and the speed runs come only after the category).
void grade_sanitizer(Grade& g, const Rubric& rubric, const Built& built,
                     const std::map<std::string, std::vector<PlannedCase>>& planned, CpuOrdersBuild& cpu_build,
                     Limits limits, const std::string& work);

}  // namespace lab::grading
