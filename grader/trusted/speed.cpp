// TRUSTED SIDE. See speed.hpp.
#include "speed.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/speed.hpp"
#include "lab/speed_plan.hpp"
#include "plan.hpp"
#include "speed_verdict.hpp"

namespace lab::grading {

namespace {

// One speed case of a rung that earns speed: its full reduction, or one kernel of a row rung.
struct SpeedItem {
    RungResult* rung = nullptr;
    const lab::SpeedPlan::Case* speed_case = nullptr;
    SpeedJob job;
    lab::SpeedMeasurement m;  // the kit's part: the ceiling and the baseline
    std::string kit_fault;
    std::unique_ptr<lab::RowSpeedInputs> rows;  // a row kernel's inputs, its answers checked on them
    std::unique_ptr<StartedSpeed> runner;
    SpeedRun run;
    double kit_seconds = 0;
};

// Runners started together: each holds its inputs, its output and a CUDA context on the GPU while
// it waits, so as many as half the free memory holds, and one at a time on the CPU backend (whose
// runners use every core).
std::size_t runners_at_once(const std::vector<SpeedItem>& items, const lab::DeviceStatus& device)
{
    if (device.emulated || items.empty()) return 1;
    constexpr std::size_t kContext = std::size_t{512} << 20;  // a CUDA context's own, about
    std::size_t largest = 0;
    for (const SpeedItem& item : items) {
        const std::size_t n = item.job.n;
        const std::size_t bytes =
            item.job.op.empty() ? 2 * n * sizeof(float)
                                : (2 * lab::operands_of(lab::parse_op(item.job.op)) + 1) * n * sizeof(float) + 2 * device.l2_bytes;
        largest = std::max(largest, bytes + kContext);
    }
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) return 1;
    return std::clamp<std::size_t>(free / 2 / largest, 1, items.size());
}

// The speed case's figures, and whether they pass: the note for the report.
std::string judge_item(SpeedItem& item, const lab::DeviceStatus& device, std::map<std::size_t, double>& cpu_ms,
                       lab::SpeedInputs* sums, bool& passed)
{
    const lab::SpeedPlan& plan = lab::SpeedPlan::kit();
    const lab::RungInfo& rung = lab::Registry::kit().get(item.rung->id);
    passed = false;
    if (!item.run.wrong.empty()) return "no points: " + item.run.wrong;
    lab::SpeedMeasurement& m = item.m;
    const SpeedJob& job = item.job;
    m.ms = item.run.median_ms;
    // One CPU thread's loop over the input: reported, never required.
    const std::vector<float>& values = job.op.empty() ? sums->host(0) : item.rows->host(0);
    if (!cpu_ms.count(values.size())) cpu_ms[values.size()] = lab::time_cpu_sum_ms(values);
    m.cpu_ms = cpu_ms.at(values.size());
    m.gbps = job.op.empty() ? 4.0 * static_cast<double>(plan.n) / (m.ms * 1e6)
                            : lab::row_bytes(lab::parse_op(job.op),
                                             lab::plan_launch(rung, job.n, job.block, device.shape, 0, "", job.cols), job.n) /
                                  (m.ms * 1e6);
    RungResult& r = *item.rung;
    r.gbps = r.gbps > 0 ? std::min(r.gbps, m.gbps) : m.gbps;  // a row rung's: its slowest kernel's
    const std::string label = item.speed_case->key();
    const lab::judge::SpeedJudgement j = lab::judge::judge_speed(label, m, device.name, device.shape.multiprocessors);
    passed = j.passed();
    return m.summary(label, device.name) + "; needs " + lab::judge::describe_thresholds(j.thresholds) +
           (j.plausible ? "" : "; faster than this GPU can read its input, so not trusted");
}

}  // namespace

void grade_speed(Grade& g, const Rubric& rubric, const Built& built, const Limits& limits, const std::string& work)
{
    const lab::DeviceStatus& device = lab::device_status();
    const lab::SpeedPlan& plan = lab::SpeedPlan::kit();
    std::map<std::string, SpeedVerdict> verdicts;
    std::vector<SpeedItem> items;
    for (RungResult& r : g.rungs) {
        if (!speed_graded_here(r, rubric)) continue;
        const auto speed_cases = plan.cases_of(r.id);
        SpeedVerdict& verdict = verdicts[r.id];
        if (!speed_timed(r, rubric)) {
            verdict.note = "not earned: speed counts once every visible case passes";
            continue;
        }
        verdict.passed = true;
        for (const lab::SpeedPlan::Case* speed_case : speed_cases) {
            SpeedItem item;
            item.rung = &r;
            item.speed_case = speed_case;
            item.job.block = speed_case->block;
            item.job.scheme = speed_case->scheme;
            item.job.op = speed_case->op;
            items.push_back(std::move(item));
        }
    }

    // 1. The kit's part, before any runner starts. Every full reduction's speed inputs are the same
    // in one grading, and so is the kit's baseline on them: made and timed once, restart()ed for
    // each rung's check. A row kernel's are its own.
    const std::uint64_t sums_seed = g.seed ^ lab::fnv1a("speed/sum");
    std::optional<lab::SpeedInputs> sums;
    std::optional<lab::Ceiling> ceiling;
    double sums_baseline_ms = 0;
    for (SpeedItem& item : items) {
        const auto started = std::chrono::steady_clock::now();
        SpeedJob& job = item.job;
        const lab::RungInfo& rung = lab::Registry::kit().get(item.rung->id);
        if (job.op.empty()) {
            job.seed = sums_seed;
            job.n = plan.n;
            if (!sums) {
                ceiling = lab::measure_ceiling(plan.n * sizeof(float), device.shape);
                sums.emplace(plan.n, sums_seed);
                sums_baseline_ms = lab::measure_baseline(*sums, device).median_ms;
            }
            item.m.ceiling = *ceiling;
            item.m.baseline_ms = sums_baseline_ms;
        } else {
            const lab::Op op = lab::parse_op(job.op);
            job.seed = g.seed ^ lab::fnv1a("speed/" + item.speed_case->key());
            job.n = plan.rows * plan.cols;
            job.cols = plan.cols;
            job.warmup = lab::kRowWarmup;
            job.samples = lab::kRowSamples;
            item.rows = std::make_unique<lab::RowSpeedInputs>(op, plan.rows, plan.cols, job.seed);
            const lab::L2Flush flush(device.l2_bytes, device.shape);
            const double at = lab::row_ceiling(op, job.n, device.shape, flush);
            item.m.ceiling = lab::Ceiling{at, at};
            try {
                item.m.baseline_ms = lab::measure_row_baseline(rung, op, *item.rows, device, flush).median_ms;
            } catch (const lab::WrongAnswer& e) {
                item.kit_fault = std::string("the kit's naive row kernel went wrong: ") + e.what();
            }
        }
        item.kit_seconds = seconds_since(started);
    }

    // 2 and 3. The runners, started together as many at a time as fit; once every one of them
    // waits, each is given its go in turn and checked.
    const std::size_t at_once = runners_at_once(items, device);
    for (std::size_t first = 0; first < items.size(); first += at_once) {
        const std::size_t last = std::min(items.size(), first + at_once);
        for (std::size_t k = first; k < last; ++k) {
            SpeedItem& item = items[k];
            if (!item.kit_fault.empty()) continue;
            const lab::RungInfo& rung = lab::Registry::kit().get(item.rung->id);
            const std::string dir = work + "/" + item.rung->id + "-speed" + (item.job.op.empty() ? "" : "-" + item.job.op);
            item.runner = std::make_unique<StartedSpeed>(rung, built.runners.at(item.rung->id), item.job, limits, dir);
        }
        for (std::size_t k = first; k < last; ++k)
            if (items[k].runner) items[k].runner->wait_ready();
        for (std::size_t k = first; k < last; ++k) {
            SpeedItem& item = items[k];
            if (!item.runner) {
                item.run.wrong = item.kit_fault;
                continue;
            }
            if (item.job.op.empty()) sums->restart();
            else item.rows->restart();
            item.run = run_speed(*item.runner, SpeedReplay{item.job.op.empty() ? &*sums : nullptr, item.rows.get()});
            item.runner.reset();
        }
    }

    // Each rung's verdict: every one of its speed cases fast enough.
    std::map<std::size_t, double> cpu_ms;  // one CPU thread's loop over so many values: once a grading
    for (RungResult& r : g.rungs) {
        if (!verdicts.count(r.id)) continue;
        SpeedVerdict& verdict = verdicts.at(r.id);
        double kit = 0, running = 0, checking = 0;
        for (SpeedItem& item : items) {
            if (item.rung != &r) continue;
            bool passed = false;
            const std::string note = judge_item(item, device, cpu_ms, sums ? &*sums : nullptr, passed);
            verdict.passed = verdict.passed && passed;
            verdict.note += (verdict.note.empty() ? "" : "\n") + note;
            kit += item.kit_seconds;
            running += item.run.running;
            checking += item.run.checking;
        }
        // What its speed was made of (its runners' start-ups ran beside one another, before any go).
        r.phases["speed"] = kit + running + checking;
        if (kit + running > 0) {
            r.phases["speed_kit"] = kit;
            r.phases["speed_runner"] = running;
            r.phases["speed_checking"] = checking;
        }
        score_rung(r, rubric, true, &verdict);
        std::printf("  %-20s speed: %s\n", r.id.c_str(), verdict.note.c_str());
        std::fflush(stdout);
    }
}

}  // namespace lab::grading
