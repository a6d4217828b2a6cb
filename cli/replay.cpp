// ./lab replay NN ...: runs one case of a grading report on the student's own exercises/NN_name.cu.

#include "kit.hpp"

namespace lab::cli {

int replay(const Kit& kit, const std::vector<std::string>& args)
{
    if (args.empty())
        throw Failure("usage: ./lab replay NN --op OP --input KIND --n N (or --rows R --cols C) --block B --seed S [--grid G] [--offset O] [--scheme S] (copy it "
                      "from your report)",
                      2);
    return kit.lab_grade("exercises", "replay", args);
}

}  // namespace lab::cli
