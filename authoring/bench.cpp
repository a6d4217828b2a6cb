// Kit tool: the benchmark. Times every rung linked into it (one per entry of rungs.json, so a new
// rung joins without an edit here), NVIDIA's CUB and the single-thread CPU loop; the row rung's
// kernels (dot product, softmax, layer norm) over 4096 x 4096 and 16384 x 1024 floats against the
// in-run ceiling measured over as many bytes.
//   lab-bench [--tsv FILE]        each rung once over 2^26 floats; with --tsv, a line per rung
//                                 for ./lab run's table
//   lab-bench --full [--csv FILE] [--markdown FILE]
//                                 every rung, CUB and the CPU loop over 2^10 ... 2^28 floats and the
//                                 tutorials' 509,600,000-byte int input
//                                 [--sweep-csv FILE]: also the row kernels over matrices of 2^24
//                                 floats from 1 x 2^24 to 65536 x 256, each beside a kernel
//                                 written on cub::BlockReduce (cub_rows.hpp)
//   lab-bench --rungs 11 --sizes 10,12,20 [--markdown FILE]
//                                 only the rungs named (ids or numbers), beside CUB and the CPU loop,
//                                 at the sizes named (powers of two): one rung's change measured in
//                                 seconds; with rung 12, its two matrices too
//   lab-bench --calibrate FILE [--runs R]
//                                 measures every rung R times (default 10) as its speed test does
//                                 and writes this GPU's calibration into the speed plan FILE
//                                 (tests/speed.json), keeping the other GPUs' (lab/speed.hpp)
// On the CPU backend it reports the emulator's own speed instead: one launch per rung over 2^20
// floats with blocks of 256. Every answer is checked, each timed run's too; a wrong answer is
// reported, never timed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "lab/cases.hpp"
#include "lab/check.hpp"
#include "lab/device.hpp"
#include "lab/full_reduction.hpp"
#include "lab/inputs.hpp"
#include "lab/registry.hpp"
#include "lab/rung.hpp"
#include "lab/shape.hpp"
#include "lab/speed.hpp"
#include "bench.hpp"
#if !defined(LAB_BACKEND_CPU)
#include "cub_rows.hpp"
#include "cub_sum.hpp"
#endif

namespace {

using lab_bench::find;
using lab_bench::format;
using lab_bench::Row;
using lab_bench::Size;

// The row rung's matrices in the benchmark (rows, cols): the shapes of its speed goal, 2^24 floats each.
constexpr std::size_t kRowShapes[][2] = {{4096, 4096}, {16384, 1024}};

// The block a row kernel gets in the benchmark unless --block says otherwise: one thread for every
// 16 floats of the row (lab::RowShare holds 16 a thread), a multiple of 32 from 32 to 1024. A block
// of 256 over rows of 1024 floats gives each thread one 16-byte load, and on an H200 its softmax
// reached half the copy ceiling; blocks of 64 reach 95% (handouts/12_real_kernels.md).
unsigned row_block(std::size_t cols)
{
    const std::size_t threads = (cols / 16 + 31) / 32 * 32;
    return static_cast<unsigned>(std::clamp<std::size_t>(threads, 32, 1024));
}
// Its line in ./lab run's table.
constexpr const char* kRowTsvKernel = "softmax";

template <typename T>
lab::HostInput<T> input_of(std::size_t n)
{
    lab::Case c;
    c.name = "bench";
    c.input = std::is_same_v<T, int> ? lab::InputKind::ints : lab::InputKind::floats;
    c.n = n;
    c.seed = 20261122;
    return lab::make_input<T>(c);
}

// Times every rung, CUB and the CPU loop at one size; appends a row each.
template <typename T>
bool bench_size(const Size& size, const lab_bench::Options& options, std::vector<Row>& rows,
                const lab::DeviceStatus& device, const lab::Ceiling& ceiling)
{
    const auto input = input_of<T>(size.n);
    lab::DeviceBuffer<T> data(size.n);
    data.upload(input.values);
    // Read between samples, so that no kernel finds its input in L2 from the sample before. Read, not
    // written, as everywhere else in the kit: a cudaMemset flush left L2 full of written lines, which
    // every kernel paid to write back, the same time for each (0.9 us at 2^20 on an H200), pulling
    // every ratio at small sizes toward 1 (handouts/11_single_pass.md).
    const lab::L2Flush flush(device.l2_bytes, device.shape);
    const lab::ExactSum exact = lab::exact_sum(input.values);
    std::vector<std::string> names;
    std::vector<lab::TimedWork> work;
    std::vector<std::size_t> launches;
    std::vector<std::unique_ptr<lab::FullReduction>> reductions;
    for (const lab::RungBinding* binding : lab::bound_rungs()) {
        const auto& rung = lab::Registry::kit().get(binding->id);
        if (rung.shape->works_on_rows()) continue;  // no reduction of an array: see bench_rows
        if (!options.times(rung.id)) continue;
        // A driver rung gets a row per scheme ("11_single_pass/ticket"), each one call of a Reducer
        // kept from call to call; every other rung, one row: its passes until one value is left.
        const std::vector<std::string> schemes = rung.variants.empty() ? std::vector<std::string>{""} : rung.variants;
        for (const std::string& scheme : schemes) {
            auto& r = reductions.emplace_back(std::make_unique<lab::FullReduction>(
                *binding, rung, lab::Op::sum, lab::dtype_of<T>(), size.n, options.block, device.shape, scheme));
            names.push_back(scheme.empty() ? rung.id : rung.id + "/" + scheme);
            launches.push_back(r->passes());
            work.push_back({{}, [&data, r = r.get()] { r->run(data.data()); }, [&exact, r = r.get()] {
                                T got{};
                                LAB_CUDA_CHECK(cudaMemcpy(&got, r->result(), sizeof got, cudaMemcpyDeviceToHost));
                                const std::string wrong = lab::check_sum(exact, got, r->addition_depth());
                                return wrong.empty() ? r->overwritten_guard() : wrong;
                            }});
        }
    }
#if !defined(LAB_BACKEND_CPU)
    const lab::CubSum cub(lab::dtype_of<T>(), size.n);
    lab::DeviceBuffer<T> cub_out(1);
    names.push_back("cub");
    if (cub.launches() == 0)
        std::fprintf(stderr, "cub at %s: could not count its launches (a CUDA graph capture failed); the CSV says 0\n",
                     size.label.c_str());
    launches.push_back(cub.launches());
    // CUB's order of additions is its own; the tolerance allows a chain of n / 1024 elements per
    // thread, then a tree over a block of 1024, in each of its two passes.
    work.push_back({{}, [&] { cub.run(data.data(), cub_out.data()); }, [&] {
                        T got{};
                        LAB_CUDA_CHECK(cudaMemcpy(&got, cub_out.data(), sizeof got, cudaMemcpyDeviceToHost));
                        return lab::check_sum(exact, got, size.n / 1024 + 24);
                    }});
#endif
    std::vector<lab::Timing> times;
    try {
        // Every answer is checked, the warm-up runs' and each timed run's alike.
        times = lab::time_interleaved(work, 3, lab_bench::timed_runs(size.n),
                                      [&] { flush(); });
    } catch (const lab::WrongAnswer& e) {
        std::fprintf(stderr, "%s at %s: WRONG %s; nothing at this size is reported\n", names[e.work].c_str(),
                     size.label.c_str(), e.what());
        return false;
    }
    const double bytes = static_cast<double>(size.n) * sizeof(T);
    for (std::size_t k = 0; k < work.size(); ++k)
        rows.push_back({names[k], size.label, lab::dtype_of<T>(), size.n, times[k].median_ms, times[k].min_ms,
                        bytes / (times[k].median_ms * 1e6), launches[k], bytes, ceiling.best()});
    const double cpu_ms = lab::time_cpu_sum_ms(input.values, 5);
    rows.push_back({"cpu", size.label, lab::dtype_of<T>(), size.n, cpu_ms, cpu_ms, bytes / (cpu_ms * 1e6), 0, bytes,
                    ceiling.best()});
    return true;
}

// A row kernel's case over n floats in rows of `cols`, for timing: floats, from `seed`.
lab::Case row_case(lab::Op op, std::size_t n, std::size_t cols, unsigned block, std::uint64_t seed)
{
    lab::Case c;
    c.name = "bench";
    c.op = op;
    c.input = lab::InputKind::floats;
    c.n = n;
    c.cols = cols;
    c.block = block;
    c.seed = seed;
    return c;
}

// A row rung's plan for a case: a rung that picks its own launches (13) runs in its first scheme
// (with clusters), at its one block size, its Rows object kept between the timed calls.
lab::LaunchPlan row_plan(const lab::RungInfo& rung, lab::Case c, const lab::GpuShape& gpu)
{
    if (rung.variants.empty()) return lab::plan_case(rung, c, gpu);
    c.variant = rung.variants.front();
    c.block = rung.block.min;
    lab::LaunchPlan plan = lab::plan_case(rung, c, gpu);
    plan.reuse = true;
    return plan;
}

// The row rung's kernels (rung 12) over one matrix of rows x cols floats, each timed in turn with L2
// flushed by reading (lab::L2Flush) and every answer checked, against the ceiling for the bytes it
// must move, measured in this run over as many bytes with the same flush: a dot product reads two
// matrices (the read ceiling); softmax and layer norm read one and write one (the copy ceiling, which
// counts bytes read and written). A kernel that reads its row three times still counts one read: the
// ceiling is what the operation needs, not what the kernel chose to do.
bool bench_rows(std::size_t row_count, std::size_t cols, unsigned block, const lab_bench::Options& options,
                std::vector<Row>& rows, const lab::DeviceStatus& device)
{
    const std::size_t n = row_count * cols;
    const std::string label = std::to_string(row_count) + "x" + std::to_string(cols);
    const lab::L2Flush flush(device.l2_bytes, device.shape);
    const lab::Ceiling ceiling = lab::measure_ceiling_at(2 * n * sizeof(float), n * sizeof(float), device.shape, flush);
    bool all_right = true;
    for (const lab::RungBinding* binding : lab::bound_rungs()) {
        const auto& rung = lab::Registry::kit().get(binding->id);
        if (!rung.shape->works_on_rows() || !options.times(rung.id)) continue;
        for (const lab::Op op : rung.ops) {
            const lab::Case c = row_case(op, n, cols, block, 20261122);
            const auto input = lab::make_input<float>(c);
            lab::DeviceBuffer<float> in(input.values.size());
            in.upload(input.values);
            lab::LaunchPlan plan;
            try {
                plan = row_plan(rung, c, device.shape);
            } catch (const std::exception& e) {  // a block size the rung refuses: say so, time the rest
                std::fprintf(stderr, "%s/%s at %s: not timed: %s\n", rung.id.c_str(), std::string(lab::name_of(op)).c_str(),
                             label.c_str(), e.what());
                all_right = false;
                continue;
            }
            lab::DeviceBuffer<float> out(lab::output_count(plan, op));
            const std::string name = rung.id + "/" + std::string(lab::name_of(op));
            const lab::TimedWork work{{}, [&] { binding->launch(op, lab::Dtype::f32, plan, in.data(), out.data(), n); }, [&] {
                                          const lab::Verdict v = lab::check_output(rung, op, plan, input.values, out.download());
                                          return v.ok ? std::string() : v.first_wrong;
                                      }};
            std::vector<lab::Timing> times;
            try {
                times = lab::time_interleaved({work}, 3, 20, [&] { flush(); });
            } catch (const lab::WrongAnswer& e) {
                std::fprintf(stderr, "%s at %s: WRONG %s; not reported\n", name.c_str(), label.c_str(), e.what());
                all_right = false;
                continue;
            }
            const bool reads_only = op == lab::Op::dot;
            const double bytes = 4.0 * (static_cast<double>(input.values.size()) + static_cast<double>(out.size()));
            Row row{name, label, lab::Dtype::f32, n, times[0].median_ms, times[0].min_ms,
                    bytes / (times[0].median_ms * 1e6), 1, bytes, reads_only ? ceiling.read_gbps : ceiling.copy_gbps};
            row.block = plan.block;
            rows.push_back(row);
        }
    }
    return all_right;
}

#if !defined(LAB_BACKEND_CPU)
// The row-shape sweep: matrices of 2^24 floats from one row of 2^24 to 65536 rows of 256, each row
// kernel of the row rung (blocks by row_block) in turn with the same kernel written on
// cub::BlockReduce (cub_rows.hpp: blocks of 256, every pass read from memory), L2 flushed by reading
// and every answer checked, against the ceiling over as many bytes. One timed pair per shape and
// kernel is 10 samples, not 20: every sample's 64 MB answer is checked, and that is most of the time.
bool bench_row_sweep(std::vector<Row>& rows, const lab::DeviceStatus& device)
{
    constexpr std::size_t kShapes[][2] = {{1, std::size_t{1} << 24}, {16, std::size_t{1} << 20}, {256, 65536}, {1024, 16384},
                                          {4096, 4096},             {16384, 1024},                {65536, 256}};
    const std::size_t n = std::size_t{1} << 24;
    const lab::L2Flush flush(device.l2_bytes, device.shape);
    const lab::Ceiling ceiling = lab::measure_ceiling_at(2 * n * sizeof(float), n * sizeof(float), device.shape, flush);
    // Every row rung (12 and 13), each beside the CUB kernel; the CUB kernel's row is kept once.
    std::vector<const lab::RungBinding*> bindings;
    for (const lab::RungBinding* b : lab::bound_rungs())
        if (lab::Registry::kit().get(b->id).shape->works_on_rows()) bindings.push_back(b);
    bool all_right = true;
    for (const auto& shape : kShapes) {
        const std::size_t row_count = shape[0], cols = shape[1];
        const std::string label = std::to_string(row_count) + "x" + std::to_string(cols);
        std::fprintf(stderr, "sweep: %s ...\n", label.c_str());
        for (const lab::RungBinding* binding : bindings) {
            const auto& rung = lab::Registry::kit().get(binding->id);
            const bool first = binding == bindings.front();
            for (const lab::Op op : rung.ops) {
                const lab::Case c = row_case(op, n, cols, row_block(cols), 20261126);
                const auto input = lab::make_input<float>(c);
                lab::DeviceBuffer<float> in(input.values.size());
                in.upload(input.values);
                const lab::LaunchPlan plan = row_plan(rung, c, device.shape);
                lab::DeviceBuffer<float> mine(lab::output_count(plan, op)), theirs(lab::output_count(plan, op));
                const auto checked = [&, op](lab::DeviceBuffer<float>& out) {
                    return [&, op]() {
                        const lab::Verdict v = lab::check_output(rung, op, plan, input.values, out.download());
                        return v.ok ? std::string() : v.first_wrong;
                    };
                };
                const std::vector<lab::TimedWork> work{
                    {{}, [&] { binding->launch(op, lab::Dtype::f32, plan, in.data(), mine.data(), n); }, checked(mine)},
                    {{}, [&] { lab::launch_cub_rows(op, in.data(), theirs.data(), row_count, cols); }, checked(theirs)}};
                std::vector<lab::Timing> times;
                try {
                    times = lab::time_interleaved(work, 1, 10, [&] { flush(); });
                } catch (const lab::WrongAnswer& e) {
                    std::fprintf(stderr, "sweep %s %s: WRONG (%s) %s\n", label.c_str(), std::string(lab::name_of(op)).c_str(),
                                 e.work == 0 ? "the reference" : "the CUB kernel", e.what());
                    all_right = false;
                    continue;
                }
                const double bytes = 4.0 * (static_cast<double>(input.values.size()) + static_cast<double>(mine.size()));
                const double at = op == lab::Op::dot ? ceiling.read_gbps : ceiling.copy_gbps;
                const std::string name(lab::name_of(op));
                for (std::size_t k = 0; k < (first ? 2 : 1); ++k) {
                    Row row{(k == 0 ? rung.id : std::string("cub_block_reduce")) + "/" + name, label, lab::Dtype::f32, n,
                            times[k].median_ms, times[k].min_ms, bytes / (times[k].median_ms * 1e6), 1, bytes, at};
                    row.block = k == 0 ? plan.block : lab::kCubRowBlock;
                    rows.push_back(row);
                }
            }
        }
    }
    return all_right;
}
#endif


std::vector<double> sorted(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

lab::Spread spread_of(const std::vector<double>& values)
{
    const auto v = sorted(values);
    return lab::Spread{v.front(), v[v.size() / 2], v.back(), 0};
}

// Measures every rung of the speed plan `runs` times as its speed test does (the rungs in turn
// within each run, so that drift touches them alike), and writes this GPU's calibration into the
// plan at `path`, keeping the other GPUs'.
int calibrate(const std::string& path, int runs, const lab::DeviceStatus& device)
{
    lab::SpeedPlan plan = lab::SpeedPlan::kit();
    lab::SpeedInputs inputs(plan.n, 20261122);
    // A row kernel's inputs, made once per kernel (a dot product's matrices are twice as many floats).
    std::map<std::string, std::unique_ptr<lab::RowSpeedInputs>> row_inputs;
    std::vector<std::vector<lab::SpeedMeasurement>> measured(plan.cases.size());
    std::vector<double> ceilings;
    // One measurement of the plan's case k; nothing when the rung is not linked in or its reference
    // answers wrong (said on stderr: then nothing is calibrated).
    const auto measure = [&](std::size_t k) -> std::optional<lab::SpeedMeasurement> {
        const auto& c = plan.cases[k];
        const lab::RungBinding* binding = nullptr;
        for (const auto* b : lab::bound_rungs())
            if (b->id == c.rung) binding = b;
        if (!binding) {
            std::fprintf(stderr, "lab-bench: tests/speed.json names %s, which is not linked in\n", c.rung.c_str());
            return std::nullopt;
        }
        const auto& rung = lab::Registry::kit().get(c.rung);
        lab::SpeedMeasurement m;
        if (c.op.empty()) {
            m = lab::measure_speed(*binding, rung, inputs, c.block, device, c.scheme);
        } else {
            const lab::Op op = lab::parse_op(c.op);
            auto& made = row_inputs[c.op];
            if (!made) made = std::make_unique<lab::RowSpeedInputs>(op, plan.rows, plan.cols, 20261122);
            m = lab::measure_row_speed(*binding, rung, op, *made, c.block, device, c.scheme);
        }
        if (!m.wrong.empty()) {
            std::fprintf(stderr, "lab-bench: the reference %s is wrong (%s): nothing calibrated\n", c.key().c_str(),
                         m.wrong.c_str());
            return std::nullopt;
        }
        return m;
    };
    for (int run = 1; run <= runs; ++run)
        for (std::size_t k = 0; k < plan.cases.size(); ++k) {
            const auto& c = plan.cases[k];
            const auto measured_now = measure(k);
            if (!measured_now) return 1;
            const lab::SpeedMeasurement& m = *measured_now;
            std::printf("run %d of %d: %s\n", run, runs, m.summary(c.key(), device.name).c_str());
            measured[k].push_back(m);
            ceilings.push_back(m.ceiling.best());
        }
    // A run more than 15% below its rung's median (once in a hundred or so, on an H100: a glitch of
    // the machine, not the kernel's speed) is measured again, once, and the new run replaces it;
    // both are printed. Left in, one such run would lower the rung's threshold far enough that an
    // earlier rung's kernel passes (set_thresholds subtracts twice the spread from the slowest run).
    // The speed test does the same: a run that falls short is measured once more.
    for (std::size_t k = 0; k < plan.cases.size(); ++k) {
        std::vector<double> ratios;
        for (const auto& m : measured[k]) ratios.push_back(m.vs_baseline());
        const double median = sorted(ratios)[ratios.size() / 2];
        for (auto& m : measured[k]) {
            if (m.vs_baseline() >= 0.85 * median) continue;
            const auto again = measure(k);
            if (!again) return 1;
            std::printf("outlier (%.2fx against a median of %.2fx), measured again: %s\n", m.vs_baseline(), median,
                        again->summary(plan.cases[k].key(), device.name).c_str());
            m = *again;
        }
    }
    lab::Calibration calibration;
    calibration.gpu = device.name;
    calibration.multiprocessors = device.shape.multiprocessors;
    calibration.ceiling_gbps = sorted(ceilings)[ceilings.size() / 2];
    calibration.runs = runs;
    for (std::size_t k = 0; k < plan.cases.size(); ++k) {
        std::vector<double> vs_baseline, of_ceiling, vs_cpu;
        for (const auto& m : measured[k]) {
            vs_baseline.push_back(m.vs_baseline());
            of_ceiling.push_back(m.of_ceiling());
            vs_cpu.push_back(m.vs_cpu());
        }
        calibration.rungs.push_back({plan.cases[k].key(), spread_of(vs_baseline), spread_of(of_ceiling), spread_of(vs_cpu)});
    }
    plan.mark_what_each_asks(calibration);  // the thresholds printed below are the ones the tests will ask
    lab::set_thresholds(calibration);
    auto& all = plan.calibrations;
    all.erase(std::remove_if(all.begin(), all.end(),
                             [&](const lab::Calibration& c) {
                                 return c.gpu == calibration.gpu && c.multiprocessors == calibration.multiprocessors;
                             }),
              all.end());
    all.push_back(calibration);
    std::printf("\n%s, %d multiprocessors, ceiling %.0f GB/s: %d runs of each reference solution\n", device.name.c_str(),
                calibration.multiprocessors, calibration.ceiling_gbps, runs);
    std::printf("%-31s %-30s %-9s %-26s %-9s %s\n", "rung", "vs baseline min/median/max", "requires",
                "of ceiling min/median/max", "requires", "vs CPU min/median/max (not required)");
    for (const auto& r : calibration.rungs) {
        char b[64], c[64], p[64];
        std::snprintf(b, sizeof b, "%.2f / %.2f / %.2f", r.vs_baseline.min, r.vs_baseline.median, r.vs_baseline.max);
        std::snprintf(c, sizeof c, "%.0f%% / %.0f%% / %.0f%%", 100 * r.of_ceiling.min, 100 * r.of_ceiling.median,
                      100 * r.of_ceiling.max);
        std::snprintf(p, sizeof p, "%.0f / %.0f / %.0f", r.vs_cpu.min, r.vs_cpu.median, r.vs_cpu.max);
        std::printf("%-31s %-30s %-9s %-26s %-9s %s\n", r.rung.c_str(), b, lab::format_ratio(r.vs_baseline.threshold).c_str(),
                    c, r.of_ceiling.threshold > 0 ? lab::format_percent(r.of_ceiling.threshold).c_str() : "-", p);
    }
    std::ofstream(path) << plan.to_json();
    std::printf("wrote %s\n", path.c_str());
    return 0;
}

int emulator_speed(const lab::DeviceStatus& device, const lab_bench::Options& options)
{
    // The CPU backend's own speed: one launch of each rung's first pass over 2^20 floats.
    const std::size_t n = std::size_t{1} << 20;
    const auto input = input_of<float>(n);
    lab::DeviceBuffer<float> data(n);
    data.upload(input.values);
    std::printf("%s: one launch over 2^20 floats, blocks of 256, median of 3\n", device.name.c_str());
    for (const lab::RungBinding* binding : lab::bound_rungs()) {
        const auto& rung = lab::Registry::kit().get(binding->id);
        if (rung.shape->works_on_rows() || !options.times(rung.id)) continue;  // rows: no reduction of an array
        const auto plan = lab::plan_launch(rung, n, 256, device.shape, 0, rung.variants.empty() ? "" : rung.variants.back());
        lab::DeviceBuffer<float> out(plan.grid);
        std::vector<double> seconds;
        for (int i = 0; i < 3; ++i) {
            const auto begin = std::chrono::steady_clock::now();
            binding->launch(lab::Op::sum, lab::Dtype::f32, plan, data.data(), out.data(), n);
            LAB_CUDA_CHECK(cudaDeviceSynchronize());
            seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
        }
        std::sort(seconds.begin(), seconds.end());
        if (plan.variant.empty())
            std::printf("  %-20s %6.3f s  (%u blocks)\n", rung.id.c_str(), seconds[1], plan.grid);
        else  // a driver rung: one call of a scheme, twice over with the glue's checks
            std::printf("  %-20s %6.3f s  (Reducer::%s, called twice)\n", rung.id.c_str(), seconds[1], plan.variant.c_str());
    }
    // The row rung: one launch of each kernel over 1024 rows of 1024 floats (a dot product reads two).
    const std::size_t side = 1024;
    lab::DeviceBuffer<float> rows_in(2 * n), rows_out(n);
    rows_in.upload(input_of<float>(2 * n).values);
    for (const lab::RungBinding* binding : lab::bound_rungs()) {
        const auto& rung = lab::Registry::kit().get(binding->id);
        if (!rung.shape->works_on_rows() || !options.times(rung.id)) continue;
        // A row rung with schemes (a row driver) runs in its first, as the sweep does.
        const auto plan =
            lab::plan_launch(rung, side * side, 256, device.shape, 0, rung.variants.empty() ? "" : rung.variants.front(), side);
        for (const lab::Op op : rung.ops) {
            std::vector<double> seconds;
            for (int i = 0; i < 3; ++i) {
                const auto begin = std::chrono::steady_clock::now();
                binding->launch(op, lab::Dtype::f32, plan, rows_in.data(), rows_out.data(), side * side);
                LAB_CUDA_CHECK(cudaDeviceSynchronize());
                seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
            }
            std::sort(seconds.begin(), seconds.end());
            const std::string name = rung.id + "/" + std::string(lab::name_of(op));
            std::printf("  %-34s %6.3f s  (%zu rows of %zu)\n", name.c_str(), seconds[1], side, side);
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // keep what was printed if a kernel takes the process down
    const lab_bench::Options options = lab_bench::parse_options(argc, argv);
    const auto& device = lab::device_status();
    try {
        if (!device.usable) {
            std::cout << "lab-bench: no timings: " << device.reason << '\n';
            return 0;
        }
        if (device.emulated) return emulator_speed(device, options);
        if (!options.calibrate.empty()) return calibrate(options.calibrate, options.runs, device);
        std::vector<Size> sizes;
        if (!options.sizes.empty()) {
            for (const int k : options.sizes) sizes.push_back({"2^" + std::to_string(k), lab::Dtype::f32, std::size_t{1} << k});
        } else if (options.full) {
            for (int k = 10; k <= 28; k += 2) sizes.push_back({"2^" + std::to_string(k), lab::Dtype::f32, std::size_t{1} << k});
            sizes.push_back({"509.6 MB ints", lab::Dtype::i32, 509600000 / 4});  // the tutorials' input
        } else {
            sizes.push_back({"2^26", lab::Dtype::f32, std::size_t{1} << 26});
        }
        const lab::Ceiling ceiling = lab::measure_ceiling(std::size_t{1} << 30, device.shape);
        std::vector<Row> rows;
        bool all_right = true;
        for (const auto& s : sizes) {
            std::fprintf(stderr, "timing %s ...\n", s.label.c_str());
            all_right &= s.dtype == lab::Dtype::i32 ? bench_size<int>(s, options, rows, device, ceiling)
                                                    : bench_size<float>(s, options, rows, device, ceiling);
        }
        bool row_rung_timed = false;
        for (const lab::RungBinding* b : lab::bound_rungs())
            row_rung_timed |= lab::Registry::kit().get(b->id).shape->works_on_rows() && options.times(b->id);
        if (row_rung_timed)
            for (const auto& shape : kRowShapes) {
                const unsigned block = options.block_given ? options.block : row_block(shape[1]);
                std::fprintf(stderr, "timing the row kernels over %zu x %zu floats, blocks of %u ...\n", shape[0], shape[1], block);
                all_right &= bench_rows(shape[0], shape[1], block, options, rows, device);
            }
        if (!options.tsv.empty()) {
            std::ofstream tsv(options.tsv);
            // First, which thresholds the speed tests apply on this GPU: its own calibration or the defaults.
            const bool calibrated = lab::SpeedPlan::kit().calibration_for(device.name, device.shape.multiprocessors) != nullptr;
            tsv << "#thresholds\t" << (calibrated ? "calibrated" : "defaults") << '\t' << device.name << " ("
                << device.shape.multiprocessors << " multiprocessors)\n";
            // One line per rung: a driver rung's is the scheme its speed test times (tests/speed.json).
            for (const auto& r : rows) {
                if (r.kernel == "cub" || r.kernel == "cpu") continue;
                const auto slash = r.kernel.find('/');
                const std::string id = r.kernel.substr(0, slash);
                if (slash != std::string::npos) {
                    const lab::SpeedPlan::Case* timed = lab::SpeedPlan::kit().find(id);
                    const std::string part = r.kernel.substr(slash + 1);
                    // The row rung's line is its softmax's over the first matrix, against the copy ceiling.
                    const std::string first_matrix = std::to_string(kRowShapes[0][0]) + "x" + std::to_string(kRowShapes[0][1]);
                    const bool shown = timed && timed->op.empty() ? timed->scheme == part
                                                                  : part == kRowTsvKernel && r.size == first_matrix;
                    if (!shown) continue;
                }
                tsv << id << "\tok\t" << r.gbps << '\t' << r.ms << '\n';
            }
        }
        if (!options.csv.empty()) write_csv(options.csv, rows, device);
        std::string report = markdown(rows, sizes, device, ceiling);
#if !defined(LAB_BACKEND_CPU)
        if (!options.sweep_csv.empty() && row_rung_timed) {
            std::vector<Row> sweep;
            all_right &= bench_row_sweep(sweep, device);
            write_csv(options.sweep_csv, sweep, device);
            report += sweep_markdown(sweep);
        }
#endif
        if (!options.markdown.empty()) std::ofstream(options.markdown) << report;
        std::cout << report;
        return all_right ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "lab-bench: " << e.what() << '\n';
        return 1;
    }
}
