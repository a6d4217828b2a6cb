// Instructor side: writes what is derived from the solutions and the registry.
//   exercises/NN_name.cu   from solutions/NN_name.cu (see skeleton.hpp)
//   README.md's rung table, between <!-- rungs:begin --> and <!-- rungs:end -->
// With --check nothing is written; the exit status is 1 when anything is out of date, and the
// kit's self-test runs it that way so a stale exercise never ships.
// An exercise file is only ever replaced when it still holds what generate last wrote there (its
// hash in exercises/.generated): one that somebody edited (a student's solved rung) is listed and
// nothing is written, unless --force.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <vector>
#include <sstream>
#include <string>

#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/usage_error.hpp"
#include "skeleton.hpp"

namespace {

std::string read_file(const std::string& path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) throw lab::UsageError("cannot read " + path);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// Returns true when `path` already holds `text`; otherwise writes it (or, when checking, reports it).
bool sync_file(const std::string& path, const std::string& text, bool check)
{
    std::ifstream existing(path, std::ios::binary);
    std::ostringstream current;
    if (existing) current << existing.rdbuf();
    if (existing && current.str() == text) return true;
    if (check) {
        std::cerr << "out of date: " << path << (existing ? "" : " (missing)") << '\n';
        return false;
    }
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw lab::UsageError("cannot write " + path);
    std::cout << "wrote " << path << '\n';
    return true;
}

std::string hash_of(const std::string& text)
{
    char hex[24];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(lab::fnv1a(text)));
    return hex;
}

// exercises/.generated: "HASH  NN_name.cu" for each file as generate last wrote it.
const char* kStampHeader = "# What ./lab generate last wrote to each exercise (FNV-1a 64): it replaces a file only while it\n"
                           "# still holds that, so that nobody's edits are ever overwritten.\n";

std::map<std::string, std::string> read_stamps(const std::string& path)
{
    std::map<std::string, std::string> stamps;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#' && line.size() > 18) stamps[line.substr(18)] = line.substr(0, 16);
    return stamps;
}

std::string stamps_text(const std::map<std::string, std::string>& stamps)
{
    std::string text = kStampHeader;
    for (const auto& [name, hash] : stamps) text += hash + "  " + name + "\n";
    return text;
}

std::string rung_table(const lab::Registry& registry)
{
    std::ostringstream table;
    table << "| Rung | Technique | You write | Tutorial kernel | Handout |\n|---|---|---|---|---|\n";
    for (const auto& rung : registry.rungs())
        table << "| " << rung.number << " | " << rung.title << " | " << rung.practises << " | "
              << (rung.seed_kernel.empty() ? "-" : rung.seed_kernel) << " | [" << rung.id << "](handouts/" << rung.id
              << ".md) |\n";
    return table.str();
}

std::string with_table(const std::string& readme, const std::string& table)
{
    const std::string begin = "<!-- rungs:begin -->\n", end = "<!-- rungs:end -->";
    const auto b = readme.find(begin), e = readme.find(end);
    if (b == std::string::npos || e == std::string::npos || e < b)
        throw lab::UsageError("README.md lacks the markers <!-- rungs:begin --> and <!-- rungs:end -->");
    return readme.substr(0, b + begin.size()) + table + readme.substr(e);
}

}  // namespace

int main(int argc, char** argv)
{
    bool check = false, force = false;
    std::string root = LAB_SOURCE_DIR;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--check") check = true;
        else if (arg == "--force") force = true;
        else if (arg == "--root" && i + 1 < argc) root = argv[++i];
        else {
            std::cerr << "usage: lab-generate [--check] [--force] [--root DIR]\n"
                         "  writes exercises/ from solutions/ and README.md's rung table from rungs.json;\n"
                         "  --check only compares, and exits 1 when anything is out of date;\n"
                         "  --force replaces exercise files that were edited since generate wrote them\n";
            return 2;
        }
    }
    try {
        const auto registry = lab::Registry::load(root + "/rungs.json");
        bool in_sync = true;
        const std::string stamp_path = root + "/exercises/.generated";
        const auto stamps = read_stamps(stamp_path);
        std::map<std::string, std::string> written, skeletons;
        std::vector<std::string> edited;
        for (const auto& rung : registry.rungs()) {
            const std::string solution = "solutions/" + rung.id + ".cu", name = rung.id + ".cu";
            skeletons[name] = lab::make_skeleton(read_file(root + "/" + solution), solution, rung.number).text;
            written[name] = hash_of(skeletons[name]);
            const std::string path = root + "/exercises/" + name;
            if (!std::filesystem::exists(path)) continue;
            const std::string current = hash_of(read_file(path));
            if (current != written[name] && (!stamps.count(name) || stamps.at(name) != current)) edited.push_back(name);
        }
        if (!edited.empty() && !check && !force) {
            std::cerr << "lab-generate: nothing written: these exercise files were edited since ./lab generate wrote them,\n"
                         "and writing would lose the edits:\n";
            for (const std::string& name : edited) std::cerr << "  exercises/" << name << '\n';
            std::cerr << "Keep a copy of what you want of them (or commit it), then run ./lab generate --force.\n";
            return 1;
        }
        for (const auto& rung : registry.rungs())
            in_sync &= sync_file(root + "/exercises/" + rung.id + ".cu", skeletons.at(rung.id + ".cu"), check);
        in_sync &= sync_file(stamp_path, stamps_text(written), check);
        in_sync &= sync_file(root + "/README.md", with_table(read_file(root + "/README.md"), rung_table(registry)), check);
        if (!in_sync) std::cerr << "run ./lab generate to bring them up to date from solutions/ and rungs.json\n";
        return in_sync ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "lab-generate: " << e.what() << '\n';
        return 2;
    }
}
