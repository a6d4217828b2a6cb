// The grader's policy on what its runs handed back: compute-sanitizer's logs read, the sanitizer
// category's choice of cases and points, rungs graded side by side, runners started only through
// their confinement, reports written whatever bytes they hold. (grader_test.cpp: intake, screen,
// integrity, rubric; gpu_lock_test.cpp: the GPU's lock.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fresh_folder.hpp"
#include "as_it_is.hpp"
#include "judge.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "categories.hpp"
#include "plan.hpp"
#include "report_facts.hpp"
#include "reports.hpp"
#include "sandbox.hpp"
#include "rubric.hpp"
#include "runner_process.hpp"
#include "sanitizer.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lab::grading;

// compute-sanitizer's logs, as its tools write them (CUDA 13), with the student's file compiled
// from the grader's build tree.
const std::string kSubmitted = "/kit/build/cuda-solutions/grading/submission/05_unroll_last_warp.cu";
const std::string kShown = "exercises/05_unroll_last_warp.cu";

TEST(SanitizerLog, ReadsEachToolsSummarySingularAndPlural)
{
    const std::string racecheck_one =
        "========= COMPUTE-SANITIZER\n"
        "========= Error: Race reported between Write access at void ex05::reduce<float>(const float *, float *, "
        "unsigned long)+0x2a0 in " + kSubmitted + ":41\n"
        "=========     and Read access at void ex05::reduce<float>(const float *, float *, unsigned long)+0x280 in " +
        kSubmitted + ":41 [992 hazards]\n"
        "=========\n"
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
    ToolLog log = read_tool_log(racecheck_one, {kSubmitted}, kShown);
    EXPECT_TRUE(log.summary);
    EXPECT_EQ(log.count, 1);
    ASSERT_EQ(log.locations.size(), 1u);
    EXPECT_EQ(log.locations.front(), kShown + ":41");
    ASSERT_FALSE(log.reports.empty());
    EXPECT_NE(log.reports.front().find("Race reported between Write access"), std::string::npos);
    EXPECT_NE(log.reports.front().find(kShown + ":41"), std::string::npos);  // the student's path, not the grader's

    log = read_tool_log("========= RACECHECK SUMMARY: 12 hazards displayed (3 errors, 9 warnings)\n", {}, kShown);
    EXPECT_TRUE(log.summary);
    EXPECT_EQ(log.count, 12);
    log = read_tool_log("========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n", {}, kShown);
    EXPECT_TRUE(log.summary);
    EXPECT_EQ(log.count, 0);

    const std::string memcheck =
        "========= COMPUTE-SANITIZER\n"
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at void ex03::reduce<float>(const float *, float *, unsigned long)+0x1c0 in "
        "build/cuda-solutions/grading/submission/05_unroll_last_warp.cu:27\n"
        "=========     by thread (31,0,0) in block (3,0,0)\n"
        "=========     Address 0x7f3a00000400 is out of bounds\n"
        "=========\n"
        "========= ERROR SUMMARY: 1 error\n";
    log = read_tool_log(memcheck, {kSubmitted}, kShown);  // relative to the kit, as printed there
    EXPECT_TRUE(log.summary);
    EXPECT_EQ(log.count, 1);
    ASSERT_EQ(log.reports.size(), 1u);  // the details are indented; only the report's first line counts
    EXPECT_EQ(log.reports.front(), "Invalid __global__ write of size 4 bytes");
    ASSERT_EQ(log.locations.size(), 1u);
    EXPECT_EQ(log.locations.front(), kShown + ":27");
    log = read_tool_log("========= ERROR SUMMARY: 7 errors\n", {}, kShown);
    EXPECT_EQ(log.count, 7);
    log = read_tool_log("========= ERROR SUMMARY: 0 errors\n", {}, kShown);
    EXPECT_TRUE(log.summary);
    EXPECT_EQ(log.count, 0);
}

TEST(SanitizerLog, ARunCutShortOrForgedHasNoSummary)
{
    // Killed before its end: the reports, but no summary, which the category counts as a finding.
    ToolLog log = read_tool_log("========= COMPUTE-SANITIZER\n========= Invalid __shared__ read of size 4 bytes\n", {},
                                kShown);
    EXPECT_FALSE(log.summary);
    // The runner's own output has no "=========" margin: a kernel file that prints a clean summary
    // is not read as one.
    log = read_tool_log("RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\nERROR SUMMARY: 0 errors\n",
                        {}, kShown);
    EXPECT_FALSE(log.summary);
    // Locations outside the student's file (the kit's glue) are not theirs.
    log = read_tool_log("========= Invalid __global__ read\n=========     at f()+0x10 in /kit/harness/src/rung_glue.cu:40\n"
                        "========= ERROR SUMMARY: 2 errors\n", {kSubmitted}, kShown);
    EXPECT_EQ(log.count, 2);
    EXPECT_TRUE(log.locations.empty());
}

TEST(Sanitizer, ChoosesSmallVisibleCasesOnePerGroupFirst)
{
    std::vector<PlannedCase> planned;
    auto add = [&](const std::string& group, std::uint64_t n, bool hidden, const std::string& skip = "") {
        PlannedCase p;
        p.c.group = group;
        p.c.n = n;
        p.c.name = group + std::to_string(n);
        p.hidden = hidden;
        p.skip = skip;
        planned.push_back(p);
    };
    add("edges", 1, false);
    add("edges", 1000, false);
    add("prime", 65521, false);
    add("large", 1 << 24, false);          // too large
    add("hidden_sizes", 4099, true);       // hidden: never in the pass
    add("grids", 40000, false, "skipped"); // not run here
    add("powers_of_two", 4096, false);
    SanitizerRules rules;
    rules.max_n = 65536;
    rules.cases = 3;
    const auto chosen = sanitizer_cases(planned, rules);
    ASSERT_EQ(chosen.size(), 3u);
    EXPECT_EQ(chosen[0].c.name, "prime65521");
    EXPECT_EQ(chosen[1].c.name, "powers_of_two4096");
    EXPECT_EQ(chosen[2].c.name, "edges1000");
    // The pass's inputs end at their last element (no canaries to take a read past it); the other
    // runs' have them.
    for (const PlannedCase& p : chosen) {
        EXPECT_TRUE(p.ends_exactly);
        EXPECT_EQ(job_for(p).tail_count, 0u);
    }
    EXPECT_EQ(job_for(planned[0]).tail_count, lab::kCanaryCount);
    rules.cases = 10;
    EXPECT_EQ(sanitizer_cases(planned, rules).size(), 4u);
}

TEST(Sanitizer, PointsOnlyWhenCleanAndCorrectAndAPenaltyNeverBelowZero)
{
    Rubric rubric = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    rubric.sanitizer.points = 1;
    RungResult r;
    r.id = "05_unroll_last_warp";
    r.submitted = r.built = true;
    CaseResult pass;
    pass.status = "passed";
    pass.group = "edges";
    r.cases = {pass};
    auto sanitizer_part = [&]() { return r.part("sanitizer") ? *r.part("sanitizer") : Part{}; };
    // Nothing ran (no case small enough, say): no points, and the part is not graded.
    r.sanitizer.note = "no visible case small enough for the pass runs here";
    score_rung(r, rubric, true);
    EXPECT_EQ(sanitizer_part().score, 0);
    EXPECT_FALSE(sanitizer_part().graded);
    r.sanitizer.note.clear();
    r.sanitizer.checks = {"racecheck"};
    score_rung(r, rubric, true);
    EXPECT_EQ(sanitizer_part().score, 1);
    r.sanitizer.findings = {kShown + ":41: [racecheck] 1 hazard"};
    score_rung(r, rubric, true);
    EXPECT_EQ(sanitizer_part().score, 0);
    EXPECT_NE(sanitizer_part().note.find(":41: [racecheck]"), std::string::npos);
    rubric.sanitizer.penalty = 2;
    score_rung(r, rubric, true);
    EXPECT_EQ(sanitizer_part().score, -2);
    EXPECT_EQ(r.score(), rubric.points.visible - 2);
    rubric.sanitizer.penalty = 100;  // never below zero for the rung
    score_rung(r, rubric, true);
    EXPECT_EQ(r.score(), 0);
    // Clean, but a visible case fails: nothing earned.
    r.sanitizer.findings.clear();
    CaseResult fail = pass;
    fail.status = "failed";
    r.cases.push_back(fail);
    score_rung(r, rubric, true);
    EXPECT_EQ(sanitizer_part().score, 0);
    EXPECT_NE(sanitizer_part().note.find("once every visible case passes"), std::string::npos);
}

// The rungs graded side by side and the cases checked at once: every item once, and a failure in
// any thread reaches the caller (a thread that let it escape would end lab-grade without reports).
TEST(SideBySide, RunsEveryItemOnceAndHandsBackAFailureFromAnyThread)
{
    std::vector<std::atomic<int>> seen(50);
    side_by_side(seen.size(), 3, [&](std::size_t k) { ++seen[k]; });
    for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k].load(), 1) << "item " << k;
    for (const std::size_t failing : {std::size_t{0}, std::size_t{7}, std::size_t{49}}) {
        std::atomic<int> ran{0};
        try {
            side_by_side(50, 3, [&](std::size_t k) {
                ++ran;
                if (k == failing) throw std::runtime_error("item " + std::to_string(k) + " failed");
            });
            ADD_FAILURE() << "the failure of item " << failing << " was not handed back";
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()), "item " + std::to_string(failing) + " failed");
        }
        EXPECT_GE(ran.load(), static_cast<int>(failing) + 1);
    }
}

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
    std::vector<PlannedCase> planned;
    for (std::size_t i = 0; i < 7; ++i) {
        planned.push_back(three_small_cases().front());
        planned.back().c.name = "ints_n1024_" + std::to_string(i);
        planned.back().c.seed = 1000 + i;
    }
    const std::string names = dir + "/names";
    std::ofstream(names) << "#!/bin/sh\ni=$3\nn=$(grep -c '\"poison\":' \"$1\")\nwhile [ \"$i\" -lt \"$n\" ]; do\n"
                            "  echo \"start $i\" >> \"$2/progress\"\n"
                            "  seed=$(grep '\"seed\":' \"$1\" | sed -n \"$((i + 1))p\" | tr -dc 0-9)\n"
                            "  echo \"the kernel: cudaErrorIllegalAddress: the job of seed $seed.\" > \"$2/$i.0.err\"\n"
                            "  echo \"end $i\" >> \"$2/progress\"\n  i=$((i + 1))\ndone\n";
    fs::permissions(names, fs::perms::owner_all);
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
    std::vector<PlannedCase> planned;
    for (std::size_t i = 0; i < 9; ++i) {
        planned.push_back(three_small_cases().front());
        planned.back().c.name = "ints_n1024_" + std::to_string(i);
        planned.back().c.seed = 1000 + i;
    }
    const std::string runner = dir + "/some_hang";
    std::ofstream(runner) << "#!/bin/sh\ni=$3\nn=$(grep -c '\"poison\":' \"$1\")\nwhile [ \"$i\" -lt \"$n\" ]; do\n"
                             "  echo \"start $i\" >> \"$2/progress\"\n"
                             "  seed=$(grep '\"seed\":' \"$1\" | sed -n \"$((i + 1))p\" | tr -dc 0-9)\n"
                             "  [ $(( (seed - 1000) % 3 )) -eq 0 ] && exec sleep 60\n"
                             "  echo \"the kernel: cudaErrorIllegalAddress: the job of seed $seed.\" > \"$2/$i.0.err\"\n"
                             "  echo \"end $i\" >> \"$2/progress\"\n  i=$((i + 1))\ndone\n";
    fs::permissions(runner, fs::perms::owner_all);
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

// A build log quotes a Latin-1 source line byte for byte; a runner's error text is whatever the
// process wrote. Every report is written all the same, each valid UTF-8 (JSON, JUnit and HTML parse;
// the bytes became U+FFFD): once, one such byte stopped lab-grade before it wrote any report.
TEST(Reports, AreWrittenWhateverBytesALogOrAKernelGave)
{
    Grade g;
    g.submission = "caf\xe9/submission";
    g.backend = "cpu";
    g.device = "CPU backend";
    RungResult built_not;
    built_not.id = "03_sequential";
    built_not.submitted = true;
    built_not.unrun = "did not build";
    built_not.build_log = "exercises/03_sequential.cu:31:15: error: stray '\351' in program\n   31 |     const int r\xe9sultat = 0;";
    RungResult ran;
    ran.id = "10_any_length";
    ran.submitted = ran.built = true;
    CaseResult c;
    c.name = "int_n1856_b256";
    c.op = "sum";
    c.status = "failed";
    c.message = "the kernel failed: " + std::string("\xff\xfe\x00\x01", 4) + " binary \xc0\xaf";
    ran.cases.push_back(c);
    Part part;
    part.name = "visible";
    part.max = 5;
    ran.parts.push_back(part);
    g.rungs = {built_not, ran};
    const std::string dir = ::testing::TempDir() + "lab_reports_bytes";
    fs::remove_all(dir);
    ASSERT_NO_THROW(write_reports(g, dir));
    for (const char* name : {"grade.json", "results.json", "prairielearn.json", "autolab.txt", "junit.xml", "summary.md",
                             "gradebook.csv", "report.html", "instructor/grade.json", "instructor/report.html"}) {
        const auto text = lab::try_read_file(dir + "/" + name);
        ASSERT_TRUE(text.has_value()) << name << " was not written";
        EXPECT_EQ(lab::valid_utf8(*text), *text) << name << " holds bytes that are not UTF-8";
    }
    const auto grade = nlohmann::json::parse(lab::read_file(dir + "/grade.json"));
    EXPECT_NE(grade.dump().find("r\xEF\xBF\xBDsultat"), std::string::npos) << "the Latin-1 byte became U+FFFD";
    fs::remove_all(dir);
}

// What a student may see of a failing hidden case: its group, how many of the group passed and how
// the others failed, never its n, block, input, seed, message or replay line (nor the hidden
// inputs' seed, nor a path of the grading machine); the instructor's record keeps all of it. With
// the rubric's [hidden].details, the student sees it as a visible case.
TEST(Reports, KeepTheHiddenCasesFromTheStudent)
{
    const std::string dir = ::testing::TempDir() + "lab_reports_hidden";
    Grade g;
    g.submission = dir + "/submitted/ana";
    g.backend = "cpu";
    g.device = "CPU backend";
    g.seed = 0x1111111111111111ull;
    g.hidden_seed = 0x2222222222222222ull;
    g.rubric = dir + "/course/rubric.toml (CUDA)";
    g.rubric_name = "rubric.toml (CUDA)";
    RungResult r;
    r.id = "03_sequential";
    r.submitted = r.built = true;
    CaseResult visible, hidden;
    visible.name = "int_n33_b64";
    visible.group = "edges";
    visible.op = "sum";
    visible.n = 33;
    visible.block = 64;
    visible.status = "failed";
    visible.expected = "12";
    visible.got = "7";
    visible.message = "rung 03_sequential, case int_n33_b64: wrong\n  Likely cause: the tree stopped one step early. In this rung: TODO 03-loop";
    visible.replay = "./lab replay 03 --op sum --input int --n 33 --block 64 --seed 0x3333333333333333";
    hidden = visible;
    hidden.name = "float_spike_n4093_b128";
    hidden.group = "hidden_spikes";
    hidden.hidden = true;
    hidden.n = 4093;
    hidden.block = 128;
    hidden.seed = 0x4444444444444444ull;
    hidden.message = "rung 03_sequential, case float_spike_n4093_b128: expected 1e30, got 2; input from " + dir + "/x";
    hidden.replay = "./lab replay 03 --op sum --input float_spike --n 4093 --block 128 --seed 0x4444444444444444";
    r.cases = {visible, hidden};
    const Rubric rubric = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    score_rung(r, rubric, false);
    g.rungs = {r};
    const std::vector<std::string> secrets{"float_spike_n4093_b128", "4444444444444444", "2222222222222222", "n = 4093",
                                           "--n 4093", "input float_spike", dir};
    const std::vector<std::string> student{"grade.json", "results.json", "prairielearn.json", "autolab.txt", "junit.xml",
                                           "summary.md", "gradebook.csv", "report.html"};
    for (const bool details : {false, true}) {
        g.hidden_details = details;
        fs::remove_all(dir);
        write_reports(g, dir);
        for (const std::string& name : student) {
            const std::string text = lab::read_file(dir + "/" + name);
            for (const std::string& secret : secrets) {
                if (details && secret != dir && secret != "2222222222222222") continue;  // shown on purpose, but never these
                EXPECT_EQ(text.find(secret), std::string::npos) << name << " holds " << secret << (details ? " (details on)" : "");
            }
            // What it does say: the hidden group, its count and how its case failed; the visible case in full.
            if (name != "gradebook.csv") EXPECT_NE(text.find("hidden_spikes"), std::string::npos) << name;
            if (name != "gradebook.csv" && name != "autolab.txt") {
                EXPECT_NE(text.find("int_n33_b64"), std::string::npos) << name;
                if (!details && name != "grade.json") EXPECT_NE(text.find("wrong value"), std::string::npos) << name;
            }
        }
        const std::string record = lab::read_file(dir + "/instructor/grade.json");
        for (const std::string& secret : {"float_spike_n4093_b128", "0x4444444444444444", "0x2222222222222222"})
            EXPECT_NE(record.find(secret), std::string::npos) << "the instructor's record lacks " << secret;
        const auto copy = nlohmann::json::parse(lab::read_file(dir + "/grade.json"));
        EXPECT_EQ(copy["rungs"][0]["cases"].size(), details ? 2u : 1u);
        if (!details) {
            for (const auto& part : copy["rungs"][0]["parts"])
                if (part["name"] == "hidden") EXPECT_EQ(part["groups"][0]["failures"]["wrong value"], 1);
            // The summary gives the likely cause and the next hint of the failing visible case.
            const std::string summary = lab::read_file(dir + "/summary.md");
            EXPECT_NE(summary.find("tree stopped one step early"), std::string::npos);
            EXPECT_NE(summary.find("./lab hint 03"), std::string::npos);
        }
    }
    fs::remove_all(dir);
}

// A build log names the machine's folders bare as well as inside paths (ninja's failing command:
// "cmake_transform_depfile Ninja gccdepfile KIT grader BUILD ..."): a student's files hold neither.
TEST(Reports, ShowNoFolderOfTheGradingMachine)
{
    const std::string dir = ::testing::TempDir() + "lab_reports_paths";
    const std::string kit = lab::kit_root(), build = grading_build_dir();
    Grade g;
    g.backend = "cpu";
    g.device = "CPU backend";
    g.rubric_name = "rubric.toml";
    RungResult r;
    r.id = "03_sequential";
    r.submitted = true;
    r.unrun = "did not build";
    r.build_log = "FAILED: x.o\ncd " + build + "/grader && nvcc -I" + kit + "/kit/include -c " + kit +
                  "/harness/src/rung_glue.cu && cmake -E cmake_transform_depfile Ninja gccdepfile " + kit + " grader " + build +
                  " grader x.o.d\nreports in " + dir + "\n";
    g.rungs = {r};
    fs::remove_all(dir);
    write_reports(g, dir);
    for (const std::string& name : {"grade.json", "results.json", "prairielearn.json", "autolab.txt", "junit.xml", "summary.md",
                                    "gradebook.csv", "report.html"}) {
        const std::string text = lab::read_file(dir + "/" + name);
        for (const std::string& folder : {kit, build, dir})
            EXPECT_EQ(text.find(folder), std::string::npos) << name << " holds " << folder << ":\n" << text;
    }
    EXPECT_NE(lab::read_file(dir + "/summary.md").find("gccdepfile . grader"), std::string::npos) << "the kit's folder reads as .";
    fs::remove_all(dir);
}

// The lessons' table says where each rung was measured: at 2^20, and rung 13 at its one long row
// (rungs.json "lessons_at"), in the page and the summary alike.
TEST(Reports, SayWhereEachRungsLessonWasMeasured)
{
    Grade g;
    RungResult r03, r13;
    r03.id = "03_sequential";
    r13.id = "13_any_row_shape";
    r03.lessons.yours = r13.lessons.yours = {{"launches", 1}};
    g.rungs = {r03};
    EXPECT_EQ(lessons_measured_how(g).find("("), std::string::npos) << lessons_measured_how(g);
    g.rungs = {r03, r13};
    const std::string how = lessons_measured_how(g);
    EXPECT_NE(how.find("at n = 2^20 in blocks of 256 (13_any_row_shape: a softmax of one row of 262144 floats, clusters allowed)"),
              std::string::npos)
        << how;
    const std::string dir = ::testing::TempDir() + "lab_reports_lessons";
    fs::remove_all(dir);
    write_reports(g, dir);
    EXPECT_NE(lab::read_file(dir + "/summary.md").find("13_any_row_shape: a softmax of one row"), std::string::npos);
    EXPECT_NE(lab::read_file(dir + "/report.html").find("13_any_row_shape: a softmax of one row"), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
