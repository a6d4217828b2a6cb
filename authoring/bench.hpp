// Kit tool (lab-bench, bench.cpp): what the benchmark measured, and its reports (bench_report.cpp):
// the CSV the plots read, and the Markdown tables handouts/benchmark/GPU/results.md holds.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "lab/cases.hpp"
#include "lab/device.hpp"
#include "lab/speed_plan.hpp"

namespace lab_bench {

// lab-bench's command line (bench_args.cpp); a bad one exits 2 with the usage line.
struct Options {
    bool full = false;
    unsigned block = 256;
    bool block_given = false;  // --block: also the row kernels' block, instead of row_block
    int runs = 10;
    std::string tsv, csv, markdown, calibrate, sweep_csv;
    // --rungs: the rungs timed (each any name of a rung that Registry::find takes, "11" or
    // "11_single_pass"; empty: every rung), CUB and the CPU loop beside them; --sizes: the input sizes, as powers of two (empty: the
    // default's or --full's). For measuring one rung's change in a few seconds of a lent GPU.
    std::vector<std::string> rungs;
    std::vector<int> sizes;
    // Whether the rung `id` is among those --rungs names (every rung when it names none).
    bool times(const std::string& id) const;
};
Options parse_options(int argc, char** argv);

// One kernel at one size.
struct Row {
    std::string kernel;  // a rung id, "cub", or "cpu"; the row rung's "12_real_kernels/softmax"
    std::string size;    // "2^24" or "509.6 MB ints"; the row rung's "4096x4096"
    lab::Dtype dtype = lab::Dtype::f32;
    std::size_t n = 0;
    double ms = 0, min_ms = 0, gbps = 0;
    std::size_t launches = 0;
    double bytes = 0;    // what the kernel must move at least: its input once (and a row rung's output)
    double ceiling = 0;  // the in-run ceiling for that kind of traffic, GB/s (a row kernel's: over as many bytes)
    unsigned block = 0;  // a row kernel's block; 0 for the rest
};

struct Size {
    std::string label;
    lab::Dtype dtype;
    std::size_t n;
};

// Timed runs per kernel at a size of n elements. Up to 2^20 a run lasts a few microseconds, and the
// median of 20 moved by 3% from one process to the next (on an H200 the single-pass rung at 2^12
// read 0.94 to 1.00 times CUB over five processes, 0.96 to 0.99 with 200 runs). A run there costs
// microseconds, so the small sizes take 200; the large ones keep 20.
constexpr int kManyRunsUpToPower = 20;  // up to 2^20 elements
constexpr int kManyRuns = 200, kRuns = 20;
inline int timed_runs(std::size_t n) { return n <= (std::size_t{1} << kManyRunsUpToPower) ? kManyRuns : kRuns; }

// `value` printed with a printf pattern ("%.1f").
std::string format(const char* pattern, double value);
// The row of `kernel` at `size`; nullptr when there is none.
const Row* find(const std::vector<Row>& rows, const std::string& kernel, const std::string& size);

// The row-shape sweep as a table: a line per kernel, a column per shape.
std::string sweep_markdown(const std::vector<Row>& sweep);
void write_csv(const std::string& path, const std::vector<Row>& rows, const lab::DeviceStatus& device);
// The report: bandwidth of every kernel at every size, then the details the README quotes.
std::string markdown(const std::vector<Row>& rows, const std::vector<Size>& sizes, const lab::DeviceStatus& device,
                     const lab::Ceiling& ceiling);

}  // namespace lab_bench
