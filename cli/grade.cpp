// ./lab grade SUBMISSION ...: hands the command to the grader, lab-grade (grader/README.md),
// built in the reference solutions' tree for this machine.

#include "kit.hpp"

namespace lab::cli {

int grade(const Kit& kit, const std::vector<std::string>& args)
{
    if (args.empty()) throw Failure("usage: ./lab grade SUBMISSION [--rubric FILE] [--out DIR] [--seed S]", 2);
    return kit.lab_grade("solutions", "grade", args);
}

}  // namespace lab::cli
