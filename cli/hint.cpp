// ./lab hint [NN] [--all]: one more of a rung's hints each time it is asked (the rung's hints are
// in the registry, rungs.json; how many were shown is kept in .lab/hints.json), or all of them.
// Without NN, the first rung not done.
#include <algorithm>
#include <iostream>

#include "kit.hpp"
#include "progress.hpp"

namespace lab::cli {

int hint(const Kit& kit, const std::string& key, bool all)
{
    const RungInfo* rung = key.empty() ? current_rung(kit) : &Registry::kit().get(key);
    if (!rung) {
        say("Every rung is done: no hints needed. ./lab hint NN shows a rung's anyway.");
        return 0;
    }
    const int total = static_cast<int>(rung->hints.size());
    const int before = hints_shown(kit, *rung);
    const int shown = all ? total : std::min(total, before + 1);
    std::cout << rung->id << ": " << rung->title << " (you write: " << rung->practises << ")\n";
    for (int i = 0; i < shown; ++i) std::cout << "  " << i + 1 << ". " << rung->hints[static_cast<std::size_t>(i)] << "\n";
    if (shown > before) set_hints_shown(kit, *rung, shown);
    if (shown < total)
        std::cout << "Hint " << shown << " of " << total << ". ./lab hint " << rung->number << " again for the next, --all for every one.\n";
    else
        std::cout << "That is every hint for this rung. More in handouts/" << rung->id << ".md\n";
    return 0;
}

}  // namespace lab::cli
