// ./lab bench [DIR]: every reference rung, CUB and the CPU loop over 2^10 ... 2^28 elements, with
// a table and a plot.
#include <filesystem>

#include "kit.hpp"

namespace lab::cli {

int bench(const Kit& kit, const std::string& dir)
{
    kit.require_toolchain();
    const std::string preset = kit.preset_for("solutions");
    kit.configure_and_build(preset, {"lab-bench"});
    const std::string program = kit.tool(preset, "common/tools/lab-bench");
    if (kit.is_cpu(preset)) {
        return kit.run({program});
    }
    const std::string out = dir.empty() ? kit.build + "/benchmark" : dir;
    std::filesystem::create_directories(out);
    if (kit.run({program, "--full", "--csv", out + "/results.csv", "--markdown", out + "/results.md"}) != 0)
        throw Failure("the benchmark failed (see above)");
    if (kit.run({"python3", kit.root + "/grader/plot_bench.py", out + "/results.csv", out + "/gbps.png"}) == 0)
        say("wrote " + out + "/results.csv, " + out + "/results.md and " + out + "/gbps.png");
    else
        say("wrote " + out + "/results.csv and " + out + "/results.md (no plot: see above)");
    return 0;
}

}  // namespace lab::cli
