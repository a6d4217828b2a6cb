// TRUSTED SIDE. See categories.hpp.
#include "categories.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lab/device.hpp"
#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/speed.hpp"
#include "lab/speed_plan.hpp"
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

// Speed, on a GPU: one rung at a time with nothing else on the GPU. The rung's runner times its
// full reduction (a row rung: each of its kernels over the plan's matrix) and hands back every
// answer, which run_speed checks; the kit's baseline and the ceiling are timed here, in a process
// that loads no submitted code, right before each rung. A rung earns its speed points only once it
// passes every visible case, and a row rung only when each of its kernels is fast enough.
void grade_speed(Grade& g, const Rubric& rubric, const Built& built, const Limits& limits, const std::string& work)
{
    const lab::DeviceStatus& device = lab::device_status();
    const lab::SpeedPlan& plan = lab::SpeedPlan::kit();
    std::optional<lab::Ceiling> ceiling;
    std::map<std::size_t, double> cpu_ms;  // one CPU thread's loop over so many values: once a grading
    // Every full reduction's speed inputs are the same in one grading (made once, and restart()ed
    // for each rung); a row kernel's are its own.
    const std::uint64_t sums_seed = g.seed ^ lab::fnv1a("speed/sum");
    std::optional<lab::SpeedInputs> sums;
    for (RungResult& r : g.rungs) {
        const lab::RungInfo& rung = lab::Registry::kit().get(r.id);
        const auto speed_cases = plan.cases_of(r.id);
        if (rubric.for_rung(r.id).speed <= 0 || !r.built || r.reused || speed_cases.empty()) continue;
        SpeedVerdict verdict;
        const auto speed_started = std::chrono::steady_clock::now();
        double kit_seconds = 0, runner_seconds = 0, checking_seconds = 0;
        if (r.count("failed", 0) > 0) {
            verdict.note = "not earned: speed counts once every visible case passes";
        } else {
            verdict.passed = true;
            for (const lab::SpeedPlan::Case* speed_case : speed_cases) {
                SpeedJob job;
                job.block = speed_case->block;
                job.scheme = speed_case->scheme;
                job.op = speed_case->op;
                job.seed = job.op.empty() ? sums_seed : g.seed ^ lab::fnv1a("speed/" + speed_case->key());
                lab::SpeedMeasurement m;
                std::string kit_fault;
                const auto kit_started = std::chrono::steady_clock::now();
                lab::SpeedInputs* inputs = nullptr;
                std::optional<lab::RowSpeedInputs> row_inputs;
                if (job.op.empty()) {
                    if (!ceiling) ceiling = lab::measure_ceiling(plan.n * sizeof(float), device.shape);
                    job.n = plan.n;
                    // The runner's own inputs, which its answers are checked on.
                    if (sums) sums->restart();
                    else sums.emplace(plan.n, job.seed);
                    inputs = &*sums;
                    m.ceiling = *ceiling;
                    m.baseline_ms = lab::measure_baseline(*inputs, device).median_ms;
                    inputs->restart();
                } else {
                    const lab::Op op = lab::parse_op(job.op);
                    job.n = plan.rows * plan.cols;
                    job.cols = plan.cols;
                    job.warmup = lab::kRowWarmup;
                    job.samples = lab::kRowSamples;
                    row_inputs.emplace(op, plan.rows, plan.cols, job.seed);
                    const lab::L2Flush flush(device.l2_bytes, device.shape);
                    const double at = lab::row_ceiling(op, job.n, device.shape, flush);
                    m.ceiling = lab::Ceiling{at, at};
                    try {
                        m.baseline_ms = lab::measure_row_baseline(rung, op, *row_inputs, device, flush).median_ms;
                        row_inputs->restart();
                    } catch (const lab::WrongAnswer& e) {
                        kit_fault = std::string("the kit's naive row kernel went wrong: ") + e.what();
                    }
                }
                const std::string label = speed_case->key();
                const std::string dir = work + "/" + r.id + "-speed" + (job.op.empty() ? "" : "-" + job.op);
                kit_seconds += seconds_since(kit_started);
                const SpeedReplay replay{inputs, row_inputs ? &*row_inputs : nullptr};
                const SpeedRun run =
                    kit_fault.empty() ? run_speed(rung, built.runners.at(r.id), job, limits, dir, replay) : SpeedRun{kit_fault};
                runner_seconds += run.running;
                checking_seconds += run.checking;
                std::string note;
                bool passed = false;
                if (!run.wrong.empty()) {
                    note = "no points: " + run.wrong;
                } else {
                    m.ms = run.median_ms;
                    // One CPU thread's loop over the input: reported, never required.
                    const std::vector<float>& values = inputs ? inputs->host(0) : row_inputs->host(0);
                    if (!cpu_ms.count(values.size())) cpu_ms[values.size()] = lab::time_cpu_sum_ms(values);
                    m.cpu_ms = cpu_ms.at(values.size());
                    m.gbps = job.op.empty()
                                 ? 4.0 * static_cast<double>(plan.n) / (m.ms * 1e6)
                                 : lab::row_bytes(lab::parse_op(job.op),
                                                  lab::plan_launch(rung, job.n, job.block, device.shape, 0, "", job.cols), job.n) /
                                       (m.ms * 1e6);
                    r.gbps = r.gbps > 0 ? std::min(r.gbps, m.gbps) : m.gbps;  // a row rung's: its slowest kernel's
                    const lab::AppliedThresholds t = plan.thresholds_for(label, device.name, device.shape.multiprocessors, m);
                    const bool plausible = m.of_ceiling() <= 1.15;
                    passed = plausible && m.vs_baseline() >= t.vs_baseline &&
                             (t.of_ceiling <= 0 || m.of_ceiling() >= t.of_ceiling);
                    note = m.summary(label, device.name) + "; needs at least " + lab::format_ratio(t.vs_baseline) +
                           " the baseline" +
                           (t.of_ceiling > 0 ? " and " + lab::format_percent(t.of_ceiling) + " of the ceiling" : "") +
                           ", " + t.source +
                           (plausible ? "" : "; faster than this GPU can read its input, so not trusted");
                }
                verdict.passed = verdict.passed && passed;
                verdict.note += (verdict.note.empty() ? "" : "\n") + note;
            }
        }
        r.phases["speed"] = seconds_since(speed_started);
        if (kit_seconds + runner_seconds > 0) {  // what it was made of
            r.phases["speed_kit"] = kit_seconds;
            r.phases["speed_runner"] = runner_seconds;
            r.phases["speed_checking"] = checking_seconds;
        }
        score_rung(r, rubric, true, &verdict);
        std::printf("  %-20s speed: %s\n", r.id.c_str(), verdict.note.c_str());
        std::fflush(stdout);
    }
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
        // Below the cases in priority (nice is per thread on Linux, and the compilers inherit it): the
        // runners feeding the GPU and the checks of their answers come first.
        setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
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
    return rules.on() && r.built && !r.reused && (rules.penalty > 0 || (r.count("failed", 0) == 0 && r.count("passed", 0) > 0));
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

double SanitizerPasses::run(const std::string& id, SanitizerResult& result)
{
    const lab::RungInfo& rung = lab::Registry::kit().get(id);
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
    const auto started = std::chrono::steady_clock::now();
    run_sanitizer(rung, run, sanitizer_cases(planned_.at(id), rubric_.sanitizer), limits_, work_ + "/" + id + "-sanitizer",
                  result);
    return seconds_since(started);
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
