// Kit tool (lab-bench): its command line (bench.hpp's parse_options), through CLI11. A file of its
// own, built without optimisation: CLI11's templates took half a minute of optimised compiling on
// one core.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench.hpp"
#include "lab/registry.hpp"

namespace lab_bench {

// A bad command line exits 2, with CLI11's message and the usage line.
Options parse_options(int argc, char** argv)
{
    Options o;
    CLI::App app{"lab-bench: every rung against NVIDIA's library and the memory ceiling, on this GPU"};
    const std::string usage = "usage: lab-bench [--tsv FILE] | --full [--csv FILE] [--markdown FILE] [--sweep-csv FILE] | "
                              "--calibrate FILE [--runs R]  [--block B] [--rungs ID,...] [--sizes K,...]";
    app.footer(usage);
    auto* full = app.add_flag("--full", o.full, "every rung at every size, the row shapes and the sweep");
    app.add_option_function<unsigned>(
           "--block", [&o](unsigned block) { o.block = block, o.block_given = true; },
           "threads a block (256; the row kernels' too, instead of one thread for every 16 floats of a row)")
        ->check(CLI::Range(1u, 1024u));
    app.add_option("--tsv", o.tsv, "./lab run's table of one size");
    app.add_option("--csv", o.csv, "--full: every measurement");
    app.add_option("--markdown", o.markdown, "--full: the table for the handouts");
    auto* calibrate = app.add_option("--calibrate", o.calibrate, "tests/speed.json: each rung's speed test --runs times, its calibration rewritten");
    app.add_option("--sweep-csv", o.sweep_csv, "--full: the row-shape sweep");
    app.add_option("--rungs", o.rungs, "only these rungs (any of their names: 11,12_real_kernels), beside CUB and the CPU loop")
        ->delimiter(',')
        ->check([](const std::string& given) -> std::string {
            if (lab::Registry::kit().find(given)) return "";
            std::string known;
            for (const auto& rung : lab::Registry::kit().rungs()) known += (known.empty() ? "" : ", ") + rung.id;
            return "no rung '" + given + "' (the rungs: " + known + ")";
        })
        ->excludes(calibrate);
    app.add_option("--sizes", o.sizes, "input sizes as powers of two (10,12,20: 2^10, 2^12, 2^20 floats)")
        ->delimiter(',')
        ->check(CLI::Range(1, 31))
        ->excludes(calibrate)
        ->excludes(full);
    app.add_option("--runs", o.runs, "--calibrate: runs of each speed test (10)")->check(CLI::Range(1, 1000));
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        std::exit(app.exit(e));
    } catch (const CLI::ParseError& e) {
        std::cerr << "lab-bench: " << e.what() << "\n" << usage << "\n";
        std::exit(2);
    }
    return o;
}

bool Options::times(const std::string& id) const
{
    if (rungs.empty()) return true;
    for (const auto& given : rungs)
        if (lab::Registry::kit().get(given).id == id) return true;
    return false;
}

}  // namespace lab_bench
