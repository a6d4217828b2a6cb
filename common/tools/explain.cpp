// Kit tool (CPU backend): one rung's kernel run once at a teaching size with its memory accesses
// measured (lab/cpu/explain.hpp), written as JSON for `./lab explain` (cli/explain.cpp).
//   lab-explain-NN [--n N] [--block B] [--op OP] [--dtype int|float] --json FILE
// Built per rung from a kernel file compiled with the explain flags (cmake/LabRungs.cmake). The
// answer is not checked here: a kernel that gives a wrong answer is still measured (./lab check
// says whether it is right). A kernel that fails (a fault, a hang past the launch limit) is
// reported in the JSON ("error") with what was measured up to then, and the exit status is 1.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "lab/cases.hpp"
#include "lab/cpu/explain.hpp"
#include "lab/device.hpp"
#include "lab/device_buffer.hpp"
#include "lab/inputs.hpp"
#include "lab/registry.hpp"
#include "lab/rung.hpp"

namespace {

using nlohmann::json;
namespace explain = lab::cpu::explain;

json counts_json(const explain::Counts& c)
{
    json histogram = json::object();
    for (int k = 1; k <= 32; ++k)
        if (c.lane_histogram[k]) histogram[std::to_string(k)] = c.lane_histogram[k];
    return {{"instructions", c.instructions},
            {"lanes", c.lanes},
            {"lane_histogram", histogram},
            {"warps", c.warps},
            {"shared_requests", c.shared_requests},
            {"shared_wavefronts", c.shared_wavefronts},
            {"shared_bytes", c.shared_bytes},
            {"global_requests", c.global_requests},
            {"global_sectors", c.global_sectors},
            {"global_read", c.global_read},
            {"global_written", c.global_written},
            {"global_least_sectors", c.global_least_sectors},
            {"barriers", c.barriers},
            {"warp_syncs", c.warp_syncs},
            {"shuffles", c.shuffles}};
}

template <typename T>
std::string run(const lab::RungInfo& rung, const lab::RungBinding& binding, lab::Op op, std::size_t n, unsigned block,
                lab::LaunchPlan& plan)
{
    const lab::DeviceStatus& device = lab::device_status();
    std::size_t elements = n, side = 0;
    if (rung.grid == lab::GridPolicy::rows) {
        side = 1;
        while (side * side < n) side *= 2;
        elements = side * side;
    }
    plan = lab::plan_launch(rung, elements, block, device.shape, 0, rung.variants.empty() ? "" : rung.variants.back(), side);
    lab::Case c;
    c.name = "explain";
    c.input = std::is_same_v<T, int> ? lab::InputKind::ints : lab::InputKind::floats;
    c.n = elements * lab::operands_of(op);
    c.seed = 20261126;
    const auto input = lab::make_input<T>(c);
    lab::DeviceBuffer<T> in(c.n), out(std::max<std::size_t>(lab::output_count(plan, op), 1));
    in.upload(input.values);
    explain::start();
    binding.launch(op, lab::dtype_of<T>(), plan, in.data(), out.data(), elements);
    const cudaError_t error = cudaDeviceSynchronize();
    return error == cudaSuccess ? "" : cudaGetErrorString(error);
}

}  // namespace

int main(int argc, char** argv)
{
    std::size_t n = std::size_t{1} << 20;
    unsigned block = 256;
    std::string op_name, dtype_name = "int", json_path;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "lab-explain: " << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--n") n = std::stoull(value());
        else if (a == "--block") block = static_cast<unsigned>(std::stoul(value()));
        else if (a == "--op") op_name = value();
        else if (a == "--dtype") dtype_name = value();
        else if (a == "--json") json_path = value();
        else {
            std::cerr << "lab-explain: unknown argument " << a << "\n";
            return 2;
        }
    }
    try {
        const lab::RungBinding& binding = lab::the_bound_rung();
        const lab::RungInfo& rung = lab::Registry::kit().get(binding.id);
        const lab::Op op = op_name.empty() ? rung.ops.front() : lab::parse_op(op_name);
        lab::LaunchPlan plan;
        std::string error;
        try {
            error = dtype_name == "float" || lab::is_row_op(op) ? run<float>(rung, binding, op, n, block, plan)
                                                                : run<int>(rung, binding, op, n, block, plan);
        } catch (const std::exception& e) {
            error = e.what();
        }
        const std::vector<explain::Launch> launches = explain::stop();
        json out = {{"rung", rung.id},        {"source", binding.source},
                    {"n", n},                 {"block", block},
                    {"op", std::string(lab::name_of(op))},
                    {"grid", plan.grid},      {"variant", plan.variant},
                    {"instrumented", explain::saw_instrumented_code()},
                    {"error", error},         {"launches", json::array()}};
        for (const explain::Launch& l : launches) {
            json launch = {{"kernel", l.kernel}, {"grid", l.grid}, {"block", l.block}, {"total", counts_json(l.total)},
                           {"steps", json::array()}, {"sites", json::array()}};
            for (const explain::Counts& s : l.steps) launch["steps"].push_back(counts_json(s));
            for (const explain::Site& s : l.sites)
                launch["sites"].push_back({{"module", s.module}, {"offset", s.offset}, {"counts", counts_json(s.counts)}});
            out["launches"].push_back(std::move(launch));
        }
        const std::string text = out.dump(1) + "\n";
        if (json_path.empty()) std::cout << text;
        else std::ofstream(json_path) << text;
        return error.empty() ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "lab-explain: " << e.what() << "\n";
        return 2;
    }
}
