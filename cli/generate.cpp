// ./lab generate: rewrites exercises/ and the README's rung table from solutions/ and rungs.json.

#include "kit.hpp"

namespace lab::cli {

int generate(const Kit& kit)
{
    kit.require_toolchain();
    kit.configure_and_build("cpu-solutions", {"lab-generate"});
    return kit.run({kit.tool("cpu-solutions", "grader/lab-generate")});
}

}  // namespace lab::cli
