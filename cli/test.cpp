// ./lab test [NN]: builds the student's exercises and runs one rung's tests, or every rung's.
#include <filesystem>
#include <fstream>

#include "kit.hpp"
#include "lab/registry.hpp"

namespace lab::cli {

int test(const Kit& kit, const std::string& key)
{
    const RungInfo* rung = key.empty() ? nullptr : &Registry::kit().get(key);  // a wrong name fails before any build
    kit.require_toolchain();
    const std::string preset = kit.preset_for("exercises");
    std::vector<std::string> targets, label;
    if (rung) {
        targets = {"lab-summary", "test_" + rung->id};
        label = {"-L", rung->label()};
    }
    kit.configure_and_build(preset, targets);
    if (kit.is_cpu(preset)) say("(no GPU here: your kernels run on the kit's CPU backend)");
    const std::string junit = kit.tree(preset) + "/results.xml";
    kit.run_ctest(preset, junit, label);
    std::vector<std::string> args{"--junit", junit, "--failures", "1"};
    if (rung) args.insert(args.end(), {"--rung", rung->id});
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
