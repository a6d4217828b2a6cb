// The record of the hints a student saw, as the grader meets it: taken in with the submission
// (exercises/hints_used.json), read as untrusted input (malformed is "no record", never a crash),
// weighed by the rubric's [hints] only when it says so, and written into grade.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fresh_folder.hpp"
#include "intake.hpp"
#include "lab/hints.hpp"
#include "reports.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lab::grading;

RungResult rung(const std::string& id, double score)
{
    RungResult r;
    r.id = id;
    Part visible;
    visible.name = "visible";
    visible.score = score;
    visible.max = 5;
    r.parts.push_back(visible);
    return r;
}

TEST(Hints, TheRecordComesInWithTheSubmission)
{
    const fs::path dir = fresh_folder("lab-hints-intake-");
    fs::create_directories(dir / "exercises");
    std::ofstream(dir / "exercises" / "hints_used.json") << lab::hints_record_text({{"05-warp-unroll", 2}});
    std::ofstream(dir / "exercises" / "05_unroll_last_warp.cu") << "// a kernel\n";
    const Intake intake = take_in(dir.string());
    ASSERT_TRUE(intake.hints_record);
    EXPECT_EQ(lab::parse_hints_record(*intake.hints_record), (lab::HintLevels{{"05-warp-unroll", 2}}));
    EXPECT_EQ(intake.files.count("05_unroll_last_warp"), 1u);
    // Too large a file is refused, as a rung's is.
    std::ofstream(dir / "exercises" / "hints_used.json") << std::string(300 * 1024, ' ');
    const Intake big = take_in(dir.string());
    EXPECT_FALSE(big.hints_record);
    ASSERT_EQ(big.refused.size(), 1u);
    EXPECT_NE(big.refused[0].find("exercises/hints_used.json: larger than"), std::string::npos) << big.refused[0];
    fs::remove_all(dir);
}

// Whatever the file holds, the verdict is a record or "no record", with a note saying which.
TEST(Hints, AMalformedRecordIsNoRecord)
{
    const std::vector<RungResult> rungs{rung("05_unroll_last_warp", 5)};
    const auto none = [](int) { return 0.0; };
    for (const std::string& text :
         {std::string("not json"), std::string("[]"), std::string("{\"levels\": []}"), std::string("{\"levels\": {\"05-a\": 4}}"),
          std::string("{\"levels\": {\"05-a\": 0}}"), std::string("{\"levels\": {\"05-a\": 1.5}}"), std::string("{\"levels\": {\"05-a\": \"2\"}}"),
          std::string("{\"levels\": {\"../x\": 1}}"), std::string("{\"levels\": {\"05_A\": 1}}"), std::string("\xff\xfe{}"),
          std::string("{\"levels\": {\"05-a\": 99999999999999999999999}}")}) {
        const HintsResult h = hints_verdict(text, rungs, none);
        EXPECT_FALSE(h.recorded) << text;
        EXPECT_TRUE(h.levels.empty()) << text;
        EXPECT_NE(h.note.find("no record of hints"), std::string::npos) << text;
    }
    const HintsResult absent = hints_verdict(std::nullopt, rungs, none);
    EXPECT_FALSE(absent.recorded);
    EXPECT_NE(absent.note.find("has no exercises/hints_used.json"), std::string::npos);
    const HintsResult good = hints_verdict(std::string("{\"levels\": {\"05-warp-unroll\": 3, \"05-load\": 1}}"), rungs, none);
    EXPECT_TRUE(good.recorded);
    EXPECT_EQ(good.levels, (std::map<std::string, int>{{"05-warp-unroll", 3}, {"05-load", 1}}));
    EXPECT_TRUE(good.points_off.empty());
}

// The default rubric takes nothing off; one with [hints] takes its cost per TODO off the TODO's
// rung, never more than the rung earned.
TEST(Hints, TheRubricWeighsThemOnlyWhenItSays)
{
    const Rubric standard = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    for (int level = 1; level <= 3; ++level) EXPECT_EQ(standard.hints.cost(level), 0.0);
    const fs::path dir = fresh_folder("lab-hints-rubric-");
    std::ofstream(dir / "r.toml") << "[hints]\nlevel_2 = 0.5\nlevel_3 = 2.0\n";
    const Rubric weighed = load_rubric((dir / "r.toml").string());
    std::ofstream(dir / "bad.toml") << "[hints]\nlevel_4 = 1.0\n";
    EXPECT_THROW(load_rubric((dir / "bad.toml").string()), std::runtime_error);
    Grade g;
    g.rungs = {rung("03_sequential", 5), rung("05_unroll_last_warp", 1)};
    g.hints = hints_verdict(std::string("{\"levels\": {\"03-loop\": 2, \"03-load\": 1, \"05-warp-unroll\": 3}}"), g.rungs,
                            [&](int level) { return weighed.hints.cost(level); });
    EXPECT_EQ(g.hints.points_off, (std::map<std::string, double>{{"03_sequential", 0.5}, {"05_unroll_last_warp", 1.0}}));
    EXPECT_DOUBLE_EQ(g.earned(), 6.0);
    EXPECT_DOUBLE_EQ(g.score(), 4.5);
    // grade.json carries the record and what it cost.
    write_reports(g, (dir / "report").string());
    std::ifstream in(dir / "report" / "grade.json");
    const auto doc = nlohmann::json::parse(in);
    EXPECT_EQ(doc.at("hints").at("recorded"), true);
    EXPECT_EQ(doc.at("hints").at("levels").at("05-warp-unroll"), 3);
    EXPECT_EQ(doc.at("hints").at("points_off").at("03_sequential"), 0.5);
    fs::remove_all(dir);
}

}  // namespace
