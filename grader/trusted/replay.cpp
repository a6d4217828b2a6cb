// TRUSTED SIDE. See replay.hpp.
#include "replay.hpp"

#include <iostream>
#include <optional>
#include <stdexcept>
#include <thread>

#include "builder.hpp"
#include "judge.hpp"
#include "lab/device.hpp"
#include "lab/registry.hpp"
#include "lab/shape.hpp"
#include "lab/text.hpp"
#include "plan.hpp"
#include "sandbox.hpp"

namespace lab::grading {

int replay(const std::string& key, const std::string& op, const std::string& input, std::uint64_t n, unsigned block,
           const std::string& seed_text, unsigned grid, std::uint64_t offset, const std::string& scheme,
           const std::string& file, bool has_n, std::uint64_t rows, std::uint64_t cols)
{
    const lab::RungInfo& rung = lab::Registry::kit().get(key);
    const bool on_rows = rung.shape->works_on_rows();
    if (on_rows != (cols > 0) || (cols > 0) != (rows > 0) || (cols > 0) == has_n)
        throw std::runtime_error(on_rows
                                     ? "rung " + rung.id + " works on a matrix: give --rows and --cols (not --n)"
                                     : "rung " + rung.id + " reduces an array: give --n (not --rows and --cols)");
    if (cols > 0) n = rows * cols;
    const lab::DeviceStatus& device = lab::device_status();
    if (!device.usable) {
        std::cerr << "lab-grade: " << device.reason << '\n';
        return 2;
    }
    const std::string source = file.empty() ? lab::kit_path("exercises/" + rung.id + ".cu") : file;
    const std::optional<std::string> contents = lab::try_read_file(source);
    if (!contents) throw std::runtime_error("cannot read " + source);
    PlannedCase p;
    p.c.op = lab::parse_op(op);
    p.c.input = lab::parse_input_kind(input);
    p.c.n = n;
    p.c.block = block;
    p.c.seed = parse_seed(seed_text);
    p.c.offset = offset;
    p.c.cols = cols;
    p.c.group = "replay";
    p.c.name = (scheme.empty() ? "" : scheme + "_") + input +
               (cols ? "_r" + std::to_string(rows) + "_c" + std::to_string(cols) : "_n" + std::to_string(n)) + "_b" +
               std::to_string(block) + (offset ? "_o" + std::to_string(offset) : "");
    p.c.variant = scheme;
    p.plan = lab::plan_launch(rung, n, block, device.shape, grid, scheme, cols);
    const Built built = build_runners({{rung.id, *contents}}, static_cast<int>(std::thread::hardware_concurrency()));
    if (!built.runners.count(rung.id)) {
        std::cout << source << " did not build:\n" << built.logs.at(rung.id) << '\n';
        return 1;
    }
    Limits limits;
    limits.hung_before_giving_up = 1;
    limits.confine = sandboxed_runner;
    const auto results = run_and_check(rung, built.runners.at(rung.id), {p}, grading_orders(), limits,
                                       grading_build_dir() + "/grading/replay", replay_command);
    const CaseResult& r = results.front();
    std::cout << "rung " << rung.id << ", " << op << " case " << r.name << " (seed " << seed_text << "): " << r.status
              << '\n';
    if (!r.message.empty()) std::cout << r.message << '\n';
    return r.status == "passed" ? 0 : 1;
}

}  // namespace lab::grading
