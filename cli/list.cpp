// ./lab list [--ids]: the rungs, in order, from the registry (rungs.json) as the tests read it;
// with --ids their full names only, one a line, for scripts.
#include <algorithm>
#include <cstdio>

#include "kit.hpp"
#include "lab/registry.hpp"

namespace lab::cli {

int list(const Kit&, bool ids_only)
{
    if (ids_only) {
        for (const RungInfo& rung : Registry::kit().rungs()) std::printf("%s\n", rung.id.c_str());
        return 0;
    }
    int width = 0;
    for (const RungInfo& rung : Registry::kit().rungs()) width = std::max(width, static_cast<int>(rung.title.size()));
    for (const RungInfo& rung : Registry::kit().rungs())
        std::printf("%s  %-*s  you write: %s\n", rung.number.c_str(), width, rung.title.c_str(), rung.practises.c_str());
    return 0;
}

}  // namespace lab::cli
