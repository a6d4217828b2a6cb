// TRUSTED SIDE. See speed_case.hpp.
#include "speed_case.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/random.hpp"
#include "lab/speed.hpp"
#include "runner_process.hpp"

namespace lab::judge {

namespace {

// A case's job for its runner, its inputs (a row kernel's) and its runner while it waits.
struct Item {
    SpeedCaseRun* run = nullptr;
    SpeedJob job;
    std::unique_ptr<RowSpeedInputs> rows;  // a row kernel's inputs, its answers checked on them
    std::unique_ptr<StartedSpeed> runner;
};

// Runners started together: each holds its inputs, its output and a CUDA context on the GPU while
// it waits, so as many as half the free memory holds, and one at a time on the CPU backend (whose
// runners use every core).
std::size_t runners_at_once(const std::vector<Item>& items, const DeviceStatus& device)
{
    if (device.emulated || items.empty()) return 1;
    constexpr std::size_t kContext = std::size_t{512} << 20;  // a CUDA context's own, about
    std::size_t largest = 0;
    for (const Item& item : items) {
        const std::size_t n = item.job.n;
        const std::size_t bytes = item.job.op.empty()
                                      ? 2 * n * sizeof(float)
                                      : (2 * operands_of(parse_op(item.job.op)) + 1) * n * sizeof(float) + 2 * device.l2_bytes;
        largest = std::max(largest, bytes + kContext);
    }
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) return 1;
    return std::clamp<std::size_t>(free / 2 / largest, 1, items.size());
}

}  // namespace

void time_speed_cases(std::vector<SpeedCaseRun>& cases, std::uint64_t seed, const Limits& limits, const std::string& work)
{
    const DeviceStatus& device = device_status();
    const SpeedPlan& plan = SpeedPlan::kit();
    std::vector<Item> items;
    for (SpeedCaseRun& run : cases) {
        Item& item = items.emplace_back();
        item.run = &run;
        item.job.block = run.block;
        item.job.scheme = run.scheme;
        item.job.op = run.op;
    }

    // 1. The kit's part, before any runner starts. Every full reduction's speed inputs are the same
    // in one call, and so is the kit's baseline on them: made and timed once, restart()ed for each
    // case's check. A row kernel's are its own.
    const std::uint64_t sums_seed = seed ^ fnv1a("speed/sum");
    std::optional<SpeedInputs> sums;
    std::optional<Ceiling> ceiling;
    double sums_baseline_ms = 0;
    for (Item& item : items) {
        const auto started = Clock::now();
        SpeedJob& job = item.job;
        SpeedCaseRun& run = *item.run;
        if (job.op.empty()) {
            job.seed = sums_seed;
            job.n = plan.n;
            if (!sums) {
                ceiling = measure_ceiling(plan.n * sizeof(float), device.shape);
                sums.emplace(plan.n, sums_seed);
                sums_baseline_ms = measure_baseline(*sums, device).median_ms;
            }
            run.m.ceiling = *ceiling;
            run.m.baseline_ms = sums_baseline_ms;
        } else {
            const Op op = parse_op(job.op);
            job.seed = seed ^ fnv1a("speed/" + run.key());
            job.n = plan.rows * plan.cols;
            job.cols = plan.cols;
            job.warmup = kRowWarmup;
            job.samples = kRowSamples;
            item.rows = std::make_unique<RowSpeedInputs>(op, plan.rows, plan.cols, job.seed);
            const L2Flush flush(device.l2_bytes, device.shape);
            const double at = row_ceiling(op, job.n, device.shape, flush);
            run.m.ceiling = Ceiling{at, at};
            try {
                run.m.baseline_ms = measure_row_baseline(*run.rung, op, *item.rows, device, flush, job.scheme).median_ms;
            } catch (const WrongAnswer& e) {
                run.m.wrong = std::string("the kit's naive row kernel went wrong: ") + e.what();
            }
        }
        run.kit_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    }

    // 2 and 3. The runners, started together as many at a time as fit; once every one of them
    // waits, each is given its go in turn and checked.
    const std::size_t at_once = runners_at_once(items, device);
    for (std::size_t first = 0; first < items.size(); first += at_once) {
        const std::size_t last = std::min(items.size(), first + at_once);
        for (std::size_t k = first; k < last; ++k) {
            Item& item = items[k];
            if (!item.run->m.wrong.empty()) continue;
            const std::string dir = work + "/" + item.run->rung->id + "-speed" + (item.job.op.empty() ? "" : "-" + item.job.op);
            item.runner = std::make_unique<StartedSpeed>(*item.run->rung, item.run->runner, item.job, limits, dir);
        }
        for (std::size_t k = first; k < last; ++k)
            if (items[k].runner) items[k].runner->wait_ready();
        for (std::size_t k = first; k < last; ++k) {
            Item& item = items[k];
            if (!item.runner) continue;
            if (item.job.op.empty()) sums->restart();
            else item.rows->restart();
            const SpeedRun timed = run_speed(*item.runner, SpeedReplay{item.job.op.empty() ? &*sums : nullptr, item.rows.get()});
            item.runner.reset();
            SpeedCaseRun& run = *item.run;
            run.m.wrong = timed.wrong;
            run.m.ms = timed.median_ms;
            run.running = timed.running;
            run.checking = timed.checking;
        }
    }

    // The figures of every case timed right: its GB/s, and one CPU thread's loop over its input
    // (reported, never required; timed once for each input size).
    std::map<std::size_t, double> cpu_ms;
    for (Item& item : items) {
        SpeedCaseRun& run = *item.run;
        if (!run.m.wrong.empty()) continue;
        const SpeedJob& job = item.job;
        const std::vector<float>& values = job.op.empty() ? sums->host(0) : item.rows->host(0);
        if (!cpu_ms.count(values.size())) cpu_ms[values.size()] = time_cpu_sum_ms(values);
        run.m.cpu_ms = cpu_ms.at(values.size());
        run.m.gbps = job.op.empty()
                         ? 4.0 * static_cast<double>(plan.n) / (run.m.ms * 1e6)
                         : row_bytes(parse_op(job.op), plan_launch(*run.rung, job.n, job.block, device.shape, 0, job.scheme, job.cols), job.n) /
                               (run.m.ms * 1e6);
    }
}

}  // namespace lab::judge
