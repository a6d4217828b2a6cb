// ./lab generate [--force]: rewrites exercises/ and the README's rung table from solutions/ and rungs.json
// (never an exercise file edited since it wrote it, unless --force).

#include "kit.hpp"

namespace lab::cli {

int generate(const Kit& kit, bool force)
{
    kit.require_toolchain();
    kit.configure_and_build("cpu-solutions", {"lab-generate"});
    std::vector<std::string> command{kit.tool("cpu-solutions", "grader/lab-generate")};
    if (force) command.push_back("--force");
    return kit.run(command);
}

}  // namespace lab::cli
