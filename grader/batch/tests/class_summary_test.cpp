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
        student("dee", json::array(), 0.0, "unfinished (TODO lines left)"),
        student("eve", passing, 9.0),
    };
    const std::string md = lab::batch::class_summary_markdown(outcomes, "Lab");
    // Two students (ana once, though two of her cases) read past the end: rung 04's own words name the TODO.
    EXPECT_NE(md.find("| 04_first_add | 2 | reads_past_end: TODO 04-two-loads"), std::string::npos) << md;
    EXPECT_NE(md.find("| 04_first_add | 1 | stopped at a limit (time, memory or processes) | cy, sum int_n7_b64 |"), std::string::npos)
        << md;
    EXPECT_NE(md.find("| 04_first_add | 1 | unfinished (TODO lines left) | student dee |"), std::string::npos) << md;
    // Five handed rung 04 in, one is correct: 20% of them and of the class; none timed.
    EXPECT_NE(md.find("| 04_first_add | 5 | 1 | not timed | 20% | 20% | 4.10 / 9.00 |"), std::string::npos) << md;
    const std::string html = lab::batch::class_summary_html(outcomes, "Lab");
    EXPECT_NE(html.find("<td>04_first_add</td><td class=\"n\">2</td><td>reads_past_end: TODO 04-two-loads"), std::string::npos);
}

}  // namespace
