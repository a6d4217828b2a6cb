// The grader's policy on what its runs handed back: compute-sanitizer's logs read, the sanitizer
// category's choice of cases and points, rungs graded side by side, reports written whatever bytes
// they hold. (grader_test.cpp: intake, screen, integrity, rubric; gpu_lock_test.cpp: the GPU's lock;
// judge_test.cpp: the judge's runners, their limits and the hang rule.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fresh_folder.hpp"
#include "judge.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "categories.hpp"
#include "plan.hpp"
#include "report_facts.hpp"
#include "reports.hpp"
#include "sandbox.hpp"
#include "rubric.hpp"
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

// A rung whose graded parts are all earned reads as such, though the points of a part not graded
// here (speed without a GPU) keep its total below its maximum: its points are not marked as lost.
TEST(Reports, MarkARungFullWhenEveryGradedPointIsEarned)
{
    Grade g;
    const auto rung = [](const std::string& id, double visible_score, bool speed_graded) {
        RungResult r;
        r.id = id;
        r.submitted = r.built = true;
        Part visible, speed;
        visible.name = "visible", visible.max = 5, visible.score = visible_score;
        speed.name = "speed", speed.max = 2, speed.graded = speed_graded;
        r.parts = {visible, speed};
        return r;
    };
    g.rungs = {rung("01_interleaved", 5, false), rung("02_strided_index", 4, false), rung("03_sequential", 5, true)};
    const std::string dir = ::testing::TempDir() + "lab_reports_full";
    fs::remove_all(dir);
    write_reports(g, dir);
    const std::string page = lab::read_file(dir + "/report.html");
    const auto cell = [&](const std::string& id) {
        const auto row = page.find("<tr><td><a href=\"#rung-" + id + "\">");
        return row == std::string::npos ? std::string() : page.substr(row, page.find("</td><td>", page.find("num", row)) - row);
    };
    EXPECT_NE(cell("01_interleaved").find("num ok"), std::string::npos) << cell("01_interleaved");
    EXPECT_NE(cell("02_strided_index").find("num bad"), std::string::npos) << cell("02_strided_index");
    EXPECT_NE(cell("03_sequential").find("num bad"), std::string::npos) << "speed graded and not earned: " << cell("03_sequential");
    fs::remove_all(dir);
}

}  // namespace
