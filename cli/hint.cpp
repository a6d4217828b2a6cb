// ./lab hint NN: a rung's hints, from the registry.
#include <iostream>

#include "kit.hpp"
#include "lab/registry.hpp"

namespace lab::cli {

int hint(const Kit&, const std::string& key)
{
    const RungInfo& rung = Registry::kit().get(key);
    std::cout << rung.id << ": " << rung.title << " (you write: " << rung.practises << ")\n";
    int i = 0;
    for (const auto& text : rung.hints) std::cout << "  " << ++i << ". " << text << "\n";
    std::cout << "More in handouts/" << rung.id << ".md\n";
    return 0;
}

}  // namespace lab::cli
