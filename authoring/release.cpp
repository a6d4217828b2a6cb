// Instructor side. lab-release OUT [--through NN] [--root KIT] [--skip-build-check]: writes the
// students' repository of the kit, rungs 01 to NN (every rung without --through) (./lab release;
// handouts/instructor_guide.md, "Release the kit to students").
//   - Only what git tracks, less what students must not have (withheld()), less what belongs to a
//     later rung (its exercise, its hints' code, its handout and figures); rungs.json,
//     exercises/.generated and the student README name the released rungs only. A student README
//     and a .ci/run that runs the student's tests; the marker .lab-release, which makes ./lab refuse
//     the instructor's commands there and says which rungs are out.
//   - A fresh git repository with one commit. Given an OUT that is a release through an earlier
//     rung, it adds the next rungs as one more commit, which touches none of the files students
//     edit (the released exercises, exercises/hints_used.json): a student's `git pull` keeps their
//     work.
//   - Checked: no answer line of any TODO of the released rungs anywhere in OUT (a line that an
//     exercise of that rung or an earlier one shows as given code, such as `__syncthreads();`, is no
//     answer); the hints' code level (exercises/.hints/, base64) is the one place answers are, as
//     asked. Then, in a clone outside OUT, that ./lab test builds and fails every released rung with
//     its TODO list. Nothing but the release is left in OUT, nor anything beside it.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
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
    // Of handouts/, not the instructor guide (the answers to the handouts' questions).
    static const std::vector<std::string> prefixes = {"solutions/", "grader/corpus/", "grader/batch/", "grader/ci/", "grader/tests/",
                                                      "grader/schemas/", "authoring/skeleton.", "authoring/dictation.", "tests/kit/",
                                                      "tests/emulator/", "tests/constructs/", ".ci/"};
    static const std::set<std::string> files = {"tests/mutants.json", "README.md", "grader/README.md", "grader/DEVELOPING.md",
                                                "grader/hidden_cases.json", "grader/rubric.toml", "grader/corpus_check.cpp",
                                                "authoring/README.md", "authoring/generate.cpp", "authoring/release.cpp",
                                                "authoring/plot_bench.py", "authoring/plot_rows.py", "handouts/instructor_guide.md",
                                                "handouts/benchmark/grading_performance.md", "exercises/hints_used.json"};
    if (files.count(path)) return true;
    if (path.rfind("handouts/instructor/", 0) == 0) return true;  // the answers to the handouts' questions
    for (const std::string& p : prefixes)
        if (path.rfind(p, 0) == 0) return true;
    return false;
}

// The rung a file belongs to ("05") when it is one rung's exercise, hints' code, handout or figure;
// "" for a file every rung shares.
std::string rung_of_file(const std::string& path)
{
    for (const std::string folder : {"exercises/.hints/", "exercises/", "handouts/figures/", "handouts/"}) {
        if (path.rfind(folder, 0) != 0) continue;
        const std::string name = path.substr(folder.size());
        if (name.find('/') == std::string::npos && name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
            std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '_')
            return name.substr(0, 2);
        return "";
    }
    return "";
}

std::string student_readme(const std::vector<const lab::RungInfo*>& released, const lab::Registry& registry)
{
    std::ostringstream out;
    out << "# CUDA reduction lab\n\n"
        << "A ladder of parallel reduction kernels in CUDA, from the naive interleaved tree to the fast versions. Each\n"
        << "rung is one file, `exercises/NN_name.cu`, with gaps marked `// TODO(NN-name, ~N lines): what must become\n"
        << "true, and why`; `handouts/NN_name.md` explains the idea behind it.\n\n"
        << "## Two commands\n\n```sh\n"
        << "./lab check         # build the rung you are on and check it: small cases first, in seconds, and what to fix\n"
        << "./lab test          # build your exercises and run every rung's tests (what your CI runs)\n"
        << "```\n\n"
        << "And: `./lab status` (how far up the ladder you are), `./lab watch` (checks again on every save),\n"
        << "`./lab hint` (the next hint for the TODO you are on: the concept, then the shape, then the code; it records\n"
        << "what you saw in `exercises/hints_used.json`, which you commit: your instructor sees it), `./lab check NN\n"
        << "--case NAME` (one case alone), `./lab bench NN` (your rung's speed, on a GPU), `./lab list`. `ctest\n"
        << "--preset exercises -L ex03` runs rung 03's tests through CTest once they are built.\n\n"
        << "Both set up what they need on a fresh Debian or Ubuntu machine (as root they install the missing\n"
        << "packages; otherwise they print the `apt-get install` line). Without a GPU every kernel runs on the kit's\n"
        << "CPU backend (`cpu_backend/CPU_BACKEND.md`), which also catches what a GPU would get silently wrong.\n\n"
        << "While a rung's TODO lines are there, its tests list them instead of running your kernel: replace each\n"
        << "stub with your code and delete the TODO line. A failing case names the input (`float_n1025_b256`), the first\n"
        << "wrong block, what was expected and what came back, the likely cause and the TODO it points to, and the\n"
        << "seed that reproduces it. `./lab replay ...` runs one case of a grading report on your file.\n\n"
        << "## The rungs\n\n| Rung | Technique | You write | Handout |\n|---|---|---|---|\n";
    for (const auto* rung : released)
        out << "| " << rung->number << " | " << rung->title << " | " << rung->practises << " | [" << rung->id << "](handouts/"
            << rung->id << ".md) |\n";
    if (released.size() < registry.rungs().size())
        out << "\nRungs " << registry.rungs()[released.size()].number << " to " << registry.rungs().back().number
            << " come later: `git pull` brings them beside your work, and changes none of your files.\n";
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

// A page of the release with its links to what the release lacks (a later rung's handout, the
// instructor guide) made plain text, and its pictures of such files left out: every link a student
// follows leads somewhere. `page` is the page's path in the release; `released`, every file in it.
std::string without_dead_links(const std::string& page, const std::string& text, const std::map<std::string, std::string>& released)
{
    static const std::regex link(R"((!?)\[([^\]]*)\]\(([^)\s]+)\))");
    const fs::path folder = fs::path(page).parent_path();
    std::string out;
    auto from = text.cbegin();
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
        const std::smatch& m = *it;
        const std::string target = m[3].str().substr(0, m[3].str().find('#'));
        const bool elsewhere = target.empty() || target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0;
        const std::string inside = (folder / target).lexically_normal().generic_string();
        const auto under = released.lower_bound(inside + "/");  // the first file in it, when it is a folder
        const bool present = elsewhere || released.count(inside) > 0 ||
                             (under != released.end() && under->first.rfind(inside + "/", 0) == 0);
        out.append(from, m[0].first);
        out += present ? m[0].str() : m[1].str().empty() ? m[2].str() : "";
        from = m[0].second;
    }
    out.append(from, text.cend());
    return out;
}

// rungs.json with the released rungs only.
std::string released_registry(const std::string& text, const std::string& through)
{
    auto doc = nlohmann::ordered_json::parse(text);
    auto& rungs = doc.at("rungs");
    nlohmann::ordered_json kept = nlohmann::ordered_json::array();
    for (const auto& r : rungs)
        if (r.at("id").get<std::string>().substr(0, 2) <= through) kept.push_back(r);
    rungs = kept;
    return doc.dump(2, ' ', false) + "\n";
}

// exercises/.generated with the lines of the rungs up to `through`; `before` (an earlier release's
// file) keeps its lines for the rungs it released.
std::string released_stamps(const std::string& text, const std::string& through, const std::string& before = "",
                            const std::string& before_through = "")
{
    std::istringstream lines(text), old(before);
    std::map<std::string, std::string> by_name;  // "NN_name.cu" -> its line
    std::string header;
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] == '#') {
            header += line + "\n";
            continue;
        }
        if (line.size() > 20 && line.substr(18, 2) <= through) by_name[line.substr(18)] = line;
    }
    for (std::string line; std::getline(old, line);)
        if (!line.empty() && line[0] != '#' && line.size() > 20 && line.substr(18, 2) <= before_through)
            by_name[line.substr(18)] = line;
    std::string out = header;
    for (const auto& [name, line] : by_name) out += line + "\n";
    return out;
}

struct Answer {
    std::string todo, rung;
};

// Every answer line of the TODOs of the rungs up to `through`, trimmed: a line of a region's code,
// of four characters or more, that no exercise of its rung or an earlier one shows outside a TODO.
// A preprocessor line (05's `#pragma unroll`) answers nothing, and the kit's own headers have them.
std::map<std::string, Answer> answer_lines(const std::string& root, const lab::Registry& registry, const std::string& through)
{
    std::map<std::string, Answer> answers;
    std::set<std::string> shown;
    for (const auto& rung : registry.rungs()) {
        if (rung.number > through) break;
        const std::string solution = "solutions/" + rung.id + ".cu";
        const auto skeleton = lab::make_skeleton(lab::read_file(root + "/" + solution), solution, rung.number);
        std::istringstream lines(skeleton.text);
        for (std::string line; std::getline(lines, line);) shown.insert(trimmed(line));
        for (const auto& todo : skeleton.todos) {
            std::istringstream code(todo.code);
            for (std::string line; std::getline(code, line);)
                if (const std::string t = trimmed(line); t.size() >= 4 && t[0] != '#' && !shown.count(t) && !answers.count(t))
                    answers[t] = {todo.name, rung.number};
        }
    }
    return answers;
}

// Each line of a file under `out` (but .git/) that is an answer line: "path:line: ...".
std::vector<std::string> leaks_in(const std::string& out, const std::map<std::string, Answer>& answers)
{
    std::vector<std::string> leaks;
    for (const auto& entry : fs::recursive_directory_iterator(out)) {
        if (!entry.is_regular_file()) continue;
        const std::string relative = fs::relative(entry.path(), out).generic_string();
        if (relative.rfind(".git/", 0) == 0) continue;
        std::istringstream text(lab::read_file(entry.path().string()));
        int number = 0;
        for (std::string line; std::getline(text, line);) {
            ++number;
            const auto hit = answers.find(trimmed(line));
            if (hit != answers.end())
                leaks.push_back(relative + ":" + std::to_string(number) + ": an answer line of TODO " + hit->second.todo + " (rung " +
                                hit->second.rung + "): " + hit->first);
        }
    }
    return leaks;
}

// The rung OUT's release goes up to, from its .lab-release ("" when OUT is no release); a release
// written before staged releases holds every rung.
std::string released_through(const std::string& out, const lab::Registry& registry)
{
    const auto text = lab::try_read_file(out + "/.lab-release");
    if (!text) return "";
    const auto doc = nlohmann::json::parse(*text, nullptr, false);
    if (doc.is_object() && doc.contains("through") && doc["through"].is_string()) return doc["through"].get<std::string>();
    return registry.rungs().back().number;
}

// ./lab test in a clone of OUT made outside it: it builds and fails every released rung, each with
// its TODO list. The clone goes when done; its log stays only on failure, and says where. The clone
// lies in the kit's build/ where there is one: the compiler cache finds there what the kit's own
// trees compiled (paths under the kit are hashed relative to it, cli/kit.cpp).
bool build_check(const std::string& out, const std::string& root, const std::vector<const lab::RungInfo*>& released,
                 const std::string& scratch)
{
    const std::string folder = fs::is_directory(root + "/build") ? root + "/build" : fs::temp_directory_path().string();
    const std::string base = folder + "/lab-release-check-" + std::to_string(getpid());
    const std::string clone = base + "/students", log = base + ".log";
    fs::remove_all(base);
    fs::create_directories(base);
    if (run({"git", "clone", "-q", out, clone}, scratch) != 0) {
        fs::remove_all(base);
        throw std::runtime_error("git could not clone the release for its check: " + lab::read_file(scratch));
    }
    std::cout << "lab-release: running ./lab test in a clone of the release (it builds the exercises)\n" << std::flush;
    const int code = run({clone + "/lab", "test"}, log, clone);
    const std::string said = lab::read_file(log);
    // Every kernel case of every rung failed (the summary's table), each with the rung's TODO list
    // (the JUnit results ./lab test leaves in the tree it built).
    std::string results;  // build/TREE/results_NN.xml, one per rung
    if (fs::exists(clone + "/build"))
        for (const auto& tree : fs::directory_iterator(clone + "/build"))
            if (tree.is_directory())
                for (const auto& file : fs::directory_iterator(tree.path()))
                    if (file.path().filename().string().rfind("results_", 0) == 0 && file.path().extension() == ".xml")
                        results += lab::read_file(file.path().string());
    std::vector<std::string> wrong;
    if (code == 0) wrong.push_back("./lab test passed on the untouched exercises");
    if (results.empty()) wrong.push_back("no test results were written (nothing was built?)");
    for (const auto* rung : released) {
        const std::regex all_failed("(^|\n)" + rung->id + " +[0-9]+ failed(, [0-9]+ skipped)? {2,}");
        if (!std::regex_search(said, all_failed)) wrong.push_back("rung " + rung->id + ": not every kernel case failed");
        const std::string solution = "solutions/" + rung->id + ".cu";
        for (const std::string& name : lab::make_skeleton(lab::read_file(root + "/" + solution), solution, rung->number).todo_names)
            if (results.find("TODO(" + name + ",") == std::string::npos)
                wrong.push_back("rung " + rung->id + ": its failures do not list TODO(" + name + ")");
    }
    fs::remove_all(base);
    if (!wrong.empty()) {
        std::cerr << "lab-release: FAILED: ./lab test in the release:\n";
        for (const std::string& w : wrong) std::cerr << "  " << w << '\n';
        std::cerr << "  its output is in " << log << '\n';
        return false;
    }
    fs::remove(log);
    return true;
}

}  // namespace

int main(int argc, char** argv)
{
    std::string root = LAB_SOURCE_DIR, out, through_key;
    bool skip_build_check = false;
    CLI::App app{"lab-release: the students' repository of the kit, rungs 01 to NN, or the next rungs added to it"};
    app.add_option("out", out, "the new folder, or a release of the kit to add rungs to")->required();
    app.add_option("--through", through_key, "the last rung released (05, 5 or 05_unroll_last_warp); every rung when not given");
    app.add_option("--root", root, "the instructor's kit")->capture_default_str();
    app.add_flag("--skip-build-check", skip_build_check, "do not build the release's exercises to check it");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return e.get_exit_code() == 0 ? 0 : 2;
    }
    try {
        out = fs::absolute(out).lexically_normal().string();
        while (out.size() > 1 && out.back() == '/') out.pop_back();
        if (fs::exists(root + "/.lab-release")) throw std::runtime_error(root + " is a student release itself: release from the instructor's kit");
        const auto registry = lab::Registry::load(root + "/rungs.json");
        const std::string through = (through_key.empty() ? registry.rungs().back() : registry.get(through_key)).number;
        std::vector<const lab::RungInfo*> released;
        for (const auto& rung : registry.rungs())
            if (rung.number <= through) released.push_back(&rung);

        // A new release, or the next rungs of an existing one.
        const std::string scratch = fs::temp_directory_path().string() + "/lab-release-" + std::to_string(getpid()) + ".log";
        const struct Gone {
            std::string path;
            ~Gone()
            {
                std::error_code ignored;
                fs::remove(path, ignored);
            }
        } scratch_goes{scratch};
        std::string before;  // the rung an existing release goes up to
        if (fs::exists(out) && !fs::is_empty(out)) {
            before = released_through(out, registry);
            if (before.empty())
                throw std::runtime_error(out + " exists, is not empty and is no release of the kit: give a new folder, or a release to add rungs to");
            if (through <= before) {
                std::cerr << "lab-release: " << out << " holds rungs 01 to " << before << " already: --through names a later rung "
                          << "to add (a release never takes a rung back)\n";
                return 2;
            }
            if (run({"git", "-C", out, "status", "--porcelain"}, scratch) != 0 || !trimmed(lab::read_file(scratch)).empty())
                throw std::runtime_error(out + " has changes git has not committed (or is no git repository): commit or "
                                               "remove them first, since the next rungs go in as one commit of their own:\n" +
                                         lab::read_file(scratch));
        }

        // 1. The files: what git tracks, less what students must not have and what later rungs bring.
        std::map<std::string, std::string> files;  // relative path -> contents
        std::set<std::string> executable;          // of those, the programs (./lab, the kit's scripts)
        for (const std::string& file : tracked_files(root, scratch)) {
            if (withheld(file) || !fs::is_regular_file(root + "/" + file)) continue;
            const std::string rung = rung_of_file(file);
            if (!rung.empty() && rung > through) continue;
            files[file] = lab::read_file(root + "/" + file);
            if ((fs::status(root + "/" + file).permissions() & fs::perms::owner_exec) != fs::perms::none) executable.insert(file);
        }
        files["rungs.json"] = released_registry(files.at("rungs.json"), through);
        files["exercises/.generated"] = released_stamps(files.at("exercises/.generated"), through,
                                                        before.empty() ? "" : lab::read_file(out + "/exercises/.generated"), before);
        files["README.md"] = student_readme(released, registry);
        files[".ci/run"] = kStudentCi;
        executable.insert(".ci/run");
        for (auto& [file, text] : files)
            if (file.size() > 3 && file.compare(file.size() - 3, 3, ".md") == 0) text = without_dead_links(file, text, files);
        std::string commit;
        if (run({"git", "-C", root, "rev-parse", "HEAD"}, scratch) == 0) commit = trimmed(lab::read_file(scratch));
        files[".lab-release"] = "{\"released_from\": \"" + commit + "\", \"through\": \"" + through +
                                "\", \"note\": \"a student release of the kit, rungs 01 to " + through +
                                ": ./lab refuses the instructor's commands here\"}\n";

        // 2. Written into OUT. Adding rungs, the files students edit stay as they are: the released
        // exercises, and the record of hints they saw.
        std::set<std::string> students_own;
        if (!before.empty()) {
            students_own.insert("exercises/hints_used.json");
            for (const auto* rung : released)
                if (rung->number <= before) {
                    const std::string file = "exercises/" + rung->id + ".cu";
                    students_own.insert(file);
                    if (lab::read_file(out + "/" + file) != files[file])
                        std::cout << "lab-release: note: the kit's " << file << " is no longer the one released; the release "
                                  << "keeps the one students have (and may have edited)\n";
                }
            // What the release tracks that this one no longer has goes, but the students' own files.
            for (const std::string& file : tracked_files(out, scratch))
                if (!files.count(file) && !students_own.count(file)) fs::remove(out + "/" + file);
        }
        int written = 0;
        for (const auto& [file, text] : files) {
            if (students_own.count(file)) continue;
            write_file(out + "/" + file, text);
            if (executable.count(file))
                fs::permissions(out + "/" + file, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                                fs::perm_options::add);
            ++written;
        }
        std::cout << "lab-release: rungs 01 to " << through << (before.empty() ? "" : " (" + before + " released already)") << ": "
                  << written << " files in " << out << '\n';

        // 3. No answer line of the released rungs' TODOs anywhere in OUT.
        const auto answers = answer_lines(root, registry, through);
        const auto leaks = leaks_in(out, answers);
        if (!leaks.empty()) {
            std::cerr << "lab-release: FAILED: " << leaks.size() << " answer line(s) of the released rungs are in " << out << ":\n";
            for (const std::string& l : leaks) std::cerr << "  " << l << '\n';
            std::cerr << "Nothing was committed" << (before.empty() ? ": remove " + out + " before releasing again" : "") << ".\n";
            return 1;
        }
        std::cout << "lab-release: none of the " << answers.size() << " answer lines of rungs 01 to " << through << " is in " << out
                  << " (the hints' code level holds them, base64, in exercises/.hints/)\n";

        // 4. The repository: a fresh one, or one more commit that touches no file of the students'.
        if (before.empty()) {
            if (run({"git", "-C", out, "init", "-q", "-b", "main"}, scratch) != 0 || run({"git", "-C", out, "add", "-A"}, scratch) != 0 ||
                run({"git", "-C", out, "-c", "user.name=lab release", "-c", "user.email=lab-release@localhost", "commit", "-q", "-m",
                     "The CUDA reduction lab: rungs 01 to " + through},
                    scratch) != 0)
                throw std::runtime_error("git could not make the repository: " + lab::read_file(scratch));
            std::cout << "lab-release: a fresh git repository, one commit\n";
        } else {
            if (run({"git", "-C", out, "add", "-A"}, scratch) != 0 ||
                run({"git", "-C", out, "diff", "--cached", "--name-only", "-z"}, scratch) != 0)
                throw std::runtime_error("git could not stage the new rungs: " + lab::read_file(scratch));
            std::stringstream changed(lab::read_file(scratch));
            for (std::string file; std::getline(changed, file, '\0');)
                if (students_own.count(file))
                    throw std::runtime_error("the new commit would change " + file + ", which students edit");
            const std::string first_new = registry.rungs()[static_cast<std::size_t>(std::stoi(before))].number;
            if (run({"git", "-C", out, "-c", "user.name=lab release", "-c", "user.email=lab-release@localhost", "commit", "-q", "-m",
                     "Rungs " + first_new + " to " + through + " of the CUDA reduction lab"},
                    scratch) != 0)
                throw std::runtime_error("git could not commit the new rungs: " + lab::read_file(scratch));
            std::cout << "lab-release: rungs " << first_new << " to " << through << " added as one commit; no file students edit changed\n";
        }

        // 5. Its ./lab test builds, and every released rung fails with its TODO list.
        if (!skip_build_check) {
            if (!build_check(out, root, released, scratch)) return 1;
            std::cout << "lab-release: ./lab test built the exercises and failed every released rung with its TODO list\n";
        }
        std::cout << "lab-release: done: push " << out << " to the students' repository\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "lab-release: " << e.what() << '\n';
        return 2;
    }
}
