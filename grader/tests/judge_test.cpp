// The judge as the grader uses it: runners started only through their confinement, their progress
// read as it grows, a case stopped at a limit told from a crash, the hang rule (in the rung's order of
// cases, however many runners share them), each case judged from its own job's files, and a failure
// for want of the GPU's memory told from the others. Stand-in runners (shell scripts) play the
// runner's side of the protocol. (policy_test.cpp: the rest of the grader's policy.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fresh_folder.hpp"
#include "as_it_is.hpp"
#include "judge.hpp"
#include "lab/registry.hpp"
#include "runner_process.hpp"
#include "sanitizer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lab::grading;

// The judge starts a runner only as its caller's confinement says (the grader's sandbox), never
// the command as given, and starts nothing when it was given no confinement.
class RecordingConfinement : public lab::judge::AsItIs {
public:
    RecordingConfinement(const std::vector<std::string>& command, const std::string& dir)
        : lab::judge::AsItIs({"/bin/sh", "-c", "echo \"$0\" > \"$1\"/confined", command.front(), dir})
    {
    }
};

TEST(Judge, StartsARunnerOnlyThroughItsConfinement)
{
    const std::string dir = fs::temp_directory_path() / ("judge-confinement-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string never = dir + "/never-run";
    Limits limits;
    EXPECT_THROW(run_limited({"/bin/touch", never}, dir, limits, 5), std::logic_error);
    EXPECT_FALSE(fs::exists(never)) << "run without a confinement";
    int made = 0;
    limits.confine = [&](const std::vector<std::string>& command, const std::string& writable, const RunnerLimits&) {
        ++made;
        return std::make_unique<RecordingConfinement>(command, writable);
    };
    const LimitedRun ended = run_limited({"/bin/touch", never}, dir, limits, 5);
    EXPECT_TRUE(ended.exited);
    EXPECT_EQ(made, 1);
    EXPECT_FALSE(fs::exists(never)) << "the command ran as given, not as its confinement said";
    EXPECT_EQ(lab::read_file(dir + "/confined"), "/bin/touch\n");
    fs::remove_all(dir);
}

// A runner's progress file read as it grows (ProgressFile): each look sees the last job started and
// ended as a reading of the whole file would, across lines split between looks, a file the runner
// cut short or replaced, more than kProgressTail written between two looks, a link in its place
// and lines that say nothing.
TEST(Judge, ReadsARunnersProgressAsItGrows)
{
    const std::string dir = fs::temp_directory_path() / ("judge-progress-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string path = dir + "/progress";
    const auto append = [&](const std::string& text) { std::ofstream(path, std::ios::app) << text; };
    const auto expect = [](const lab::judge::Progress& p, long started, long ended, const char* when) {
        EXPECT_EQ(p.last_started, started) << when;
        EXPECT_EQ(p.last_ended, ended) << when;
    };
    lab::judge::ProgressFile progress(path);
    expect(progress.look(), -1, -1, "before the file exists");
    append("start 0\n");
    expect(progress.look(), 0, -1, "the first job started");
    append("end 0\nstart 1\nen");
    expect(progress.look(), 1, 0, "a line cut short by the look");
    append("d 1\nstart 2\n");
    expect(progress.look(), 2, 1, "the rest of the line");
    append("nonsense\nstart x\nend\n");
    expect(progress.look(), 2, 1, "lines that say nothing");
    std::string many;
    for (int k = 3; k < 20000; ++k) many += "start " + std::to_string(k) + "\nend " + std::to_string(k) + "\n";
    append(many);
    expect(progress.look(), 19999, 19999, "more than kProgressTail between two looks");
    std::ofstream(path, std::ios::trunc) << "start 7\n";
    expect(progress.look(), 7, -1, "a file cut short");
    fs::remove(path);
    append("start 3\nend 3\nstart 4\nend 4\nstart 5\nend 5\nstart 6\nend 6\nstart 7\nend 7\nstart 9\n");
    expect(progress.look(), 9, 7, "a file replaced by a longer one");
    fs::remove(path);
    std::ofstream(dir + "/elsewhere") << "start 99\nend 99\n";
    fs::create_symlink(dir + "/elsewhere", path);
    expect(progress.look(), -1, -1, "a link in its place");
    fs::remove_all(dir);
}

// Three small cases of one rung, for stand-in runners; the judge's limits for them, each runner
// started as it is (lab::judge::AsItIs), a case stopped after `case_seconds`.
std::vector<PlannedCase> three_small_cases()
{
    std::vector<PlannedCase> planned(3);
    for (std::size_t i = 0; i < planned.size(); ++i) {
        planned[i].c.name = "ints_n1024_" + std::to_string(i);
        planned[i].c.op = lab::Op::sum;
        planned[i].c.input = lab::InputKind::ints;
        planned[i].c.n = 1024;
        planned[i].c.block = 256;
        planned[i].plan.grid = 4;
        planned[i].plan.block = 256;
    }
    return planned;
}

Limits stand_in_limits(double case_seconds)
{
    Limits limits;
    limits.case_seconds = case_seconds;
    limits.confine = [](const std::vector<std::string>& command, const std::string&, const RunnerLimits&) {
        return std::make_unique<lab::judge::AsItIs>(command);
    };
    return limits;
}

std::string no_replay(const lab::RungInfo&, const lab::Case&, const lab::LaunchPlan&) { return ""; }

// `count` small cases whose seeds, 1000, 1001, ..., tell their jobs apart in a runner's request.
std::vector<PlannedCase> seeded_cases(std::size_t count)
{
    std::vector<PlannedCase> planned;
    for (std::size_t i = 0; i < count; ++i) {
        planned.push_back(three_small_cases().front());
        planned.back().c.name = "ints_n1024_" + std::to_string(i);
        planned.back().c.seed = 1000 + i;
    }
    return planned;
}

// A stand-in runner at `path` that fails each job of its request with a message naming the job's
// seed ("the job of seed 1003."); first, `before` (shell, with $seed set: a job that hangs).
void seed_naming_runner(const std::string& path, const std::string& before = "")
{
    std::ofstream(path) << "#!/bin/sh\ni=$3\nn=$(grep -c '\"poison\":' \"$1\")\nwhile [ \"$i\" -lt \"$n\" ]; do\n"
                           "  echo \"start $i\" >> \"$2/progress\"\n"
                           "  seed=$(grep '\"seed\":' \"$1\" | sed -n \"$((i + 1))p\" | tr -dc 0-9)\n"
                        << (before.empty() ? "" : "  " + before + "\n")
                        << "  echo \"the kernel: cudaErrorIllegalAddress: the job of seed $seed.\" > \"$2/$i.0.err\"\n"
                           "  echo \"end $i\" >> \"$2/progress\"\n  i=$((i + 1))\ndone\n";
    fs::permissions(path, fs::perms::owner_all);
}

// A case stopped at its time limit, or not run after such stops, is told from one whose runner
// crashed (CaseResult::at_limit): the grader runs the crashed one again with the GPU alone where
// another grading shared it, never the stopped one. Stand-in runners say they start the case, then
// hang or exit.
TEST(Judge, ACaseStoppedAtItsLimitIsToldFromOneWhoseRunnerCrashed)
{
    const std::string dir = fresh_folder("judge-at-limit-");
    const lab::RungInfo& rung = lab::Registry::kit().get("03_sequential");
    const std::vector<PlannedCase> planned = three_small_cases();
    Limits limits = stand_in_limits(1);
    const auto run_with = [&](const std::string& name, const std::string& then) {
        const std::string runner = dir + "/" + name;
        std::ofstream(runner) << "#!/bin/sh\necho \"start $3\" >> \"$2/progress\"\n" << then << "\n";
        fs::permissions(runner, fs::perms::owner_all);
        return run_and_check(rung, runner, planned, {}, limits, dir + "/" + name + "-work", no_replay);
    };
    limits.hung_before_giving_up = 2;
    for (const CaseResult& c : run_with("hangs", "exec sleep 60")) {
        EXPECT_EQ(c.status, "failed") << c.name;
        EXPECT_TRUE(c.at_limit) << c.name << ": " << c.message;
    }
    for (const CaseResult& c : run_with("crashes", "exit 3")) {
        EXPECT_EQ(c.status, "failed") << c.name;
        EXPECT_FALSE(c.at_limit) << c.name << ": " << c.message;
    }
    fs::remove_all(dir);
}

// The CPU backend stops an endless launch itself and its runner goes on: a job whose error names the
// launch timeout counts toward the hang rule as a case stopped at the judge's own limit does, and so
// does a runner killed for its CPU time (the backend's endless kernel spins every core). Without the
// rule, every such case took the backend's limit under each thread order, until the rung's limit
// failed the rest (a kernel that never ends at one size cost 600 s a rung under the default rubric).
// Stand-in runners end each case as told, a pause after each so that the judge looks in between.
TEST(Judge, LaunchesStoppedAtTheTimeLimitAndCpuTimeKillsCountTowardTheHangRule)
{
    const std::string dir = fresh_folder("judge-stopped-launches-");
    const lab::RungInfo& rung = lab::Registry::kit().get("03_sequential");
    std::vector<PlannedCase> planned = three_small_cases();
    planned.push_back(planned.back());
    planned.back().c.name = "ints_n1024_3";
    Limits limits = stand_in_limits(30);
    limits.hung_before_giving_up = 2;
    const struct {
        std::string name, each;  // `each`: what the stand-in does in case $i
        std::string says;        // what the cases given up say
    } ways[] = {
        {"launch_timeout",
         "echo 'the kernel: cudaErrorLaunchTimeout: the launch timed out and was terminated' > \"$2/$i.0.err\"; "
         "echo 'not run: under thread order forward the launch was stopped at the time limit (cudaErrorLaunchTimeout)' "
         "> \"$2/$i.1.err\"",
         "2 earlier cases were stopped at the time limit"},
        {"cpu_time", "kill -XCPU $$", "2 earlier cases were stopped at a limit (time, CPU time, memory or processes)"},
    };
    for (const auto& way : ways) {
        const std::string runner = dir + "/" + way.name;
        std::ofstream(runner) << "#!/bin/sh\ni=$3\nwhile [ \"$i\" -lt 4 ]; do\n  echo \"start $i\" >> \"$2/progress\"\n  "
                              << way.each << "\n  echo \"end $i\" >> \"$2/progress\"\n  sleep 1\n  i=$((i + 1))\ndone\n";
        fs::permissions(runner, fs::perms::owner_all);
        const auto started = std::chrono::steady_clock::now();
        const std::vector<CaseResult> results =
            run_and_check(rung, runner, planned, {"forward", "reverse"}, limits, dir + "/" + way.name + "-work", no_replay);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        ASSERT_EQ(results.size(), planned.size());
        for (std::size_t i = 0; i < results.size(); ++i) {
            const CaseResult& c = results[i];
            EXPECT_EQ(c.status, "failed") << way.name << ": " << c.name;
            if (i < 2) {
                EXPECT_EQ(c.message.find("not run"), std::string::npos) << way.name << ": " << c.name << ": " << c.message;
            } else {
                EXPECT_NE(c.message.find(way.says), std::string::npos) << way.name << ": " << c.name << ": " << c.message;
                EXPECT_TRUE(c.at_limit) << way.name << ": " << c.name;
            }
        }
        // Given up on at the second such case, not run to the end (the stand-in's pauses: 4 s).
        EXPECT_LT(seconds, 3.5) << way.name;
    }
    fs::remove_all(dir);
}

// A rung's cases shared by several runners (Limits::runners, the grader on a GPU for its longest
// rung) keep their verdicts: each case is judged from what its own job handed back, whichever runner
// ran it, and the hang rule counts the stops of every runner together. Stand-in runners: one fails
// each job with a message naming the seed its request gave that job; one hangs in every case.
TEST(Judge, RunnersSharingARungsCasesJudgeEachCaseByItsOwnJob)
{
    const std::string dir = fresh_folder("judge-runners-");
    const lab::RungInfo& rung = lab::Registry::kit().get("03_sequential");
    const std::vector<PlannedCase> planned = seeded_cases(7);
    const std::string names = dir + "/names";
    seed_naming_runner(names);
    for (const int runners : {1, 3}) {
        Limits limits = stand_in_limits(5);
        limits.runners = runners;
        const std::vector<CaseResult> results =
            run_and_check(rung, names, planned, {}, limits, dir + "/names-" + std::to_string(runners), no_replay);
        ASSERT_EQ(results.size(), planned.size());
        for (std::size_t i = 0; i < results.size(); ++i) {
            EXPECT_EQ(results[i].status, "failed") << runners << " runners: " << results[i].name;
            EXPECT_NE(results[i].message.find("the job of seed " + std::to_string(1000 + i) + "."), std::string::npos)
                << runners << " runners: " << results[i].name << ": " << results[i].message;
            EXPECT_GT(results[i].seconds, -1) << runners << " runners: " << results[i].name;
        }
    }
    const std::string hangs = dir + "/hangs";
    std::ofstream(hangs) << "#!/bin/sh\necho \"start $3\" >> \"$2/progress\"\nexec sleep 60\n";
    fs::permissions(hangs, fs::perms::owner_all);
    Limits limits = stand_in_limits(1);
    limits.runners = 3;
    limits.hung_before_giving_up = 3;
    const auto started = std::chrono::steady_clock::now();
    const std::vector<CaseResult> results = run_and_check(rung, hangs, planned, {}, limits, dir + "/hangs-work", no_replay);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ASSERT_EQ(results.size(), planned.size());
    std::size_t stopped = 0, given_up = 0;
    for (const CaseResult& c : results) {
        EXPECT_EQ(c.status, "failed") << c.name;
        EXPECT_TRUE(c.at_limit) << c.name;
        (c.message.find("not run") != std::string::npos ? given_up : stopped)++;
    }
    // The three runners' first cases are stopped together, a second apart from the start, and their
    // three stops give up the rest (one runner alone stops its three one after the other: 3 s).
    EXPECT_EQ(stopped, 3u);
    EXPECT_EQ(given_up, planned.size() - 3);
    EXPECT_LT(seconds, 2.9);
    fs::remove_all(dir);
}

// The hang rule counts stops in the rung's order of cases, however many runners share them: with
// cases 0, 3 and 6 of nine never ending and the rule at three stops, one runner gives up 7 and 8, and
// so do three runners (the first of which holds 0, 3 and 6 while the others run 7 and 8 to the end).
// Every case gets the same verdict and message either way. A stand-in fails each other job with a
// message naming its seed.
TEST(Judge, TheHangRuleGivesTheSameVerdictsHoweverManyRunners)
{
    const std::string dir = fresh_folder("judge-runners-hang-");
    const lab::RungInfo& rung = lab::Registry::kit().get("03_sequential");
    const std::vector<PlannedCase> planned = seeded_cases(9);
    const std::string runner = dir + "/some_hang";
    seed_naming_runner(runner, "[ $(( (seed - 1000) % 3 )) -eq 0 ] && exec sleep 60");
    std::map<int, std::vector<CaseResult>> by_runners;
    for (const int runners : {1, 3}) {
        Limits limits = stand_in_limits(1);
        limits.runners = runners;
        limits.hung_before_giving_up = 3;
        by_runners[runners] = run_and_check(rung, runner, planned, {}, limits, dir + "/work-" + std::to_string(runners), no_replay);
        ASSERT_EQ(by_runners[runners].size(), planned.size());
    }
    for (std::size_t i = 0; i < planned.size(); ++i) {
        const CaseResult& one = by_runners[1][i];
        const CaseResult& three = by_runners[3][i];
        EXPECT_EQ(one.status, "failed") << one.name;
        EXPECT_EQ(three.status, one.status) << one.name;
        EXPECT_EQ(three.at_limit, one.at_limit) << one.name;
        EXPECT_EQ(three.message, one.message) << one.name;
        EXPECT_EQ(one.message.find("not run") != std::string::npos, i > 6) << one.name << ": " << one.message;
    }
    fs::remove_all(dir);
}

// A case that failed where the GPU's memory ran out (the runner's refused file, protocol.hpp, or
// CUDA's words) is told from every other failure (CaseResult::memory_refused), and a tool's log that
// says so, or a race, from any other finding (SanitizerResult): on a GPU that other gradings share,
// only such a rung runs again alone (run_again_alone). Stand-in runners end each case as told.
TEST(Judge, ACaseThatRanShortOfTheGpusMemoryIsToldFromOtherFailures)
{
    const std::string dir = fresh_folder("judge-refused-");
    const lab::RungInfo& rung = lab::Registry::kit().get("03_sequential");
    const std::vector<PlannedCase> planned = three_small_cases();
    Limits limits = stand_in_limits(5);
    const std::string fault = "echo 'the kernel: cudaErrorIllegalAddress: an illegal memory access was encountered' > \"$2/$i.0.err\"";
    const struct {
        std::string name, each;  // `each`: what the stand-in does in case $i
        bool refused;
    } ways[] = {
        {"refused_then_faulted", "echo '1 cudaMalloc call(s) refused for want of memory' > \"$2/$i.0.refused\"; " + fault, true},
        {"out_of_memory", "echo 'cudaMalloc: cudaErrorMemoryAllocation: out of memory' > \"$2/$i.0.err\"", true},
        {"crashed_out_of_memory", "echo 'CUDA error: out of memory' >&2; exit 3", true},
        {"faulted", fault, false},
        {"handed_back_nothing", ":", false},
        {"crashed", "exit 3", false},
    };
    for (const auto& way : ways) {
        const std::string runner = dir + "/" + way.name;
        std::ofstream(runner) << "#!/bin/sh\ni=$3\nwhile [ \"$i\" -lt 3 ]; do\n  echo \"start $i\" >> \"$2/progress\"\n  "
                              << way.each << "\n  echo \"end $i\" >> \"$2/progress\"\n  i=$((i + 1))\ndone\n";
        fs::permissions(runner, fs::perms::owner_all);
        const std::vector<CaseResult> results = run_and_check(rung, runner, planned, {}, limits, dir + "/" + way.name + "-work", no_replay);
        ASSERT_EQ(results.size(), planned.size());
        for (const CaseResult& c : results) {
            EXPECT_EQ(c.status, "failed") << way.name << ": " << c.name;
            EXPECT_EQ(c.memory_refused, way.refused) << way.name << ": " << c.name << ": " << c.message;
            EXPECT_FALSE(c.at_limit) << way.name << ": " << c.name;
        }
    }

    // A tool's log: a refused allocation, a race, or another finding.
    const std::string tool = dir + "/compute-sanitizer";  // writes its --log-file ($6) from the file named for its tool ($2)
    std::ofstream(tool) << "#!/bin/sh\ncat \"" << dir << "/$2.log\" > \"$6\"\nexit 0\n";
    fs::permissions(tool, fs::perms::owner_all);
    std::ofstream(dir + "/memcheck.log") << "========= COMPUTE-SANITIZER\n"
                                           "========= Program hit cudaErrorMemoryAllocation (error 2) due to \"out of memory\" "
                                           "on CUDA API call to cudaMalloc.\n========= ERROR SUMMARY: 1 error\n";
    std::ofstream(dir + "/racecheck.log") << "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n";
    const auto tools_say = [&](const std::string& name) {
        SanitizerRun run;
        run.tool_path = tool;
        run.tools = {name};
        run.runner = dir + "/crashed";
        SanitizerResult result;
        run_sanitizer_tools(rung, run, {planned.front()}, limits, dir + "/tools-" + name, result);
        EXPECT_EQ(result.findings.size(), 1u) << name;
        return result;
    };
    SanitizerResult said = tools_say("memcheck");
    EXPECT_TRUE(said.memory_refused);
    EXPECT_FALSE(said.timing_hazard);
    said = tools_say("racecheck");
    EXPECT_FALSE(said.memory_refused);
    EXPECT_TRUE(said.timing_hazard);
    std::ofstream(dir + "/memcheck.log") << "========= Invalid __global__ read of size 4 bytes\n========= ERROR SUMMARY: 3 errors\n";
    said = tools_say("memcheck");
    EXPECT_FALSE(said.memory_refused) << "an out-of-bounds read is the kernel's own";
    EXPECT_FALSE(said.timing_hazard);
    fs::remove_all(dir);
}

}  // namespace
