// ./lab watch [NN] [--poll | --manual]: checks the rung again every time its exercise file is saved.
// File events come from inotify; where they do not arrive (WSL's Windows drives, network file
// systems) or with --poll it looks at the file twice a second instead; with --manual it checks when
// Enter is pressed. Without NN it follows the ladder: once the rung is done, it watches the next.
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <thread>

#include "batch.hpp"
#include "kit.hpp"
#include "progress.hpp"

namespace lab::cli {

namespace {

// Why file events cannot be trusted here ("" when they can).
std::string why_poll(const std::string& folder)
{
    std::ifstream release("/proc/sys/kernel/osrelease");
    std::string text;
    std::getline(release, text);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (text.find("microsoft") != std::string::npos || text.find("wsl") != std::string::npos)
        return "WSL does not pass on file events from Windows editors";
    struct statfs fs {};
    if (statfs(folder.c_str(), &fs) == 0) {
        switch (static_cast<unsigned long>(fs.f_type)) {
        case 0x6969: return "the kit is on NFS, which sends no file events for changes made elsewhere";
        case 0x517B:
        case 0xFF534D42:
        case 0xFE534D42: return "the kit is on an SMB share, which sends no file events for changes made elsewhere";
        case 0x01021997: return "the kit is on a 9p share (a VM's or WSL's shared folder), which sends no file events";
        case 0x65735546: return "the kit is on a FUSE file system, which may send no file events";
        default: break;
        }
    }
    return "";
}

struct Seen {
    long long mtime = 0, size = -1;
    std::string stamp;
};

Seen look(const std::string& path)
{
    Seen s;
    struct stat about {};
    if (stat(path.c_str(), &about) == 0) {
        s.mtime = static_cast<long long>(about.st_mtim.tv_sec) * 1000000000LL + about.st_mtim.tv_nsec;
        s.size = static_cast<long long>(about.st_size);
        s.stamp = stamp_of(path);
    }
    return s;
}

// Waits until `path` holds something other than `before` (its bytes, not its time: an editor that
// saves an unchanged file starts nothing). Returns false when the student asked to stop.
bool wait_for_change(const std::string& path, const std::string& mode, int events, const Seen& before)
{
    if (mode == "manual") {
        std::cout << "Press Enter to check again (q and Enter to stop)." << std::endl;
        std::string line;
        if (!std::getline(std::cin, line) || line == "q") return false;
        return true;
    }
    const std::string name = path.substr(path.rfind('/') + 1);
    while (true) {
        if (events >= 0) {
            alignas(inotify_event) char buffer[4096];
            const ssize_t got = read(events, buffer, sizeof buffer);
            if (got <= 0) return false;
            bool ours = false;
            for (ssize_t at = 0; at < got;) {
                const auto* e = reinterpret_cast<const inotify_event*>(buffer + at);
                ours |= e->len > 0 && name == e->name;
                at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
            }
            if (!ours) continue;
            std::this_thread::sleep_for(std::chrono::milliseconds(150));  // an editor's save may take several writes
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
        const Seen now = look(path);
        if (now.size >= 0 && (now.mtime != before.mtime || now.size != before.size) && now.stamp != before.stamp) return true;
    }
}

}  // namespace

int watch(const Kit& kit, const std::string& key, const std::string& mode)
{
    const RungInfo* rung = key.empty() ? current_rung(kit) : &Registry::kit().get(key);
    if (!rung) {
        say("Every rung is done: nothing to watch. ./lab watch NN watches one anyway.");
        return 0;
    }
    kit.require_toolchain();
    const std::string folder = kit.root + "/exercises";
    int events = -1;
    if (mode.empty()) {
        const std::string reason = why_poll(folder);
        if (reason.empty()) {
            events = inotify_init1(IN_CLOEXEC);
            if (events >= 0 && inotify_add_watch(events, folder.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
                close(events);
                events = -1;
            }
            if (events < 0) say("(file events are not available here: looking at the file twice a second instead)");
        } else {
            say("(" + reason + ": looking at the file twice a second instead)");
        }
    }
    while (true) {
        const std::string file = exercise_file(kit, *rung);
        const Seen before = look(file);
        check_rung(kit, *rung, "", "", kit.is_cpu(kit.preset_for("exercises")) ? sample_seed("") : "");
        if (key.empty() && rung_state(kit, *rung).done()) {
            const RungInfo* next = current_rung(kit);
            if (!next) {
                say("Every rung is done.");
                return 0;
            }
            rung = next;
            say("Now watching rung " + rung->id + ": exercises/" + rung->id + ".cu (handouts/" + rung->id + ".md has the idea)");
            continue;
        }
        if (mode != "manual") say("Watching exercises/" + rung->id + ".cu: save it to check again (Ctrl-C stops).");
        if (!wait_for_change(file, mode, events, before)) return 0;
        const std::time_t now = std::time(nullptr);
        char when[16];
        std::strftime(when, sizeof when, "%H:%M:%S", std::localtime(&now));
        say(std::string("\n---- ") + when + " exercises/" + rung->id + ".cu changed ----");
    }
}

}  // namespace lab::cli
