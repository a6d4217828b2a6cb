// ./lab status [--no-run]: how far up the ladder the student is, a line per rung. A finished rung
// edited since its last check is checked again first (quietly; --no-run says so instead), so that
// the table tells the truth about the files as they are now. Works without a GPU.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "kit.hpp"
#include "progress.hpp"

namespace lab::cli {

int status(const Kit& kit, bool run_checks)
{
    const auto& rungs = Registry::kit().rungs();
    bool toolchain_checked = false;
    for (const RungInfo& rung : rungs) {
        if (!run_checks || rung_state(kit, rung).kind != RungState::Kind::unchecked) continue;
        if (!toolchain_checked) kit.require_toolchain(), toolchain_checked = true;
        std::cout << "checking " << rung.id << " (" << rung_state(kit, rung).detail << ") ..." << std::endl;
        check_rung(kit, rung, "", kit.build + "/status-" + rung.id + ".log");
    }
    std::size_t width = 0;
    for (const RungInfo& rung : rungs) width = std::max(width, rung.id.size());
    int done = 0;
    const RungInfo* next = nullptr;
    std::string lines;
    for (const RungInfo& rung : rungs) {
        const RungState state = rung_state(kit, rung);
        done += state.done();
        if (!next && !state.done()) next = &rung;
        char line[64];
        std::snprintf(line, sizeof line, "  %-*s  ", static_cast<int>(width), rung.id.c_str());
        lines += line + describe(state) + "\n";
    }
    const bool gpu = !kit.is_cpu(kit.preset_for("exercises"));
    std::cout << done << " of " << rungs.size() << " rungs done"
              << (gpu ? "" : " (no GPU here: correctness only; speed is measured on a GPU)") << "\n"
              << lines;
    if (next) std::cout << "Next: ./lab check " << next->number << " (" << next->title << "); stuck? ./lab hint " << next->number << "\n";
    else std::cout << "Every rung is done.\n";
    return 0;
}

}  // namespace lab::cli
