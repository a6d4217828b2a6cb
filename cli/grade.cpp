// ./lab grade SUBMISSION ...: hands the command to the grader, lab-grade (grader/README.md),
// built in the reference solutions' tree for this machine.

#include "kit.hpp"

namespace lab::cli {

int grade(const Kit& kit, const std::vector<std::string>& args)
{
    if (args.empty()) throw Failure("usage: ./lab grade SUBMISSION [--rubric FILE] [--out DIR] [--seed S]", 2);
    kit.require_toolchain();
    const std::string preset = kit.preset_for("solutions");
    kit.configure_and_build(preset, {"lab-grade"});
    std::vector<std::string> command{kit.tool(preset, "grader/lab-grade"), "grade"};
    command.insert(command.end(), args.begin(), args.end());
    return kit.run(command);
}

}  // namespace lab::cli
