// lab-cpu-throughput: how fast the CPU backend runs the reference solutions' kernels, in elements
// per second of one core's time, per rung, size and thread order (cpu_backend/bench/throughput.sh
// builds and runs it). One launch per measurement, timed by the process's CPU clock (every worker
// thread's time added up), so the figure does not depend on how many cores are free; the wall time
// is printed beside it. Every answer is checked against a sum made here, so a fast wrong engine
// does not pass for a fast one.
//
//   lab-cpu-throughput [--rungs 01,03,12] [--sizes 20,24] [--orders forward,reverse] [--repeat K]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "lab/cpu/runtime.hpp"
#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/device_buffer.hpp"
#include "lab/error.hpp"
#include "lab/plan.hpp"
#include "lab/registry.hpp"
#include "lab/rung.hpp"
#include "lab/shape.hpp"
#include "lab/types.hpp"

namespace {

using lab::cpu::Schedule;

double cpu_seconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::vector<std::string> split(const std::string& text)
{
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

// A shape the benchmark times: n elements in blocks of `block`; a row rung's rows of `cols`.
struct Shape {
    std::size_t n;
    unsigned block;
    std::size_t cols;  // 0: not a row rung
    std::string text;
};

// The shapes of the kit's larger cases at 2^power elements: block 256 (the cases' "large" group);
// for the row rung, square rows at 2^24 (the "square" group, 4096 x 4096) and 1024-float rows at 2^20.
Shape shape_for(const lab::RungInfo& rung, int power)
{
    const std::size_t n = std::size_t{1} << power;
    if (rung.shape->works_on_rows()) {
        const std::size_t cols = std::size_t{1} << (power / 2);
        return {n, 256, cols, std::to_string(n / cols) + "x" + std::to_string(cols) + " b256"};
    }
    return {n, 256, 0, "2^" + std::to_string(power) + " b256"};
}

struct Timing {
    double cpu = 0, wall = 0;
    std::string wrong;
};

// One launch of `op` on `in`, in `order`; checks the answer against `expected` (the row rung's
// dot products, or every other rung's total) with a tolerance that only a wrong engine misses.
Timing time_launch(const lab::RungBinding& binding, const lab::RungInfo& rung, lab::Op op, const Shape& shape,
                   const std::string& variant, const lab::DeviceBuffer<float>& in, const std::vector<float>& host,
                   Schedule order)
{
    lab::cpu::set_schedule(order, 1);
    lab::LaunchPlan plan = lab::plan_launch(rung, shape.n, shape.block, lab::device_status().shape, 0, variant, shape.cols);
    const std::size_t slots = lab::output_count(plan, op);
    lab::DeviceBuffer<float> out(slots);
    const double cpu0 = cpu_seconds();
    const auto wall0 = std::chrono::steady_clock::now();
    binding.launch(op, lab::Dtype::f32, plan, in.data(), out.data(), shape.n);
    const cudaError_t error = cudaDeviceSynchronize();
    Timing t;
    t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    t.cpu = cpu_seconds() - cpu0;
    if (error != cudaSuccess) {
        t.wrong = std::string(cudaGetErrorName(error)) + ": " + lab::cpu::last_error_detail();
        return t;
    }
    const std::vector<float> got = out.download();
    double want = 0, have = 0, magnitude = 0;
    if (op == lab::Op::dot) {
        for (std::size_t i = 0; i < shape.n; ++i) want += double{host[i]} * host[i];  // y is a copy of x
        magnitude = want;
    } else if (op == lab::Op::softmax) {
        want = magnitude = static_cast<double>(shape.n / shape.cols);  // every row's softmax adds up to 1
    } else {
        for (float x : host) want += x, magnitude += std::fabs(x);
    }
    for (float x : got) have += x;
    if (!(std::fabs(have - want) <= 1e-4 * magnitude + 1e-3))
        t.wrong = "the outputs add up to " + std::to_string(have) + ", not " + std::to_string(want);
    return t;
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> rungs_wanted, orders{"forward", "reverse"};
    std::vector<int> powers{20, 24};
    int repeat = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const std::string value = i + 1 < argc ? argv[i + 1] : "";
        if (arg == "--rungs") rungs_wanted = split(value), ++i;
        else if (arg == "--orders") orders = split(value), ++i;
        else if (arg == "--repeat") repeat = std::max(1, std::atoi(value.c_str())), ++i;
        else if (arg == "--sizes") {
            powers.clear();
            for (const std::string& p : split(value)) powers.push_back(std::atoi(p.c_str()));
            ++i;
        } else {
            std::cerr << "usage: lab-cpu-throughput [--rungs 01,03,12] [--sizes 20,24] [--orders forward,reverse] "
                         "[--repeat K]\n";
            return 2;
        }
    }
    lab::cpu::echo_errors(false);
    std::printf("%-18s %-24s %-8s %9s %9s %14s\n", "rung", "shape", "order", "wall s", "cpu s", "Melem/s/core");
    int failures = 0;
    for (const lab::RungBinding* binding : lab::bound_rungs()) {
        const lab::RungInfo& rung = lab::Registry::kit().get(binding->id);
        if (!rungs_wanted.empty() &&
            std::none_of(rungs_wanted.begin(), rungs_wanted.end(), [&](const std::string& r) { return rung.id.rfind(r, 0) == 0; }))
            continue;
        const std::vector<lab::Op> ops = rung.shape->works_on_rows() ? std::vector<lab::Op>{lab::Op::dot, lab::Op::softmax}
                                                                            : std::vector<lab::Op>{lab::Op::sum};
        const std::string variant = rung.variants.empty() ? "" : rung.variants.front();
        for (const lab::Op op : ops)
        for (int power : powers) {
            const Shape shape = shape_for(rung, power);
            std::vector<float> host(shape.n);
            std::uint64_t state = 0x9E3779B97F4A7C15ull * (power + 1);
            for (float& x : host) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                x = static_cast<float>(state >> 40) / static_cast<float>(1 << 24) - 0.5f;
            }
            // A dot product's y follows its x in the same buffer (rung_glue.cu): here a copy of x.
            lab::DeviceBuffer<float> in(op == lab::Op::dot ? 2 * shape.n : shape.n);
            in.upload(host);
            if (op == lab::Op::dot) in.upload(host, shape.n);
            for (const std::string& order_name : orders) {
                const Schedule order = order_name == "reverse" ? Schedule::reverse
                                       : order_name == "random" ? Schedule::random
                                                                : Schedule::forward;
                Timing best;
                for (int k = 0; k < repeat; ++k) {
                    const Timing t = time_launch(*binding, rung, op, shape, variant, in, host, order);
                    if (k == 0 || t.cpu < best.cpu) best = t;
                    if (!t.wrong.empty()) best.wrong = t.wrong;
                }
                const std::string what = rung.shape->works_on_rows() ? " " + std::string(lab::name_of(op)) : variant.empty() ? "" : " " + variant;
                std::printf("%-18s %-24s %-8s %9.3f %9.3f %14.2f%s\n", rung.id.c_str(), (shape.text + what).c_str(), order_name.c_str(), best.wall,
                            best.cpu, static_cast<double>(shape.n) / best.cpu / 1e6,
                            best.wrong.empty() ? "" : ("  WRONG: " + best.wrong).c_str());
                std::fflush(stdout);
                failures += !best.wrong.empty();
            }
        }
    }
    return failures ? 1 : 0;
}
