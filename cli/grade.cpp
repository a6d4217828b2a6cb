// ./lab grade SUBMISSION ..., ./lab grade-all CLASS ... and the commands on a graded class
// (./lab class-report OUT, ./lab similarity OUT, ./lab lms-export OUT --roster R): each handed to
// the grader's lab-grade (grader/README.md, grader/batch/README.md), built in the reference
// solutions' tree for this machine, which parses the arguments, --help included.

#include "kit.hpp"

namespace lab::cli {

namespace {

int hand_over(const Kit& kit, const std::string& command, const std::vector<std::string>& args, const std::string& usage)
{
    if (args.empty()) throw Failure("usage: ./lab " + command + " " + usage + " (./lab " + command + " --help says more)", 2);
    return kit.lab_grade("solutions", command, args);
}

}  // namespace

int grade(const Kit& kit, const std::vector<std::string>& args)
{
    return hand_over(kit, "grade", args, "SUBMISSION [--rubric FILE] [--out DIR] [--seed S]");
}

int grade_all(const Kit& kit, const std::vector<std::string>& args)
{
    return hand_over(kit, "grade-all", args, "CLASS [--out DIR] [--rubric FILE] [--seed S] [--force] [--slurm ...]");
}

int class_report(const Kit& kit, const std::vector<std::string>& args)
{
    return hand_over(kit, "class-report", args, "OUT");
}

int similarity(const Kit& kit, const std::vector<std::string>& args)
{
    return hand_over(kit, "similarity", args, "OUT [--threshold F] [--min-shared N]");
}

int lms_export(const Kit& kit, const std::vector<std::string>& args)
{
    return hand_over(kit, "lms-export", args, "OUT --roster ROSTER.csv [--assignment NAME]");
}

}  // namespace lab::cli
