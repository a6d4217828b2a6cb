// TRUSTED SIDE. See categories.hpp.
#include "categories.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lab/device.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "plan.hpp"
#include "sanitizer.hpp"

namespace lab::grading {

std::string device_name()
{
    const lab::DeviceStatus& d = lab::device_status();
    if (d.emulated) return "the CPU backend (no GPU)";
    return d.usable ? d.name : "no usable GPU";
}

void below_the_gpu_work()
{
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
}

CpuOrdersBuild::CpuOrdersBuild(const Rubric& rubric, const std::map<std::string, std::string>& files, int jobs)
{
    orders_ = rubric.sanitizer.on() && rubric.sanitizer.thread_orders;
    const bool lessons = rubric.lessons.measure;
    wanted_ = (orders_ || lessons) && !lab::device_status().emulated && !files.empty();
    if (!wanted_) return;
    std::cout << "  building the files again for the CPU backend ("
              << (orders_ && lessons ? "the sanitizer's thread orders and the lessons" : orders_ ? "the sanitizer's thread orders" : "the lessons")
              << "), beside the GPU build and the cases\n"
              << std::flush;
    worker_ = std::thread([this, files, jobs, lessons] {
        below_the_gpu_work();
        const lab::process::Account account("cpu_backend_build");
        const auto started = std::chrono::steady_clock::now();
        try {
            tree_ = cpu_backend_tree(jobs, missing_);
            if (!tree_.empty()) built_ = build_runners(files, jobs, tree_, false, lessons);
        } catch (const std::exception& e) {
            missing_ = std::string("the CPU backend's build failed: ") + e.what();
        }
        seconds_ = seconds_since(started);
    });
}

CpuOrdersBuild::~CpuOrdersBuild()
{
    finish();
}

const Built& CpuOrdersBuild::wait(std::string& missing, double& seconds)
{
    finish();
    missing = wanted_ ? missing_ : "nothing asked for the CPU backend's build";
    seconds = seconds_;
    return built_;
}

SanitizerPasses::SanitizerPasses(const Rubric& rubric, const Built& built,
                                 const std::map<std::string, std::vector<PlannedCase>>& planned, CpuOrdersBuild& cpu_build,
                                 Limits limits, std::string work)
    : rubric_(rubric), built_(built), planned_(planned), cpu_build_(cpu_build), limits_(std::move(limits)),
      work_(std::move(work)), gpu_(!lab::device_status().emulated)
{
    if (gpu_) {
        base_.tool_path = compute_sanitizer();
        base_.tools = rubric.sanitizer.tools;
        base_.orders = {"forward", "reverse"};
    } else {
        base_.orders = lab::thread_orders();
    }
}

// For each rung that passes every visible case (or every rung that built, when the rubric takes a
// penalty).
bool SanitizerPasses::wanted(const RungResult& r) const
{
    const SanitizerRules& rules = rubric_.sanitizer;
    return rubric_.sanitizer_on(r.id) && r.built && !r.reused &&
           (rules.penalty > 0 || (r.count("failed", 0) == 0 && r.count("passed", 0) > 0));
}

// On a GPU the CPU backend's build may still be running: the tools start at once, and the thread
// orders of the first rung to need them wait for it (once, for every rung).
void SanitizerPasses::wait_for_cpu()
{
    std::call_once(cpu_waited_, [this] {
        const Built& cpu = cpu_build_.wait(cpu_missing_, cpu_seconds_);
        if (cpu_build_.for_orders()) {
            cpu_runners_ = cpu.runners;
            cpu_logs_ = cpu.logs;
        } else {
            cpu_missing_ = "the rubric's sanitizer.thread_orders is false";
        }
    });
}

SanitizerRun SanitizerPasses::run_for(const std::string& id)
{
    SanitizerRun run = base_;
    run.submitted = submitted_paths(grading_build_dir(), id);
    if (gpu_) {
        run.runner = built_.runners.at(id);
        run.before_orders = [this, id](SanitizerRun& then) {
            wait_for_cpu();
            if (!cpu_build_.tree().empty())
                for (const std::string& path : submitted_paths(cpu_build_.tree(), id)) then.submitted.push_back(path);
            if (cpu_runners_.count(id)) then.cpu_runner = cpu_runners_.at(id);
            else if (!cpu_missing_.empty()) then.cpu_missing = cpu_missing_;
            else
                then.cpu_missing = "the file did not build for the CPU backend:\n" +
                                   (cpu_logs_.count(id) ? cpu_logs_.at(id) : std::string("(no message)"));
        };
    } else {
        run.cpu_runner = built_.runners.at(id);
    }
    return run;
}

void SanitizerPasses::run(const std::string& id, Half half, SanitizerResult& result)
{
    const auto run_half = half == Half::tools ? run_sanitizer_tools : run_sanitizer_orders;
    run_half(lab::Registry::kit().get(id), run_for(id), sanitizer_cases(planned_.at(id), rubric_.sanitizer), limits_,
             work_ + "/" + id + "-sanitizer", result);
}

void SanitizerPasses::keep(RungResult& r, SanitizerResult result, double seconds)
{
    r.sanitizer = std::move(result);
    r.phases["sanitizer"] = seconds;
    score_sanitizer(r, rubric_);
    std::printf("  %-20s sanitizer: %s\n", r.id.c_str(),
                r.sanitizer.findings.empty()
                    ? ("nothing found" + std::string(r.sanitizer.note.empty() ? "" : " (" + r.sanitizer.note + ")")).c_str()
                    : (std::to_string(r.sanitizer.findings.size()) + " finding(s): " + r.sanitizer.findings.front()).c_str());
    std::fflush(stdout);
}

void SanitizerPasses::finish(Grade& g)
{
    // Its time is the grading's, whether or not a rung got to the orders.
    if (!gpu_ || !rubric_.sanitizer.on()) return;
    wait_for_cpu();
    if (cpu_build_.wanted()) g.phases["sanitizer_cpu_build"] = cpu_seconds_;
}

}  // namespace lab::grading
