// The `./lab` program (cli/): its commands read the registry with the kit's own reader, and a bad
// command, rung or option gets a message and exit status 2. Runs the built program itself.
#include <gtest/gtest.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "lab/hints.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/todos.hpp"

namespace {

struct Ran {
    int status;
    std::string output;
};

// A student's state (.lab: hints shown, verdicts) of this test program's own, never the kit's.
std::string state_dir()
{
    static const std::string dir = [] {
        char name[] = "/tmp/lab-cli-state-XXXXXX";
        return std::string(mkdtemp(name));
    }();
    return dir;
}

Ran lab_cli(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& environment = {})
{
    char name[] = "/tmp/lab-cli-test-XXXXXX";
    const int fd = mkstemp(name);
    close(fd);
    std::vector<std::string> argv{LAB_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    lab::process::Options options;
    options.output = name;
    options.environment = {{"LAB_STATE", state_dir()}, {"LAB_HINTS_RECORD", state_dir() + "/hints_used.json"}};
    options.environment.insert(options.environment.end(), environment.begin(), environment.end());
    Ran ran;
    ran.status = lab::process::run(argv, options);
    std::ifstream in(name);
    std::stringstream text;
    text << in.rdbuf();
    ran.output = text.str();
    std::filesystem::remove(name);
    return ran;
}

TEST(Cli, ListPrintsEveryRungOfTheRegistryInOrder)
{
    const Ran ran = lab_cli({"list"});
    ASSERT_EQ(ran.status, 0) << ran.output;
    std::istringstream lines(ran.output);
    std::string line;
    for (const lab::RungInfo& rung : lab::Registry::kit().rungs()) {
        ASSERT_TRUE(std::getline(lines, line)) << "no line for " << rung.id << " in:\n" << ran.output;
        EXPECT_EQ(line.rfind(rung.number + "  " + rung.title, 0), 0u) << line;
        EXPECT_NE(line.find("you write: " + rung.practises), std::string::npos) << line;
    }
    EXPECT_FALSE(std::getline(lines, line)) << "a line for no rung: " << line;
}

TEST(Cli, ListIdsPrintsTheFullNamesOnly)
{
    const Ran ran = lab_cli({"list", "--ids"});
    ASSERT_EQ(ran.status, 0) << ran.output;
    std::string expected;
    for (const lab::RungInfo& rung : lab::Registry::kit().rungs()) expected += rung.id + "\n";
    EXPECT_EQ(ran.output, expected);
}

// The words of `text`, one space between each: the CLI wraps its hints at 100 columns.
std::string words(const std::string& text)
{
    std::istringstream in(text);
    std::string out, word;
    while (in >> word) out += (out.empty() ? "" : " ") + word;
    return out;
}

void forget_hints()
{
    std::filesystem::remove(state_dir() + "/progress/hints.json");
    std::filesystem::remove(state_dir() + "/hints_used.json");
}

TEST(Cli, HintTakesARungOrATodo)
{
    const lab::RungInfo& rung = lab::Registry::kit().get("05");
    for (const std::string& key : std::vector<std::string>{"05", "5", rung.id, "05-warp-unroll"}) {
        const Ran ran = lab_cli({"hint", key, "--level", "1"});
        ASSERT_EQ(ran.status, 0) << ran.output;
        EXPECT_EQ(ran.output.rfind(rung.id + ": " + rung.title, 0), 0u) << ran.output;
        EXPECT_NE(ran.output.find(key == "05-warp-unroll" ? "TODO 05-warp-unroll (~6 lines), hint 1 of 3 (the concept)"
                                                          : "TODO 05-load (~4 lines), hint 1 of 3 (the concept)"),
                  std::string::npos)
            << ran.output;
    }
    const Ran bad = lab_cli({"hint", "05", "--level", "4"});
    EXPECT_EQ(bad.status, 2) << bad.output;
    EXPECT_NE(bad.output.find("--level takes 1 (the concept), 2 (the shape) or 3 (the code)"), std::string::npos) << bad.output;
}

// Each call one level further on the first TODO still open (the untouched exercise's, in its order),
// then the next; --all shows again what was seen; the record holds the deepest level per TODO, in the
// tracked file and in .lab/progress.
TEST(Cli, HintGoesOneLevelFurtherEachTime)
{
    forget_hints();
    const lab::RungInfo& rung = lab::Registry::kit().get("07");
    const auto open = lab::find_todos(lab::kit_path("exercises/" + rung.id + ".cu"));
    ASSERT_EQ(open.size(), 3u);
    const auto* grid_stride = rung.hints_for("07-grid-stride");
    ASSERT_TRUE(grid_stride);
    for (const auto& todo : open)
        for (int level = 1; level <= 3; ++level) {
            const Ran ran = lab_cli({"hint", "07"});
            ASSERT_EQ(ran.status, 0) << ran.output;
            EXPECT_NE(ran.output.find("TODO " + todo.name + " (~"), std::string::npos) << level << ":\n" << ran.output;
            EXPECT_NE(ran.output.find("hint " + std::to_string(level) + " of 3"), std::string::npos) << ran.output;
            if (todo.name == "07-grid-stride" && level < 3)
                EXPECT_NE(words(ran.output).find(words(level == 1 ? grid_stride->idea : grid_stride->shape)), std::string::npos)
                    << ran.output;
            if (todo.name == "07-grid-stride" && level == 3)
                EXPECT_NE(ran.output.find("for (; i + stride < n; i += 2 * stride) sum += in[i] + in[i + stride];"),
                          std::string::npos)
                    << ran.output;
            if (todo.name == "07-tree" && level == 1)
                EXPECT_NE(words(ran.output).find("copy yours over from exercises/05_unroll_last_warp.cu"), std::string::npos)
                    << ran.output;
        }
    const Ran done = lab_cli({"hint", "07"});
    EXPECT_NE(done.output.find("Every hint of its open TODOs is shown already"), std::string::npos) << done.output;
    const Ran all = lab_cli({"hint", "07", "--all"});
    for (const auto& todo : open)
        for (int level = 1; level <= 3; ++level)
            EXPECT_NE(all.output.find("TODO " + todo.name + ", hint " + std::to_string(level) + " of 3"), std::string::npos)
                << all.output;
    std::ifstream record(state_dir() + "/hints_used.json");
    std::stringstream text;
    text << record.rdbuf();
    const auto levels = lab::parse_hints_record(text.str());
    ASSERT_TRUE(levels) << text.str();
    EXPECT_EQ(*levels, (lab::HintLevels{{"07-shared-decl", 3}, {"07-grid-stride", 3}, {"07-tree", 3}}));
    // --level picks one; the record keeps the deepest, in .lab/progress too.
    ASSERT_EQ(lab_cli({"hint", "07-grid-stride", "--level", "1"}).status, 0);
    const Ran two = lab_cli({"hint", "08", "--level", "2"});
    EXPECT_NE(two.output.find("TODO 08-warp-reduce (~1 line), hint 2 of 3 (the shape)"), std::string::npos) << two.output;
    std::ifstream kept(state_dir() + "/progress/hints.json");
    std::stringstream kept_text;
    kept_text << kept.rdbuf();
    EXPECT_EQ(lab::parse_hints_record(kept_text.str()),
              (lab::HintLevels{{"07-shared-decl", 3}, {"07-grid-stride", 3}, {"07-tree", 3}, {"08-warp-reduce", 2}}));
    // Without a rung: the first one not done (the untouched kit's: 01).
    const Ran current = lab_cli({"hint"});
    EXPECT_EQ(current.output.rfind(lab::Registry::kit().rungs().front().id + ": ", 0), 0u) << current.output;
    forget_hints();
}

// A student who deleted every TODO line of a rung and asks for its hint is asked which TODO: the
// kit cannot tell which one is wrong, so it shows no hint of its own choosing, and records none.
TEST(Cli, HintAsksWhichTodoWhenNoTodoLineIsLeft)
{
    namespace fs = std::filesystem;
    forget_hints();
    const std::string root = state_dir() + "/kit-without-todos";
    fs::remove_all(root);
    fs::create_directories(root);
    fs::copy_file(lab::kit_path("rungs.json"), root + "/rungs.json");
    fs::copy(lab::kit_path("exercises"), root + "/exercises", fs::copy_options::recursive);
    const lab::RungInfo& rung = lab::Registry::kit().get("01");
    const std::string file = root + "/exercises/" + rung.id + ".cu";
    std::ifstream in(file);
    std::string kept, line;
    while (std::getline(in, line))
        if (line.find("// TODO(") == std::string::npos) kept += line + "\n";
    in.close();
    std::ofstream(file) << kept;
    const Ran ran = lab_cli({"hint", "01"}, {{"LAB_ROOT", root}});
    ASSERT_EQ(ran.status, 0) << ran.output;
    EXPECT_NE(ran.output.find("No TODO line is left in exercises/" + rung.id + ".cu"), std::string::npos) << ran.output;
    for (const auto& todo : lab::read_hint_code(lab::hint_code_path(lab::kit_root(), rung.id)))
        EXPECT_NE(ran.output.find("./lab hint " + todo.todo), std::string::npos) << ran.output;
    EXPECT_EQ(ran.output.find("hint 1 of 3"), std::string::npos) << "a hint of the kit's choosing:\n" << ran.output;
    EXPECT_FALSE(fs::exists(state_dir() + "/hints_used.json")) << "a hint recorded though none was asked for";
    // Named, its hint comes as ever.
    const Ran named = lab_cli({"hint", "01-loop-cond"}, {{"LAB_ROOT", root}});
    EXPECT_NE(named.output.find("TODO 01-loop-cond (~"), std::string::npos) << named.output;
    fs::remove_all(root);
    forget_hints();
}

// A record a student mangled is no record: ./lab hint starts afresh and writes a good one.
TEST(Cli, HintSurvivesAMangledRecord)
{
    forget_hints();
    std::ofstream(state_dir() + "/hints_used.json") << "{\"levels\": {\"01-padding\": 7}";
    const Ran ran = lab_cli({"hint", "01-padding"});
    ASSERT_EQ(ran.status, 0) << ran.output;
    EXPECT_NE(ran.output.find("hint 1 of 3"), std::string::npos) << ran.output;
    std::ifstream record(state_dir() + "/hints_used.json");
    std::stringstream text;
    text << record.rdbuf();
    EXPECT_EQ(lab::parse_hints_record(text.str()), (lab::HintLevels{{"01-padding", 1}})) << text.str();
    forget_hints();
}

// Every TODO of every rung has its three levels, each with something to say; the third is the code
// of the TODO's region in the reference solution.
TEST(Cli, EveryTodoHasThreeHintLevels)
{
    int todos = 0;
    for (const lab::RungInfo& rung : lab::Registry::kit().rungs())
        for (const auto& code : lab::read_hint_code(lab::hint_code_path(lab::kit_root(), rung.id))) {
            ++todos;
            EXPECT_FALSE(code.code.empty()) << code.todo;
            for (int level = 1; level <= 3; ++level) {
                const Ran ran = lab_cli({"hint", code.todo, "--level", std::to_string(level)});
                ASSERT_EQ(ran.status, 0) << code.todo << " " << level << ": " << ran.output;
                const auto at = ran.output.find("hint " + std::to_string(level) + " of 3");
                ASSERT_NE(at, std::string::npos) << ran.output;
                const std::string body = ran.output.substr(ran.output.find('\n', at) + 1);
                EXPECT_GT(words(body.substr(0, body.find("\nNext:"))).size(), 40u) << code.todo << " level " << level << ":\n" << body;
                if (level == 3) {
                    std::istringstream lines(code.code);
                    for (std::string line; std::getline(lines, line);)
                        if (!line.empty()) EXPECT_NE(body.find("    " + line), std::string::npos) << code.todo << ": " << line;
                }
            }
        }
    EXPECT_GE(todos, 40);
    forget_hints();
}

// The kit as it comes: nothing started, the first rung next.
TEST(Cli, StatusOfTheUntouchedKitIsNothingDone)
{
    const Ran ran = lab_cli({"status", "--no-run"});
    ASSERT_EQ(ran.status, 0) << ran.output;
    const auto& rungs = lab::Registry::kit().rungs();
    EXPECT_EQ(ran.output.find("0 of " + std::to_string(rungs.size()) + " rungs done"), 0u) << ran.output;
    for (const auto& rung : rungs) EXPECT_NE(ran.output.find(rung.id), std::string::npos) << rung.id;
    std::size_t not_started = 0;
    for (std::size_t at = 0; (at = ran.output.find("not started", at)) != std::string::npos; ++at) ++not_started;
    EXPECT_EQ(not_started, rungs.size()) << ran.output;
    EXPECT_NE(ran.output.find("Next: ./lab check " + rungs.front().number), std::string::npos) << ran.output;
}

TEST(Cli, AnUnknownRungNamesTheKnownOnes)
{
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"hint", "99"}, {"test", "99"}, {"check", "99"}, {"watch", "99"}, {"bench", "99"}}) {
        const Ran ran = lab_cli(args);
        EXPECT_EQ(ran.status, 2) << ran.output;
        EXPECT_NE(ran.output.find("no rung called '99'"), std::string::npos) << ran.output;
        EXPECT_NE(ran.output.find(lab::Registry::kit().rungs().back().id), std::string::npos) << ran.output;
    }
}

TEST(Cli, MistakesOnTheCommandLineSayWhatAndExitWith2)
{
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    for (const Case& c : {Case{{"bogus"}, "no command 'bogus'"}, Case{{"watch", "--poll", "--manual"}, "pick one"},
                          Case{{"selftest", "--only", "gpu"}, "gpu not in {cpu,cuda}"}, Case{{"grade"}, "usage: ./lab grade"},
                          Case{{"replay"}, "usage: ./lab replay"}, Case{{}, "Usage: ./lab"}}) {
        const Ran ran = lab_cli(c.args);
        EXPECT_EQ(ran.status, 2) << ran.output;
        EXPECT_NE(ran.output.find(c.says), std::string::npos) << ran.output;
    }
}

// Faults before any build: each one sentence, its fix, exit status 2, nothing built.
TEST(Cli, AMachineThatCannotRunTheKernelsSaysWhyAndExitsWith2)
{
    // A GPU that the driver cannot open: nvidia-smi (a stand-in) lists one, but no driver library
    // opens it here (or, on a GPU machine, CUDA_VISIBLE_DEVICES hides it); without nvcc, the missing
    // toolkit is said first. Each before any build.
    char dir[] = "/tmp/lab-fake-gpu-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string smi = std::string(dir) + "/nvidia-smi";
    std::ofstream(smi) << "#!/bin/sh\necho 'GPU 0: NVIDIA Stand-in (UUID: GPU-0)'\n";
    std::filesystem::permissions(smi, std::filesystem::perms::owner_all);
    const char* path = std::getenv("PATH");
    const std::vector<std::pair<std::string, std::string>> fake_gpu{{"PATH", std::string(dir) + ":" + (path ? path : "")},
                                                                   {"CUDA_VISIBLE_DEVICES", "-1"}};
    const Ran gpu = lab_cli({"run"}, fake_gpu);
    EXPECT_EQ(gpu.status, 2) << gpu.output;
    const bool no_driver = gpu.output.find("nvidia-smi lists a GPU, but the NVIDIA driver's library (libcuda.so.1) cannot be loaded") !=
                           std::string::npos;
    const bool hidden = gpu.output.find("the NVIDIA driver cannot open the GPU that nvidia-smi lists") != std::string::npos;
    const bool no_nvcc = gpu.output.find("the CUDA Toolkit (nvcc) is not installed") != std::string::npos;
    EXPECT_TRUE(no_driver || hidden || no_nvcc) << gpu.output;
    EXPECT_NE(gpu.output.find("LAB_BACKEND=cpu ./lab"), std::string::npos) << "no way forward offered: " << gpu.output;
    EXPECT_EQ(gpu.output.find("building"), std::string::npos) << "it built before saying so: " << gpu.output;
    std::filesystem::remove_all(dir);

    const Ran backend = lab_cli({"run"}, {{"LAB_BACKEND", "tpu"}});
    EXPECT_EQ(backend.status, 2) << backend.output;
    EXPECT_NE(backend.output.find("LAB_BACKEND=tpu is neither cpu, cuda nor auto"), std::string::npos) << backend.output;
}

// A stand-in program in a folder of its own, put first on PATH.
struct StandIn {
    std::string dir;
    StandIn(const std::string& program, const std::string& script)
    {
        char name[] = "/tmp/lab-stand-in-XXXXXX";
        dir = mkdtemp(name);
        const std::string file = dir + "/" + program;
        std::ofstream(file) << "#!/bin/sh\n" << script << "\n";
        std::filesystem::permissions(file, std::filesystem::perms::owner_all);
    }
    StandIn(const StandIn&) = delete;
    StandIn& operator=(const StandIn&) = delete;
    ~StandIn() { std::filesystem::remove_all(dir); }
    std::string path() const
    {
        const char* path = std::getenv("PATH");
        return dir + ":" + (path ? path : "");
    }
};

// The bootstrap, without root (LAB_INSTALL=no stands in for it): a CMake too old is named with its
// version, with the one apt-get line to run, exit status 2, and nothing built.
TEST(Cli, TheBootstrapNamesWhatIsMissingAndBuildsNothing)
{
    const StandIn old_cmake("cmake", "echo 'cmake version 3.22.1'");
    char name[] = "/tmp/lab-bootstrap-XXXXXX";
    const int fd = mkstemp(name);
    close(fd);
    lab::process::Options options;
    options.output = name;
    options.environment = {{"PATH", old_cmake.path()}, {"LAB_INSTALL", "no"}};
    const int status = lab::process::run({std::string(LAB_SOURCE_DIR) + "/lab", "run"}, options);
    std::ifstream in(name);
    const std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(name);
    EXPECT_EQ(status, 2) << said;
    EXPECT_NE(said.find("cmake version 3.22.1 is too old: the kit needs 3.25 or newer"), std::string::npos) << said;
    EXPECT_NE(said.find("sudo apt-get install cmake"), std::string::npos) << said;
    EXPECT_EQ(said.find("building"), std::string::npos) << "it built something first: " << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << "one line: " << said;
}

// Ctrl-C in the middle of ./lab run: the build it started (a stand-in cmake that waits) is stopped
// with it, and ./lab ends with one line and exit status 130.
TEST(Cli, CtrlCStopsTheRunWithOneLineAndStatus130)
{
    const StandIn slow_cmake("cmake", "echo started >\"$LAB_STAND_IN\".started\n"
                                      "trap 'echo interrupted >\"$LAB_STAND_IN\".interrupted; exit 130' INT\n"
                                      "sleep 60 & wait");
    const std::string marks = slow_cmake.dir + "/cmake";
    char name[] = "/tmp/lab-ctrl-c-XXXXXX";
    const int fd = mkstemp(name);
    close(fd);
    lab::process::Options options;
    options.output = name;
    options.environment = {{"PATH", slow_cmake.path()}, {"LAB_BACKEND", "cpu"}, {"LAB_STAND_IN", marks},
                           {"LAB_STATE", state_dir()}};
    const pid_t pid = lab::process::start({LAB_CLI, "run"}, options);
    ASSERT_GT(pid, 0);
    for (int i = 0; i < 200 && !std::filesystem::exists(marks + ".started"); ++i) usleep(50000);
    ASSERT_TRUE(std::filesystem::exists(marks + ".started")) << "./lab run never started its build";
    kill(pid, SIGINT);
    const int status = lab::process::exit_code(lab::process::wait(pid));
    std::ifstream in(name);
    const std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(name);
    EXPECT_EQ(status, 130) << said;
    EXPECT_TRUE(std::filesystem::exists(marks + ".interrupted")) << "the build was not stopped with it";
    const auto at = said.find("lab: interrupted;");
    ASSERT_NE(at, std::string::npos) << said;
    EXPECT_EQ(said.find('\n', at), said.size() - 1) << "more than one line after the interruption: " << said;
}

// CI runs exactly what the README tells a newcomer to run: its two commands, first and in order.
// Whatever else it runs with ./lab, the README's two commands' section names too.
TEST(Cli, CiRunsTheReadmesTwoCommands)
{
    const auto lines_of = [](const std::string& path) {
        std::ifstream in(path);
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        return lines;
    };
    std::vector<std::string> readme;  // the first code block after "## Two commands": each line's command
    std::string section_text;          // the whole section, for what else CI runs
    bool section = false, block = false, block_done = false;
    for (const std::string& line : lines_of(std::string(LAB_SOURCE_DIR) + "/README.md")) {
        if (line.rfind("## ", 0) == 0) section = line == "## Two commands";
        if (section) section_text += line + "\n";
        if (!section || block_done) continue;
        if (line.rfind("```", 0) == 0) {
            block_done = block;
            block = true;
        } else if (block && line.rfind("./lab ", 0) == 0) {
            std::string command = line.substr(0, line.find('#'));
            command.erase(command.find_last_not_of(' ') + 1);
            readme.push_back(command);
        }
    }
    std::vector<std::string> ci;  // .ci/run's lines that start with ./lab
    for (std::string line : lines_of(std::string(LAB_SOURCE_DIR) + "/.ci/run")) {
        line.erase(0, line.find_first_not_of(' '));
        if (line.rfind("./lab ", 0) == 0) ci.push_back(line);
    }
    ASSERT_EQ(readme.size(), 2u) << "the README's 'Two commands' block should hold two ./lab commands";
    ASSERT_GE(ci.size(), readme.size()) << ".ci/run does not run the README's two commands";
    EXPECT_EQ(readme, std::vector<std::string>(ci.begin(), ci.begin() + 2))
        << "the README tells newcomers to run what .ci/run does not run first, or the other way round";
    for (std::size_t k = 2; k < ci.size(); ++k)
        EXPECT_NE(section_text.find("`" + ci[k] + "`"), std::string::npos)
            << ".ci/run also runs " << ci[k] << ", which the README's 'Two commands' section does not mention";
}

TEST(Cli, ExplainOnAnUnfinishedExerciseListsItsTodosAndRunsNothing)
{
    const Ran ran = lab_cli({"explain", "02"});
    EXPECT_EQ(ran.status, 1) << ran.output;
    // The file as the student knows it (relative to the kit), and the output ends its last line.
    EXPECT_NE(ran.output.find("\n  exercises/02_strided_index.cu:"), std::string::npos) << ran.output;
    EXPECT_NE(ran.output.find("TODO(02-strided-index"), std::string::npos) << ran.output;
    EXPECT_EQ(ran.output.back(), '\n') << ran.output;
    EXPECT_EQ(ran.output.find("measured on the CPU backend"), std::string::npos) << ran.output;
    const Ran unknown = lab_cli({"explain", "99"});
    EXPECT_EQ(unknown.status, 2) << unknown.output;
    // A size the rung cannot run: one line, exit 2, before anything is built.
    const Ran block = lab_cli({"explain", "03", "--block", "100"});
    EXPECT_EQ(block.status, 2) << block.output;
    EXPECT_NE(block.output.find("--block 100: rung 03_sequential runs with a power of two from 64 to 1024"), std::string::npos)
        << block.output;
    const Ran op = lab_cli({"explain", "03", "--op", "softmax"});
    EXPECT_EQ(op.status, 2) << op.output;
    EXPECT_NE(op.output.find("--op softmax: rung 03_sequential has sum"), std::string::npos) << op.output;
    const Ran n = lab_cli({"explain", "03", "--n", "abc"});
    EXPECT_EQ(n.status, 2) << n.output;
    EXPECT_NE(n.output.find("--n abc: give a whole number"), std::string::npos) << n.output;
}

TEST(Cli, HelpListsEveryCommand)
{
    const Ran ran = lab_cli({"help"});
    ASSERT_EQ(ran.status, 0) << ran.output;
    for (const char* command : {"run", "selftest", "doctor", "status", "check", "test", "hint", "explain", "watch", "list", "replay",
                                "grade", "grade-all", "class-report", "similarity", "lms-export", "generate", "calibrate", "bench"})
        EXPECT_NE(ran.output.find(std::string("\n  ") + command + " "), std::string::npos) << command;
}

// The commands ./lab hands to the grader print their usage alone, named as typed: no build's lines
// (the grader is built quietly first, the first time), no path of the build tree, no warning.
TEST(Cli, TheGradersCommandsHelpIsTheirUsageAlone)
{
    const std::string backend = LAB_TREE_BACKEND;  // this tree's grader, built beside these tests
    for (const std::string command : {"grade", "grade-all", "class-report", "similarity", "lms-export"}) {
        const Ran ran = lab_cli({command, "--help"}, {{"LAB_BACKEND", backend}});
        EXPECT_EQ(ran.status, 0) << command << ": " << ran.output;
        EXPECT_NE(ran.output.find("Usage: ./lab " + command + " [OPTIONS]"), std::string::npos) << command << ": " << ran.output;
        for (const char* noise : {"[1/", "ninja", "warning", "/build/", "lab-grade", "Building"})
            EXPECT_EQ(ran.output.find(noise), std::string::npos) << command << " --help says \"" << noise << "\":\n" << ran.output;
    }
}

}  // namespace
