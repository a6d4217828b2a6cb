// Instructor side. lab-release OUT [--root KIT] [--skip-build-check]: writes the students' repository
// of the kit (./lab release; see README.md, "Releasing the kit to a class").
//   - Only what git tracks, less what students must not have: solutions/, the grader (the hidden
//     cases, the corpus, the rubric, the instructor's tools), the planted mistakes, the kit's own
//     tests and its GPU check. A student README and a .ci/run that runs the student's tests; the
//     marker .lab-release, which makes ./lab refuse the instructor's commands there.
//   - A fresh git repository with one commit: no solution in its history.
//   - Checked: no line of any solution region appears anywhere in OUT (the lines the exercise
//     itself keeps aside), and OUT's ./lab test builds and fails every rung with its TODO list.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "skeleton.hpp"

namespace {

namespace fs = std::filesystem;

void write_file(const std::string& path, const std::string& text)
{
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
}

std::string trimmed(const std::string& line)
{
    const auto begin = line.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos) return "";
    return line.substr(begin, line.find_last_not_of(" \t\r\n") - begin + 1);
}

// Runs a command; its output goes to `log`; its exit code.
int run(const std::vector<std::string>& args, const std::string& log, const std::string& directory = "")
{
    lab::process::Options options;
    options.output = log;
    options.search_path = true;
    options.null_stdin = true;
    options.directory = directory;
    return lab::process::run(args, options);
}

std::vector<std::string> tracked_files(const std::string& root, const std::string& scratch)
{
    if (run({"git", "-C", root, "ls-files", "-z"}, scratch) != 0)
        throw std::runtime_error("the kit at " + root + " is not a git checkout (release ships what git tracks): " + lab::read_file(scratch));
    std::vector<std::string> files;
    std::stringstream list(lab::read_file(scratch));
    for (std::string file; std::getline(list, file, '\0');)
        if (!file.empty()) files.push_back(file);
    return files;
}

// What students must not have (paths relative to the kit; a folder ends with /).
bool withheld(const std::string& path)
{
    // Of grader/, a release keeps the summary table of ./lab test and lab-grade, which ./lab replay
    // builds with the judge's runner and checker (judge/, kept whole); never the hidden cases, the
    // rubric, the corpus or the instructor's tools.
    // Of authoring/, only the benchmark (./lab bench NN) and its CMakeLists.txt.
    static const std::vector<std::string> prefixes = {"solutions/", "grader/corpus/", "grader/batch/", "grader/ci/", "grader/tests/",
                                                      "grader/schemas/", "authoring/skeleton.", "tests/kit/", "tests/emulator/",
                                                      "tests/constructs/", ".ci/"};
    static const std::set<std::string> files = {"tests/mutants.json", "README.md", "grader/README.md",
                                                "grader/hidden_cases.json", "grader/rubric.toml", "grader/corpus_check.cpp",
                                                "authoring/README.md", "authoring/generate.cpp", "authoring/release.cpp",
                                                "authoring/plot_bench.py", "authoring/plot_rows.py"};
    if (files.count(path)) return true;
    if (path.rfind("handouts/instructor/", 0) == 0) return true;  // the answers to the handouts' questions
    for (const std::string& p : prefixes)
        if (path.rfind(p, 0) == 0) return true;
    return false;
}

std::string student_readme(const lab::Registry& registry)
{
    std::ostringstream out;
    out << "# CUDA reduction lab\n\n"
        << "A ladder of parallel reduction kernels in CUDA, from the naive interleaved tree to the fast versions. Each\n"
        << "rung is one file, `exercises/NN_name.cu`, with gaps marked `// TODO(NN-name, ~N lines): what to write`;\n"
        << "`handouts/NN_name.md` explains the idea behind it.\n\n"
        << "## Two commands\n\n```sh\n"
        << "./lab check         # build the rung you are on and check it: small cases first, in seconds, and what to fix\n"
        << "./lab test          # build your exercises and run every rung's tests (what your CI runs)\n"
        << "```\n\n"
        << "And: `./lab status` (how far up the ladder you are), `./lab watch` (checks again on every save),\n"
        << "`./lab hint NN` (one more hint each time), `./lab check NN --case NAME` (one case alone), `./lab bench NN`\n"
        << "(your rung's speed, on a GPU), `./lab list`. `ctest --preset exercises -L ex03` runs rung 03's tests\n"
        << "through CTest once they are built.\n\n"
        << "Both set up what they need on a fresh Debian or Ubuntu machine (as root they install the missing\n"
        << "packages; otherwise they print the `apt-get install` line). Without a GPU every kernel runs on the kit's\n"
        << "CPU backend (`cpu_backend/CPU_BACKEND.md`), which also catches what a GPU would get silently wrong.\n\n"
        << "While a rung's TODO lines are there, its tests list them instead of running your kernel: replace each\n"
        << "stub with your code and delete the TODO line. A failing case names the input (`float_n1025_b256`), the first\n"
        << "wrong block, what was expected and what came back, the likely cause and the TODO it points to, and the\n"
        << "seed that reproduces it. `./lab replay ...` runs one case of a grading report on your file.\n\n"
        << "## The rungs\n\n| Rung | Technique | You write | Handout |\n|---|---|---|---|\n";
    for (const auto& rung : registry.rungs())
        out << "| " << rung.number << " | " << rung.title << " | " << rung.practises << " | [" << rung.id << "](handouts/"
            << rung.id << ".md) |\n";
    out << "\nYour course grades what you push with the instructor's grader, on cases you have and cases you do not.\n";
    return out.str();
}

const char* kStudentCi = R"(#!/usr/bin/env bash
# CI for your repository: builds your exercises and runs every rung's tests. It fails while any
# rung is unfinished or wrong, and says which case and why.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./lab test
)";

}  // namespace

int main(int argc, char** argv)
{
    std::string root = LAB_SOURCE_DIR, out;
    bool skip_build_check = false;
    CLI::App app{"lab-release: the student release of the kit, in a new folder"};
    app.add_option("out", out, "the new folder")->required();
    app.add_option("--root", root, "the instructor's kit")->capture_default_str();
    app.add_flag("--skip-build-check", skip_build_check, "do not build the release's exercises to check it");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return e.get_exit_code() == 0 ? 0 : 2;
    }
    const bool build_check = !skip_build_check;
    try {
        out = fs::absolute(out).lexically_normal().string();
        if (fs::exists(root + "/.lab-release")) throw std::runtime_error(root + " is a student release itself: release from the instructor's kit");
        if (fs::exists(out) && !fs::is_empty(out)) throw std::runtime_error(out + " exists and is not empty: give a new folder");
        const std::string scratch = fs::temp_directory_path().string() + "/lab-release-" + std::to_string(getpid()) + ".log";
        const auto registry = lab::Registry::load(root + "/rungs.json");

        // 1. The files.
        int copied = 0;
        for (const std::string& file : tracked_files(root, scratch)) {
            if (withheld(file) || !fs::exists(root + "/" + file)) continue;
            fs::create_directories(fs::path(out + "/" + file).parent_path());
            fs::copy_file(root + "/" + file, out + "/" + file, fs::copy_options::overwrite_existing);
            ++copied;
        }
        write_file(out + "/README.md", student_readme(registry));
        write_file(out + "/.ci/run", kStudentCi);
        fs::permissions(out + "/.ci/run", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
        std::string commit;
        if (run({"git", "-C", root, "rev-parse", "HEAD"}, scratch) == 0) commit = trimmed(lab::read_file(scratch));
        write_file(out + "/.lab-release",
                   "{\"released_from\": \"" + commit + "\", \"note\": \"a student release of the kit: ./lab refuses the instructor's commands here\"}\n");
        std::cout << "lab-release: " << copied << " files of the kit, a student README, .ci/run and .lab-release in " << out << '\n';

        // 2. No line of a solution region anywhere in OUT, but those the exercise itself shows.
        std::map<std::string, std::string> leaked_from;  // line -> solution file
        std::map<std::string, std::string> rung_of;      // line -> the rung's number whose solution it is (the first)
        // A line that this rung's exercise, or an earlier one's, shows as it is tells nothing: rung 12's
        // `__syncthreads();` is in every exercise from rung 01 on. A later exercise does not count: it
        // starts from this rung's answers.
        std::set<std::string> shown;
        for (const auto& rung : registry.rungs()) {
            const std::string solution = "solutions/" + rung.id + ".cu";
            const auto skeleton = lab::make_skeleton(lab::read_file(root + "/" + solution), solution, rung.number);
            std::istringstream lines(skeleton.text);
            for (std::string line; std::getline(lines, line);) shown.insert(trimmed(line));
            for (const std::string& line : skeleton.solution_lines)
                if (const std::string t = trimmed(line); t.size() >= 4 && !shown.count(t) && !leaked_from.count(t)) {
                    leaked_from[t] = solution;
                    rung_of[t] = rung.number;
                }
        }
        // The ladder hands each answer forward: rung NN's exercise starts from the code rungs before it
        // asked for (rung 05 is rung 04 with a new last warp). A line of an earlier rung's solution in a
        // later rung's exercise is that, and is counted; anywhere else it is a leak.
        std::vector<std::string> leaks;
        int handed_forward = 0;
        for (const auto& entry : fs::recursive_directory_iterator(out)) {
            if (!entry.is_regular_file() || entry.path().string().find("/.git/") != std::string::npos) continue;
            const std::string relative = fs::relative(entry.path(), out).string();
            const bool exercise = relative.rfind("exercises/", 0) == 0 && relative.size() > 12;
            std::istringstream text(lab::read_file(entry.path().string()));
            int number = 0;
            for (std::string line; std::getline(text, line);) {
                ++number;
                const auto hit = leaked_from.find(trimmed(line));
                if (hit == leaked_from.end()) continue;
                if (exercise && relative.substr(10, 2) > rung_of.at(hit->first)) {
                    ++handed_forward;
                    continue;
                }
                leaks.push_back(relative + ":" + std::to_string(number) + ": a line of " + hit->second + "'s solution: " + hit->first);
            }
        }
        if (!leaks.empty()) {
            std::cerr << "lab-release: FAILED: " << leaks.size() << " line(s) of the solutions are in " << out << ":\n";
            for (const std::string& l : leaks) std::cerr << "  " << l << '\n';
            return 1;
        }
        std::cout << "lab-release: none of the " << leaked_from.size() << " solution lines is in " << out << ", but " << handed_forward
                  << " that later rungs' exercises start from (the ladder hands each rung's answer to the next)\n";

        // 3. A repository with no history but this.
        if (run({"git", "-C", out, "init", "-q", "-b", "main"}, scratch) != 0 || run({"git", "-C", out, "add", "-A"}, scratch) != 0 ||
            run({"git", "-C", out, "-c", "user.name=lab release", "-c", "user.email=lab-release@localhost", "commit", "-q", "-m",
                 "The CUDA reduction lab: the exercises"},
                scratch) != 0)
            throw std::runtime_error("git could not make the repository: " + lab::read_file(scratch));
        std::cout << "lab-release: a fresh git repository, one commit\n";

        // 4. Its ./lab test builds, and every rung fails with its TODO list.
        if (build_check) {
            const std::string log = out + ".test.log";
            std::cout << "lab-release: running ./lab test in " << out << " (builds the exercises; its log: " << log << ")\n" << std::flush;
            const int code = run({out + "/lab", "test"}, log, out);
            const std::string said = lab::read_file(log);
            // Every kernel case of every rung failed (the summary's table), each with the rung's TODO
            // list (the JUnit results ./lab test leaves in the tree it built).
            std::string results;  // build/TREE/results_NN.xml, one per rung
            if (fs::exists(out + "/build"))
                for (const auto& tree : fs::directory_iterator(out + "/build"))
                    if (tree.is_directory())
                        for (const auto& file : fs::directory_iterator(tree.path()))
                            if (file.path().filename().string().rfind("results_", 0) == 0 && file.path().extension() == ".xml")
                                results += lab::read_file(file.path().string());
            std::vector<std::string> wrong;
            if (code == 0) wrong.push_back("./lab test passed on the untouched exercises");
            if (results.empty()) wrong.push_back("no test results were written (nothing was built?)");
            for (const auto& rung : registry.rungs()) {
                const std::regex all_failed("(^|\n)" + rung.id + " +[0-9]+ failed(, [0-9]+ skipped)? {2,}");
                if (!std::regex_search(said, all_failed)) wrong.push_back("rung " + rung.id + ": not every kernel case failed");
                const std::string solution = "solutions/" + rung.id + ".cu";
                for (const std::string& name : lab::make_skeleton(lab::read_file(root + "/" + solution), solution, rung.number).todo_names)
                    if (results.find("TODO(" + name + ",") == std::string::npos)
                        wrong.push_back("rung " + rung.id + ": its failures do not list TODO(" + name + ")");
            }
            if (!wrong.empty()) {
                std::cerr << "lab-release: FAILED: ./lab test in the release:\n";
                for (const std::string& w : wrong) std::cerr << "  " << w << '\n';
                std::cerr << "  its output is in " << log << '\n';
                return 1;
            }
            // The build left nothing for git to see.
            run({"git", "-C", out, "status", "--porcelain"}, scratch);
            if (!trimmed(lab::read_file(scratch)).empty())
                std::cerr << "lab-release: note: ./lab test left files git would see:\n" << lab::read_file(scratch);
            std::cout << "lab-release: ./lab test built the exercises and failed every rung with its TODO list\n";
        }
        fs::remove(scratch);
        std::cout << "lab-release: done: push " << out << " as the students' starting repository\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "lab-release: " << e.what() << '\n';
        return 2;
    }
}
