// ./lab test [NN]: builds the student's exercises and runs every rung's tests through ctest, each
// case in a process of its own; ./lab test NN is ./lab check NN, the student's loop.
#include <filesystem>
#include <fstream>

#include "kit.hpp"
#include "lab/registry.hpp"

namespace lab::cli {

int test(const Kit& kit, const std::string& key)
{
    if (!key.empty()) return check(kit, key, "");  // one rung: the student's loop (cli/check.cpp)
    kit.require_toolchain();
    const std::string preset = kit.preset_for("exercises");
    // The rungs' own tests only: the kit's self-tests (Kit.*) are the instructor's, and one of them
    // fails by design as soon as an exercise is solved (exercises/ no longer matches solutions/).
    const std::vector<std::string> label{"-L", "^ex[0-9]+$"};
    kit.configure_and_build(preset);
    if (kit.is_cpu(preset)) say("(no GPU here: your kernels run on the kit's CPU backend)");
    const std::string junit = kit.tree(preset) + "/results.xml";
    kit.run_ctest(preset, junit, label);
    const int status = kit.summary(preset, {"--junit", junit, "--failures", "1"});
    const std::string nvcc_check = kit.tree(preset) + "/nvcc_check.txt";
    if (kit.is_cpu(preset) && std::filesystem::exists(nvcc_check)) {
        std::string line;
        std::getline(std::ifstream(nvcc_check) >> std::ws, line);
        say("GPU compile check: " + line);
    }
    return status;
}

}  // namespace lab::cli
