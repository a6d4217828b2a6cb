// ./lab test [NN]: builds the student's exercises and runs every case of every rung, one run of its
// suites program a rung (the verdicts ctest's process per case gives); ./lab test NN is ./lab check
// NN, the student's loop.
#include <filesystem>
#include <fstream>

#include "batch.hpp"
#include "console.hpp"
#include "kit.hpp"
#include "lab/registry.hpp"
#include "progress.hpp"

namespace lab::cli {

int test(const Kit& kit, const std::string& key)
{
    if (!key.empty()) return check(kit, key, "", "", true);  // one rung: the student's loop (cli/check.cpp), every case
    watch_interrupts();
    kit.require_toolchain();
    const std::string preset = kit.preset_for("exercises");
    // The rungs' own programs only: the kit's self-tests (Kit.*) are the instructor's.
    std::vector<std::string> targets{"lab-summary"};
    for (const RungInfo& rung : Registry::kit().rungs()) targets.push_back(suites_program(rung));
    // The nvcc check of each rung, a target apart in the student's tree (CMakeLists.txt).
    if (kit.is_cpu(preset) && nvcc_checks(kit, preset))
        for (const RungInfo& rung : Registry::kit().rungs()) targets.push_back("rung_" + rung.id + "_nvcc");
    kit.build_with_progress(preset, targets);
    if (kit.is_cpu(preset)) say("(no GPU here: your kernels run on the kit's CPU backend)");
    Batch batch;
    batch.tag = "results";
    const std::vector<RungRun> runs = run_rungs(kit, preset, batch, "your rungs' cases");
    std::vector<std::string> args = junit_args(runs);
    args.insert(args.end(), {"--failures", "1"});
    const int status = kit.summary(preset, args);
    const std::string nvcc_check = kit.tree(preset) + "/nvcc_check.txt";
    if (kit.is_cpu(preset) && std::filesystem::exists(nvcc_check)) {
        std::string line;
        std::getline(std::ifstream(nvcc_check) >> std::ws, line);
        say("GPU compile check: " + line);
    }
    return status;
}

}  // namespace lab::cli
