// Kit.Batch.ClassSummary*: the class summary's rung table and "What the class got wrong", from
// grade.json texts written here (no grading).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gradebook.hpp"

namespace {

using lab::batch::Outcome;
using nlohmann::json;

json failed_case(const std::string& name, const std::string& message, const std::vector<std::string>& causes = {})
{
    json c = {{"name", name}, {"op", "sum"}, {"hidden", false}, {"status", "failed"}, {"message", message},
              {"replay", "./lab replay 04 --n 1025 --block 256 --seed 0x1"}};
    if (!causes.empty()) c["causes"] = causes;
    return c;
}

// A grade.json with rung 04 only: its cases as given, its score and max.
Outcome student(const std::string& id, const json& cases, double score, const std::string& unrun = "")
{
    const json rung = {{"id", "04_first_add"}, {"submitted", true}, {"built", unrun.empty()}, {"unrun", unrun},
                       {"score", score}, {"max", 9.0}, {"cases", cases},
                       {"parts", json::array({{{"name", "speed"}, {"graded", false}, {"score", 0.0}, {"max", 1.0}}})}};
    Outcome o;
    o.id = id;
    o.graded = true;
    o.grade = {{"score", score}, {"max", 9.0}, {"rungs", json::array({rung})}, {"seed", "0x1"}, {"device", "cpu"}};
    return o;
}

TEST(ClassSummary, GroupsTheClassFailuresByWhatTheyPointTo)
{
    const json passing = json::array({{{"name", "int_n1_b64"}, {"op", "sum"}, {"hidden", false}, {"status", "passed"},
                                       {"message", ""}, {"replay", ""}}});
    const std::vector<Outcome> outcomes = {
        student("ana", json::array({failed_case("int_n1025_b256", "block 4 wrong", {"reads_past_end"}),
                                    failed_case("int_n2049_b256", "block 8 wrong", {"reads_past_end"})}),
                4.0),
        student("ben", json::array({failed_case("int_n513_b128", "block 4 wrong", {"reads_past_end"})}), 4.5),
        student("cy", json::array({failed_case("int_n7_b64", "stopped after 20 s, the rubric's limit for one case")}), 3.0),
        // The CPU backend stopped its launch at its own time limit: the same cause as cy's.
        student("fay", json::array({failed_case("int_n9_b64", "the kernel failed (threads in forward order): the kernel: "
                                                              "cudaErrorLaunchTimeout: the launch timed out and was terminated")}),
                3.0),
        // The runner was killed for its CPU time (the judge's words, whatever the locale's for the signal).
        student("gus", json::array({failed_case("int_n11_b64", "the runner was killed by signal 24 (CPU time limit exceeded): "
                                                               "it used more CPU time than the rubric allows in the middle of this case")}),
                3.0),
        student("dee", json::array(), 0.0, "unfinished (TODO lines left)"),
        student("eve", passing, 9.0),
    };
    const std::string md = lab::batch::class_summary_markdown(outcomes, "Lab");
    // Two students (ana once, though two of her cases) read past the end: rung 04's own words name the TODO.
    EXPECT_NE(md.find("| 04_first_add | 2 | reads_past_end: TODO 04-two-loads"), std::string::npos) << md;
    EXPECT_NE(md.find("| 04_first_add | 3 | stopped at a limit (time, CPU time, memory or processes) | cy, sum int_n7_b64 |"), std::string::npos)
        << md;
    EXPECT_NE(md.find("| 04_first_add | 1 | unfinished (TODO lines left) | student dee |"), std::string::npos) << md;
    // Seven handed rung 04 in, one is correct: 14% of them and of the class; none timed.
    EXPECT_NE(md.find("| 04_first_add | 7 | 1 | not timed | 14% | 14% | 3.79 / 9.00 |"), std::string::npos) << md;
    const std::string html = lab::batch::class_summary_html(outcomes, "Lab");
    EXPECT_NE(html.find("<td>04_first_add</td><td class=\"n\">2</td><td>reads_past_end: TODO 04-two-loads"), std::string::npos);
}

// A grade.json of rungs 03 and 04, each correct or not (one case, passed or failed), or not handed in.
json two_rungs(bool correct_03, bool correct_04, bool handed_in_03 = true)
{
    const auto rung = [](const std::string& id, bool correct, bool handed_in) {
        const json c = {{"name", "int_n1_b64"}, {"op", "sum"}, {"hidden", false}, {"status", correct ? "passed" : "failed"},
                        {"message", correct ? "" : "block 0 wrong"}, {"replay", ""}};
        return json{{"id", id}, {"submitted", handed_in}, {"built", handed_in}, {"unrun", handed_in ? "" : "not submitted"},
                    {"score", correct ? 9.0 : 1.5}, {"max", 9.0}, {"cases", handed_in ? json::array({c}) : json::array()},
                    {"parts", json::array()}};
    };
    const json rungs = json::array({rung("03_sequential", correct_03, handed_in_03), rung("04_first_add", correct_04, true)});
    double score = 0;
    for (const json& r : rungs) score += r.at("score").get<double>();
    return {{"score", score}, {"max", 18.0}, {"rungs", rungs}, {"seed", "0x1"}, {"device", "cpu"}, {"graded_at", "2026-11-26T10:00:00Z"}};
}

TEST(ClassSummary, ProgressOverResubmissionsNamesTheRungsGainedAndLost)
{
    json before = lab::batch::history_entry(two_rungs(true, false), 1), now = lab::batch::history_entry(two_rungs(false, true), 1);
    before["graded_at"] = "2026-11-20T09:00:00Z";
    EXPECT_TRUE(now.at("rungs").at("04_first_add").at("correct").get<bool>());
    EXPECT_FALSE(now.at("rungs").at("03_sequential").at("correct").get<bool>());
    const lab::batch::Progress p = lab::batch::progress_of(json::array({before, now}));
    EXPECT_EQ(p.gradings, 2);
    EXPECT_EQ(p.since, "2026-11-20T09:00:00Z");
    EXPECT_EQ(p.gained, std::vector<std::string>{"04_first_add"});
    EXPECT_EQ(p.lost, std::vector<std::string>{"03_sequential"});
    EXPECT_TRUE(lab::batch::progress_of(json::array({now})).gained.empty());

    Outcome ana;
    ana.id = "ana";
    ana.graded = true;
    ana.grade = two_rungs(false, true);
    ana.history = json::array({before, now});
    Outcome ben = ana;
    ben.id = "ben";
    ben.history = json::array({now});
    const std::string md = lab::batch::class_summary_markdown({ana, ben}, "Lab");
    EXPECT_NE(md.find("| ana | 2 | 2026-11-20T09:00:00Z | 04_first_add | 03_sequential |"), std::string::npos) << md;
    EXPECT_EQ(md.find("| ben |"), std::string::npos) << md;  // graded once: not in the progress table
    const std::string html = lab::batch::class_summary_html({ana, ben}, "Lab");
    EXPECT_NE(html.find("<td data-v=\"0\" title=\"since 2026-11-20T09:00:00Z\">+04 \u221203</td>"), std::string::npos) << html;
}

TEST(ClassSummary, StudentTableCarriesEachRungsStateForTheFilterAndLinksEveryName)
{
    Outcome ana;
    ana.id = "ana b#1 \u00e9";  // a space, a '#' and a non-ASCII letter in a folder's name
    ana.graded = true;
    ana.grade = two_rungs(true, false);
    Outcome ben;
    ben.id = "ben";
    ben.graded = true;
    ben.grade = two_rungs(false, true, false);
    Outcome cy;
    cy.id = "cy";
    cy.why_not = "lab-grade exited with 2";
    const std::string html = lab::batch::class_summary_html({ana, ben, cy}, "Lab");
    EXPECT_NE(html.find("<tr data-graded=\"yes\" data-r03=\"correct\" data-r04=\"failed\"><td>ana b#1 \u00e9</td>"),
              std::string::npos) << html;
    EXPECT_NE(html.find("<tr data-graded=\"yes\" data-r03=\"missing\" data-r04=\"correct\"><td>ben</td>"), std::string::npos);
    EXPECT_NE(html.find("<tr data-graded=\"no\" data-r03=\"none\" data-r04=\"none\"><td>cy</td>"), std::string::npos);
    EXPECT_NE(html.find("href=\"students/ana%20b%231%20%C3%A9/report.html\""), std::string::npos) << html;
    EXPECT_EQ(html.find("href=\"students/cy/"), std::string::npos);  // no report to link to
    // The filter: a radio button per rung and state, counting its students, and the CSS rule that
    // hides every other row while it is checked.
    EXPECT_NE(html.find("id=\"show-04-failed\"> 1</label>"), std::string::npos);
    EXPECT_NE(html.find("body:has(#show-04-failed:checked) #students-table tbody tr:not([data-r04=\"failed\"]){display:none}"),
              std::string::npos);
    EXPECT_NE(html.find("id=\"show-ungraded\"> not graded (1)"), std::string::npos);
}

TEST(ClassSummary, SpeedIsPlottedWhereItWasTimedAndSaidNotTimedElsewhere)
{
    const auto timed = [](const std::string& id, double gbps, bool fast) {
        Outcome o;
        o.id = id;
        o.graded = true;
        o.grade = two_rungs(true, true);
        o.grade["rungs"][0]["gbps"] = gbps;
        o.grade["rungs"][0]["parts"] =
            json::array({{{"name", "speed"}, {"graded", true}, {"score", fast ? 1.0 : 0.0}, {"max", 1.0}}});
        return o;
    };
    const std::string html = lab::batch::class_summary_html({timed("ana", 2400, true), timed("ben", 700, false)}, "Lab");
    EXPECT_NE(html.find("<title>ana: 2400.00 GB/s, fast enough</title>"), std::string::npos) << html;
    EXPECT_NE(html.find("fill=\"#c33\" fill-opacity=\"0.7\"><title>ben: 700.00 GB/s, not fast enough</title>"), std::string::npos);
    EXPECT_NE(html.find(">03_sequential</text>"), std::string::npos);
    EXPECT_EQ(html.find(">04_first_add</text>"), std::string::npos);  // not timed: no row
    Outcome no_points = timed("cy", 900, false);
    no_points.grade["rungs"][0]["parts"] = json::array();  // a rubric with no speed points for the rung
    EXPECT_NE(lab::batch::class_summary_html({no_points}, "Lab").find("cy: 900.00 GB/s, no speed points in the rubric"),
              std::string::npos);
    const std::string untimed = lab::batch::class_summary_html({timed("ana", 0, false)}, "Lab");
    EXPECT_NE(untimed.find("Not timed: the class was graded without a GPU"), std::string::npos);
    EXPECT_EQ(untimed.find("<circle"), std::string::npos);
}

}  // namespace

namespace {

// A student on the LMS roster who handed nothing in is a row of the gradebook ("no submission", 0
// of the class's maximum) and named among those not graded; the page is titled as it is given.
TEST(ClassSummary, ARosterStudentWithoutASubmissionIsNamed)
{
    Outcome none;
    none.id = "zed";
    none.no_submission = true;
    none.why_not = "no submission";
    const std::vector<Outcome> outcomes = {student("ana", json::array(), 9.0), none};
    const std::string csv = lab::batch::gradebook_csv(outcomes);
    EXPECT_NE(csv.find("\nzed,no submission,0.00,9.00,"), std::string::npos) << csv;
    const std::string md = lab::batch::class_summary_markdown(outcomes, "Lab 3: class grades");
    EXPECT_EQ(md.rfind("# Lab 3: class grades\n", 0), 0u) << md;
    EXPECT_NE(md.find("1 of 1 submissions graded (and 1 student of the LMS roster handed nothing in)"), std::string::npos) << md;
    EXPECT_NE(md.find("zed: no submission"), std::string::npos) << md;
    const std::string html = lab::batch::class_summary_html(outcomes, "Lab 3: class grades");
    EXPECT_NE(html.find("<title>Lab 3: class grades</title>"), std::string::npos);
    EXPECT_NE(html.find("zed: no submission"), std::string::npos);
}

// A speed part not graded on the grading's machine (no GPU) is held, not lost: its category's cell
// of the gradebook is empty and the `held` column has its points; graded on a GPU and missed, it
// is 0.00 and nothing is held.
TEST(ClassSummary, TheGradebookHoldsWhatWasNotGradedHere)
{
    Outcome cpu = student("ana", json::array(), 8.0), gpu = student("ben", json::array(), 8.0);
    cpu.grade["held"] = 1.0;
    gpu.grade["rungs"][0]["parts"][0]["graded"] = true;
    gpu.grade["held"] = 0.0;
    const std::string csv = lab::batch::gradebook_csv({cpu, gpu});
    EXPECT_NE(csv.find(",visible,hidden,speed,sanitizer,held,late_penalty,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\nana,graded,8.00,9.00,8.00,0.00,0.00,,0.00,1.00,,0x1,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\nben,graded,8.00,9.00,8.00,0.00,0.00,0.00,0.00,0.00,,0x1,"), std::string::npos) << csv;
}

// A rung no graded student started (unfinished or not handed in) is named, for grade-all's warning
// that the rubric may grade rungs the course has not assigned; one started by anyone is not.
TEST(ClassSummary, RungsNobodyStartedAreNamed)
{
    const auto with_rung = [](Outcome o, const std::string& id, bool submitted, const std::string& unrun) {
        o.grade["rungs"].push_back({{"id", id}, {"submitted", submitted}, {"built", unrun.empty()}, {"unrun", unrun},
                                    {"score", 0.0}, {"max", 10.0}, {"cases", json::array()}});
        return o;
    };
    const json none = json::array();
    Outcome ana = with_rung(student("ana", none, 9.0), "05_unroll_last_warp", true, "unfinished (TODO lines left)");
    Outcome ben = with_rung(student("ben", none, 0.0, "unfinished (TODO lines left)"), "05_unroll_last_warp", false, "not submitted");
    EXPECT_EQ(lab::batch::rungs_nobody_started({ana, ben}), "05");
    // ben's rung 04 unfinished too: 04 and 05.
    EXPECT_EQ(lab::batch::rungs_nobody_started({with_rung(student("ana", none, 0.0, "unfinished (TODO lines left)"), "05_unroll_last_warp",
                                                          true, "unfinished (TODO lines left)"),
                                                ben}),
              "04, 05");
    // One student who started rung 05 (it did not build) is enough.
    Outcome cy = with_rung(student("cy", none, 9.0), "05_unroll_last_warp", true, "did not build");
    EXPECT_EQ(lab::batch::rungs_nobody_started({ana, ben, cy}), "");
    // One graded student says nothing of a class.
    EXPECT_EQ(lab::batch::rungs_nobody_started({ben}), "");
}

// A cause the rung has no words of its own for (missing_last_step is rung 03's; here in rung 04) is
// said in the pattern's general words, never as its bare name.
TEST(ClassSummary, ACauseWithoutTheRungsOwnWordsSaysWhatItMeans)
{
    const std::vector<Outcome> outcomes = {
        student("ana", json::array({failed_case("int_n1025_b256", "block 1 wrong", {"missing_last_step"})}), 4.0),
        student("ben", json::array(), 9.0)};
    const std::string md = lab::batch::class_summary_markdown(outcomes, "Lab");
    EXPECT_NE(md.find("| 04_first_add | 1 | missing_last_step: each wrong block holds half its tree"), std::string::npos) << md;
}

}  // namespace
