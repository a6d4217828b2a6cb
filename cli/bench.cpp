// ./lab bench [DIR]: every reference rung, CUB and the CPU loop over 2^10 ... 2^28 elements, and
// the row kernels by the shape of their matrix, with tables and plots (the instructor's). ./lab bench NN: the student's rung NN against its speed
// test (a GPU's: the CPU backend measures no GPU speed).
#include <filesystem>

#include "kit.hpp"
#include "lab/registry.hpp"
#include "lab/rung_tests.hpp"
#include "lab/shape.hpp"
#include "progress.hpp"

namespace lab::cli {

int bench_rung(const Kit& kit, const std::string& key)
{
    const RungInfo& rung = Registry::kit().get(key);
    const auto speed = speed_cases(rung);
    if (speed.empty()) {
        say("rung " + rung.id + " has no speed test: " +
            (rung.shape->works_on_rows() ? "its kernels are timed by the instructor's benchmark (./lab bench)."
                                           : "its schemes are not calibrated on a GPU yet."));
        return 0;
    }
    kit.require_toolchain();
    const std::string preset = kit.preset_for("exercises");
    if (kit.is_cpu(preset)) {
        say("Speed is measured on a GPU only: the CPU backend checks that rung " + rung.id +
            " is right, not how fast a GPU would run it. Run ./lab bench " + rung.number + " on a machine with an NVIDIA GPU.");
        return 0;
    }
    // Its speed tests (a row rung's, one per kernel), each alone through the student's loop: the
    // suites program prints the GB/s, the kit's naive kernel's and this GPU's ceiling, and the
    // thresholds with where they come from.
    int status = 0;
    for (const SpeedCase& s : speed) status |= check_rung(kit, rung, s.name(), "");
    return status;
}

int bench(const Kit& kit, const std::string& dir)
{
    kit.require_toolchain();
    const std::string preset = kit.preset_for("solutions");
    kit.configure_and_build(preset, {"lab-bench"});
    const std::string program = kit.program(preset, "lab-bench");
    if (kit.is_cpu(preset)) {
        return kit.run({program});
    }
    const std::string out = dir.empty() ? kit.build + "/benchmark" : dir;
    std::filesystem::create_directories(out);
    if (kit.run({program, "--full", "--csv", out + "/results.csv", "--markdown", out + "/results.md", "--sweep-csv",
                 out + "/rows_sweep.csv"}) != 0)
        throw Failure("the benchmark failed (see above)");
    const std::string python = kit.python_with("matplotlib");
    if (kit.run({python, kit.root + "/authoring/plot_bench.py", out + "/results.csv", out + "/gbps.png"}) == 0 &&
        kit.run({python, kit.root + "/authoring/plot_rows.py", out + "/rows_sweep.csv", out + "/rows_sweep.png"}) == 0)
        say("wrote " + out + "/results.csv, rows_sweep.csv, results.md, gbps.png and rows_sweep.png");
    else
        say("wrote " + out + "/results.csv, rows_sweep.csv and results.md (a plot failed: see above)");
    return 0;
}

}  // namespace lab::cli
