// Kit tool: one rung's kernel run once at a teaching size with its memory accesses measured
// (lab/cpu/explain.hpp), written as JSON for `./lab explain` (cli/explain.cpp). On the CUDA backend
// the same launch runs on the GPU, once and unmeasured, for Nsight Compute to read its counters
// (./lab explain on a GPU, tests/kit/explain_gpu_test.py): the JSON then has no launches.
//   lab-explain-NN [--n N] [--block B] [--grid G] [--op OP] [--dtype int|float] [--cols C]
//                  [--variant V] --json FILE
//       --grid: the blocks of a rung that sizes its grid to the device (07-09), so that a GPU run
//       launches what the CPU backend measured (its own grid follows the machine's cores)
//       --cols: a row rung's row length (n a multiple of it); a square matrix of n or more without
//       --variant: one of the rung's schemes (rungs.json's "variants"); its last without
//   lab-explain-NN --page OUT.html NAME=FILE.json ...   the pictures of earlier measurements, side
//                                                       by side (./lab explain --html)
// Built per rung from a kernel file compiled with the explain flags (cmake/LabRungs.cmake). The
// answer is not checked here: a kernel that gives a wrong answer is still measured (./lab check
// says whether it is right). A kernel that fails (a fault, a hang past the launch limit) is
// reported in the JSON ("error") with what was measured up to then, and the exit status is 1.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "lab/cases.hpp"
#include "lab/cpu/explain.hpp"
#include "lab/device.hpp"
#include "lab/device_buffer.hpp"
#include "lab/inputs.hpp"
#include "lab/registry.hpp"
#include "lab/rung.hpp"
#include "lab/shape.hpp"
#include "lab/text.hpp"

#if !defined(LAB_BACKEND_CPU)
// On a GPU nothing is measured here (the counters are Nsight Compute's): the header's structs, and
// a measurement that sees nothing.
namespace lab::cpu::explain {
void start() {}
std::vector<Launch> stop() { return {}; }
bool saw_instrumented_code() { return false; }
}  // namespace lab::cpu::explain
#endif

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
            {"shared_least_wavefronts", c.shared_least_wavefronts},
            {"shared_bytes", c.shared_bytes},
            {"global_requests", c.global_requests},
            {"global_sectors", c.global_sectors},
            {"global_read", c.global_read},
            {"global_written", c.global_written},
            {"global_least_sectors", c.global_least_sectors},
            {"distributed_requests", c.distributed_requests},
            {"distributed_bytes", c.distributed_bytes},
            {"barriers", c.barriers},
            {"cluster_barriers", c.cluster_barriers},
            {"warp_syncs", c.warp_syncs},
            {"shuffles", c.shuffles}};
}

std::string fixed(double value, int digits)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

// The launch a picture shows: the one with the most steps (a tree), the first on a tie.
const json* main_launch(const json& measured)
{
    const json* best = nullptr;
    for (const json& l : measured.at("launches"))
        if (!best || l.at("steps").size() > best->at("steps").size()) best = &l;
    return best;
}

// Block 0's threads, step by step: a cell per thread, warps side by side. Green: it touched memory
// in the step; red: it did not, though its warp did (a lane slot the warp spends idle); grey: its
// whole warp did nothing (no cost).
std::string lanes_svg(const json& launch)
{
    const json& steps = launch.at("block0");
    const unsigned threads = launch.at("block").get<unsigned>();
    const unsigned warps = (threads + 31) / 32;
    const double cell = std::max(1.0, std::min(6.0, 760.0 / (threads + 2.0 * warps)));
    const double gap = 2, row = 14, left = 56;
    const double width = left + warps * (32 * cell + gap) + 4, height = 18 + row * static_cast<double>(steps.size());
    std::string svg = "<svg class=\"lanes\" width=\"" + fixed(width, 0) + "\" height=\"" + fixed(height, 0) +
                      "\" role=\"img\" aria-label=\"block 0's threads by step\">";
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const std::string active = steps[k].at("active").get<std::string>();
        const double y = 14 + row * static_cast<double>(k);
        svg += "<text x=\"0\" y=\"" + fixed(y + 10, 0) + "\" font-size=\"11\">step " + std::to_string(k) + "</text>";
        for (unsigned w = 0; w < warps; ++w) {
            bool any = false;
            for (unsigned t = w * 32; t < std::min(threads, w * 32 + 32) && t < active.size(); ++t) any |= active[t] == '1';
            const double x0 = left + w * (32 * cell + gap);
            if (!any) {
                svg += "<rect class=\"quiet\" x=\"" + fixed(x0, 1) + "\" y=\"" + fixed(y, 0) + "\" width=\"" + fixed(32 * cell, 1) +
                       "\" height=\"" + fixed(row - 3, 0) + "\" fill=\"#e8e8e8\"/>";
                continue;
            }
            for (unsigned t = w * 32; t < std::min(threads, w * 32 + 32); ++t) {
                const bool on = t < active.size() && active[t] == '1';
                svg += "<rect class=\"" + std::string(on ? "busy" : "idle") + "\" x=\"" + fixed(x0 + (t - w * 32) * cell, 1) +
                       "\" y=\"" + fixed(y, 0) + "\" width=\"" + fixed(cell, 1) + "\" height=\"" + fixed(row - 3, 0) +
                       "\" fill=\"" + (on ? "#2a8a4a" : "#e0524f") + "\"/>";
            }
        }
    }
    return svg + "</svg>";
}

// Block 0's bank conflicts, step by step: per bank, the most words one shared instruction wanted
// from it (1: no conflict; n: an n-way conflict, n wavefronts).
std::string banks_svg(const json& launch)
{
    const json& steps = launch.at("block0");
    const double cell = 18, left = 56, row = 16;
    const double width = left + 32 * cell + 4, height = 30 + row * static_cast<double>(steps.size());
    std::string svg = "<svg class=\"banks\" width=\"" + fixed(width, 0) + "\" height=\"" + fixed(height, 0) +
                      "\" role=\"img\" aria-label=\"bank conflicts by step and bank\">";
    for (int b = 0; b < 32; b += 4)
        svg += "<text x=\"" + fixed(left + b * cell + 2, 0) + "\" y=\"10\" font-size=\"10\">" + std::to_string(b) + "</text>";
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const double y = 14 + row * static_cast<double>(k);
        svg += "<text x=\"0\" y=\"" + fixed(y + 11, 0) + "\" font-size=\"11\">step " + std::to_string(k) + "</text>";
        const json& ways = steps[k].at("ways");
        for (std::size_t b = 0; b < ways.size() && b < 32; ++b) {
            const unsigned n = ways[b].get<unsigned>();
            const char* colour = n == 0 ? "#ffffff" : n == 1 ? "#d6ecd2" : n == 2 ? "#fbe3a1" : n <= 4 ? "#f6a355" : n <= 8 ? "#e4572e" : "#9e1b1b";
            svg += "<rect class=\"bank\" data-ways=\"" + std::to_string(n) + "\" x=\"" + fixed(left + b * cell, 0) + "\" y=\"" +
                   fixed(y, 0) + "\" width=\"" + fixed(cell - 1, 0) + "\" height=\"" + fixed(row - 1, 0) + "\" fill=\"" + colour +
                   "\" stroke=\"#ccc\"/>";
            if (n > 1)
                svg += "<text x=\"" + fixed(left + b * cell + cell / 2, 0) + "\" y=\"" + fixed(y + 11, 0) +
                       "\" font-size=\"9\" text-anchor=\"middle\">" + std::to_string(n) + "</text>";
        }
    }
    return svg + "</svg>";
}

// Device memory over every launch: the bytes the input holds (the least any reduction reads), the
// bytes read and written, and the bytes of the 32-byte sectors the accesses touched (per access:
// no cache is modelled, so a sector two accesses share counts twice).
std::string bytes_svg(const json& measured)
{
    double read = 0, written = 0, sectors = 0;
    for (const json& l : measured.at("launches")) {
        read += l.at("total").value("global_read", 0.0);
        written += l.at("total").value("global_written", 0.0);
        sectors += l.at("total").value("global_sectors", 0.0);
    }
    const double least = measured.value("least_read", 0.0), moved = 32 * sectors;
    const double top = std::max({least, read + written, moved, 1.0});
    const std::vector<std::pair<std::string, double>> bars = {
        {"the input (read at least once)", least}, {"read and written", read + written}, {"in the sectors its accesses touch", moved}};
    std::string svg = "<svg class=\"bytes\" width=\"620\" height=\"" + std::to_string(20 + 24 * bars.size()) +
                      "\" role=\"img\" aria-label=\"device-memory bytes\">";
    for (std::size_t k = 0; k < bars.size(); ++k) {
        const double y = 6 + 24.0 * static_cast<double>(k), w = 360 * bars[k].second / top;
        svg += "<text x=\"0\" y=\"" + fixed(y + 13, 0) + "\" font-size=\"11\">" + bars[k].first + "</text><rect x=\"190\" y=\"" +
               fixed(y, 0) + "\" width=\"" + fixed(std::max(w, 1.0), 1) + "\" height=\"18\" fill=\"" +
               (k == 0 ? "#8aa" : k == 1 ? "#4a7" : "#c84") + "\"/><text x=\"" + fixed(196 + w, 0) + "\" y=\"" + fixed(y + 13, 0) +
               "\" font-size=\"11\">" + fixed(bars[k].second / 1e6, 2) + " MB</text>";
    }
    return svg + "</svg>";
}

// ./lab explain --html: a page with each measurement side by side (yours, the references).
std::string page(const std::vector<std::pair<std::string, json>>& measured)
{
    const json& first = measured.front().second;
    std::string html =
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>./lab explain " + lab::xml_escape(first.value("rung", "")) +
        "</title><style>body{font-family:sans-serif;margin:1.5em}.side{display:flex;flex-wrap:wrap;gap:2em}"
        "section{flex:1 1 40em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}"
        "th{text-align:center}.key span{display:inline-block;width:1em;height:1em;vertical-align:middle;margin:0 .3em}</style>"
        "</head><body>\n<h1>Why is " + lab::xml_escape(first.value("rung", "")) + " slow? Measured</h1>\n<p>n = " +
        first.at("n").dump() + ", blocks of " + first.at("block").dump() + ", op " + lab::xml_escape(first.value("op", "")) +
        ", on the kit's CPU backend: its model of a GPU from every load and store of the code (cpu_backend/CPU_BACKEND.md, "
        "\"Measuring a kernel\"), not a GPU's counters.</p>\n<p class=\"key\">Threads of block 0: <span style=\"background:"
        "#2a8a4a\"></span>touched memory in the step <span style=\"background:#e0524f\"></span>idle while its warp worked (a "
        "wasted lane) <span style=\"background:#e8e8e8\"></span>a whole warp idle (free). Banks: the most words one shared "
        "instruction asked of the bank: <span style=\"background:#d6ecd2\"></span>1, no conflict <span style=\"background:"
        "#fbe3a1\"></span>2 <span style=\"background:#f6a355\"></span>3-4 <span style=\"background:#e4572e\"></span>5-8 "
        "<span style=\"background:#9e1b1b\"></span>more.</p>\n<div class=\"side\">\n";
    for (const auto& [who, m] : measured) {
        const json* launch = main_launch(m);
        html += "<section><h2>" + lab::xml_escape(who) + "</h2>\n<p>" + lab::xml_escape(m.value("source", "")) + "</p>\n";
        if (!m.value("error", "").empty()) html += "<p><strong>It stopped: " + lab::xml_escape(m.value("error", "")) + "</strong></p>\n";
        if (!launch) {
            html += "<p>No launch was measured.</p></section>\n";
            continue;
        }
        html += "<p>" + lab::xml_escape(launch->value("kernel", "")) + ", " + launch->at("grid").dump() + " blocks of " +
                launch->at("block").dump() + "</p>\n<h3>Block 0's threads, step by step</h3>\n" + lanes_svg(*launch) +
                "\n<h3>Block 0's shared-memory banks, step by step</h3>\n" + banks_svg(*launch) +
                "\n<h3>Device memory, every launch</h3>\n" + bytes_svg(m) +
                "\n<h3>Every block, step by step</h3>\n<table><tr><th>step</th><th>warps at work per block</th><th>active lanes per "
                "instruction</th><th>wavefronts per shared request</th><th>sectors per device request (fewest)</th></tr>\n";
        const double grid = launch->at("grid").get<double>();
        std::size_t k = 0;
        for (const json& s : launch->at("steps")) {
            const auto ratio = [&](const char* a, const char* b) {
                const double d = s.value(b, 0.0);
                return d > 0 ? fixed(s.value(a, 0.0) / d, 2) : std::string("-");
            };
            html += "<tr><td>" + std::to_string(k++) + "</td><td>" + fixed(s.value("warps", 0.0) / std::max(1.0, grid), 1) +
                    "</td><td>" + ratio("lanes", "instructions") + "</td><td>" + ratio("shared_wavefronts", "shared_requests") +
                    "</td><td>" + ratio("global_sectors", "global_requests") + " (" + ratio("global_least_sectors", "global_requests") +
                    ")</td></tr>\n";
        }
        html += "</table></section>\n";
    }
    return html + "</div>\n</body></html>\n";
}

template <typename T>
std::string run(const lab::RungInfo& rung, const lab::RungBinding& binding, lab::Op op, std::size_t n, unsigned block,
                unsigned grid, std::size_t cols, const std::string& variant, lab::LaunchPlan& plan)
{
    const lab::DeviceStatus& device = lab::device_status();
    std::size_t elements = n, side = 0;
    if (rung.shape->works_on_rows() && cols > 0) {  // rows of `cols`
        if (n % cols != 0) throw std::runtime_error("--cols " + std::to_string(cols) + " does not divide --n " + std::to_string(n));
        side = cols;
    } else if (rung.shape->works_on_rows()) {  // a square matrix: n or more elements, a power of two a side
        side = 1;
        while (side * side < n) side *= 2;
        elements = side * side;
    }
    plan = lab::plan_launch(rung, elements, block, device.shape, grid, variant, side);
    // A driver rung's scheme called once, as the benchmark times it: without this the glue calls it
    // twice and checks the answers (explain measures; ./lab check checks).
    plan.reuse = true;
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
    std::size_t n = std::size_t{1} << 20, cols = 0;
    unsigned block = 256, grid = 0;  // grid 0: as the rung plans it for this device
    std::string op_name, dtype_name = "int", json_path, variant;
    std::vector<std::string> page_of;  // --page OUT.html NAME=FILE.json ...
    CLI::App app{"lab-explain: one rung's kernel run once with its memory accesses measured, as JSON for ./lab explain"};
    const CLI::Validator whole(
        [](std::string& text) -> std::string {
            return text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 12
                       ? text + ": give a whole number"
                       : "";
        },
        "WHOLE");
    auto* measure = app.add_option_group("measure");
    measure->add_option("--n", n, "elements (a row rung: its rows times its columns)")->check(whole);
    measure->add_option("--block", block, "threads a block")->check(whole);
    measure->add_option("--grid", grid, "blocks, for a rung that sizes its grid to the device (07-09)")->check(whole);
    measure->add_option("--op", op_name, "the operation (the rung's first by default)");
    measure->add_option("--dtype", dtype_name, "int or float")->check(CLI::IsMember({"int", "float"}));
    measure->add_option("--cols", cols, "a row rung's row length (n a multiple of it; a square matrix without)")->check(whole);
    measure->add_option("--variant", variant, "one of the rung's schemes (its last by default)");
    measure->add_option("--json", json_path, "where the measurements go (standard output without)");
    CLI::Option* page_option =
        app.add_option("--page", page_of, "OUT.html NAME=FILE.json ...: the page of measurements made before")->expected(2, 1 << 16);
    measure->excludes(page_option);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "lab-explain: " << e.what() << "\n";
        return 2;
    }
    // --page: the page of measurements made before; no kernel runs.
    if (!page_of.empty()) {
        std::vector<std::pair<std::string, json>> measured;
        try {
            for (std::size_t i = 1; i < page_of.size(); ++i) {
                const std::string& a = page_of[i];
                const auto eq = a.find('=');
                if (eq == std::string::npos) throw std::runtime_error("expected NAME=FILE.json, got " + a);
                std::ifstream in(a.substr(eq + 1));
                if (!in) throw std::runtime_error("cannot read " + a.substr(eq + 1));
                measured.emplace_back(a.substr(0, eq), json::parse(in));
            }
            std::ofstream(page_of.front()) << page(measured);
        } catch (const std::exception& e) {
            std::cerr << "lab-explain --page: " << e.what() << "\n";
            return 2;
        }
        return 0;
    }
    try {
        const lab::RungBinding& binding = lab::the_bound_rung();
        const lab::RungInfo& rung = lab::Registry::kit().get(binding.id);
        const lab::Op op = op_name.empty() ? rung.ops.front() : lab::parse_op(op_name);
        if (variant.empty() && !rung.variants.empty()) variant = rung.variants.back();
        if (cols > 0 && !rung.shape->works_on_rows()) throw std::runtime_error("--cols: rung " + rung.id + " has no rows");
        lab::LaunchPlan plan;
        std::string error;
        try {
            error = dtype_name == "float" || lab::is_row_op(op) ? run<float>(rung, binding, op, n, block, grid, cols, variant, plan)
                                                                : run<int>(rung, binding, op, n, block, grid, cols, variant, plan);
        } catch (const std::exception& e) {
            error = e.what();
        }
        const std::vector<explain::Launch> launches = explain::stop();
        json out = {{"rung", rung.id},        {"source", binding.source},
                    {"n", n},                 {"cols", plan.cols},      {"block", block},
                    {"op", std::string(lab::name_of(op))},
                    {"dtype", dtype_name == "float" || lab::is_row_op(op) ? "float" : "int"},
                    {"least_read", n * 4 * lab::operands_of(op)},
                    {"grid", plan.grid},      {"variant", plan.variant},
                    {"instrumented", explain::saw_instrumented_code()},
#if defined(LAB_BACKEND_CPU)
                    {"backend", "cpu"},
#else
                    {"backend", "cuda"},
#endif
                    {"error", error},         {"launches", json::array()}};
        for (const explain::Launch& l : launches) {
            json launch = {{"kernel", l.kernel}, {"grid", l.grid}, {"block", l.block}, {"total", counts_json(l.total)},
                           {"steps", json::array()}, {"sites", json::array()}};
            for (const explain::Counts& s : l.steps) launch["steps"].push_back(counts_json(s));
            launch["block0"] = json::array();
            for (const explain::BlockStep& b : l.block0) launch["block0"].push_back({{"active", b.active}, {"ways", b.ways}});
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
