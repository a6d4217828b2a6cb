// ./lab grade SUBMISSION ... and ./lab grade-all CLASS ...: hand the command to the grader, lab-grade (grader/README.md),
// built in the reference solutions' tree for this machine.

#include "kit.hpp"

namespace lab::cli {

int grade(const Kit& kit, const std::vector<std::string>& args)
{
    if (args.empty()) throw Failure("usage: ./lab grade SUBMISSION [--rubric FILE] [--out DIR] [--seed S]", 2);
    return kit.lab_grade("solutions", "grade", args);
}

int grade_all(const Kit& kit, const std::vector<std::string>& args)
{
    if (args.empty())
        throw Failure("usage: ./lab grade-all CLASS [--out DIR] [--rubric FILE] [--seed S] [--force] [--slurm ...]", 2);
    return kit.lab_grade("solutions", "grade-all", args);
}

}  // namespace lab::cli
