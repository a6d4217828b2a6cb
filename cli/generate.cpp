// ./lab generate [--force]: rewrites exercises/ and the README's rung table from solutions/ and rungs.json
// (never an exercise file edited since it wrote it, unless --force); ./lab release OUT [--through NN]:
// the students' repository, or its next rungs (authoring/release.cpp).

#include "kit.hpp"

namespace lab::cli {

int generate(const Kit& kit, bool force)
{
    kit.require_toolchain();
    kit.configure_and_build("cpu-solutions", {"lab-generate"});
    std::vector<std::string> command{kit.program("cpu-solutions", "lab-generate")};
    if (force) command.push_back("--force");
    return kit.run(command);
}

int release(const Kit& kit, const std::vector<std::string>& args)
{
    if (args.empty()) throw Failure("usage: ./lab release OUT [--through NN] [--skip-build-check]", 2);
    kit.require_toolchain();
    kit.configure_and_build("cpu-solutions", {"lab-release"});
    std::vector<std::string> command{kit.program("cpu-solutions", "lab-release")};
    command.insert(command.end(), args.begin(), args.end());
    return kit.run(command);
}

}  // namespace lab::cli
