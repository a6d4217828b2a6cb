// TRUSTED SIDE. See cpu_backend_build.hpp.
#include "cpu_backend_build.hpp"

#include <chrono>
#include <iostream>

#include "lab/process.hpp"
#include "result.hpp"

namespace lab::grading {

CpuBackendBuild::CpuBackendBuild(const std::map<std::string, std::string>& files, int jobs, bool runners, bool explainers)
    : runners_(runners), explainers_(explainers)
{
    std::cout << "  building the files again for the CPU backend ("
              << (runners && explainers ? "the sanitizer's thread orders and the lessons"
                  : runners             ? "the sanitizer's thread orders"
                                        : "the lessons")
              << "), beside the GPU build and the cases\n"
              << std::flush;
    worker_ = std::thread([this, files, jobs] {
        below_the_gpu_work();
        const lab::process::Account account("cpu_backend_build");
        const auto started = std::chrono::steady_clock::now();
        try {
            tree_ = cpu_backend_tree(jobs, missing_);
            if (!tree_.empty()) built_ = build_runners(files, jobs, tree_, false, explainers_);
        } catch (const std::exception& e) {
            missing_ = std::string("the CPU backend's build failed: ") + e.what();
        }
        seconds_ = seconds_since(started);
    });
}

CpuBackendBuild::~CpuBackendBuild()
{
    join();
}

void CpuBackendBuild::join()
{
    const std::lock_guard<std::mutex> lock(joining_);
    if (worker_.joinable()) worker_.join();
}

const Built& CpuBackendBuild::wait(std::string& missing, double& seconds)
{
    join();
    missing = missing_;
    seconds = seconds_;
    return built_;
}

}  // namespace lab::grading
