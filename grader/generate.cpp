// Instructor side: writes what is derived from the solutions and the registry.
//   exercises/NN_name.cu   from solutions/NN_name.cu (see skeleton.hpp)
//   README.md's rung table, between <!-- rungs:begin --> and <!-- rungs:end -->
// With --check nothing is written; the exit status is 1 when anything is out of date, and the
// kit's self-test runs it that way so a stale exercise never ships.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

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
    bool check = false;
    std::string root = LAB_SOURCE_DIR;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--check") check = true;
        else if (arg == "--root" && i + 1 < argc) root = argv[++i];
        else {
            std::cerr << "usage: lab-generate [--check] [--root DIR]\n"
                         "  writes exercises/ from solutions/ and README.md's rung table from rungs.json;\n"
                         "  --check only compares, and exits 1 when anything is out of date\n";
            return 2;
        }
    }
    try {
        const auto registry = lab::Registry::load(root + "/rungs.json");
        bool in_sync = true;
        for (const auto& rung : registry.rungs()) {
            const std::string solution = "solutions/" + rung.id + ".cu";
            const auto skeleton = lab::make_skeleton(read_file(root + "/" + solution), solution, rung.number);
            in_sync &= sync_file(root + "/exercises/" + rung.id + ".cu", skeleton.text, check);
        }
        in_sync &= sync_file(root + "/README.md", with_table(read_file(root + "/README.md"), rung_table(registry)), check);
        if (!in_sync) std::cerr << "run ./lab generate to bring them up to date from solutions/ and rungs.json\n";
        return in_sync ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "lab-generate: " << e.what() << '\n';
        return 2;
    }
}
