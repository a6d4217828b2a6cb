// The registry is the one list of rungs: every rung it names has all its files, in order.
#include <gtest/gtest.h>

#include <fstream>

#include "lab/plan.hpp"
#include "lab/registry.hpp"
#include "lab/shape.hpp"
#include "lab/usage_error.hpp"

namespace {

bool exists(const std::string& relative) { return std::ifstream(lab::kit_path(relative)).good(); }

TEST(Registry, EveryRungHasItsFilesInEveryFolder)
{
    const auto& rungs = lab::Registry::kit().rungs();
    ASSERT_GE(rungs.size(), 4u);
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        const auto& rung = rungs[i];
        const std::string expected_number = (i + 1 < 10 ? "0" : "") + std::to_string(i + 1);
        EXPECT_EQ(rung.number, expected_number) << rung.id << " is out of order";
        for (const std::string& file : {"solutions/" + rung.id + ".cu", "exercises/" + rung.id + ".cu",
                                        "handouts/" + rung.id + ".md", "handouts/figures/" + rung.id + ".png"})
            EXPECT_TRUE(exists(file)) << rung.id << ": " << file << " is missing";
        // The handout shows its figure, and its measured numbers come from ./lab generate (its lesson's
        // parts and their order: Kit.HandoutsAreLessons, tests/kit/handouts_lint.py).
        std::ifstream handout(lab::kit_path("handouts/" + rung.id + ".md"));
        const std::string text((std::istreambuf_iterator<char>(handout)), std::istreambuf_iterator<char>());
        for (const std::string& part : {"](figures/" + rung.id + ".png)", std::string("<!-- numbers:begin -->"),
                                        std::string("## Common mistakes"), std::string("## Check your understanding")})
            EXPECT_NE(text.find(part), std::string::npos) << "handouts/" << rung.id << ".md lacks " << part;
        EXPECT_FALSE(rung.hints.empty()) << rung.id << " has no hints";
        EXPECT_FALSE(rung.ops.empty()) << rung.id << " has no operators";
        EXPECT_TRUE(rung.supports(lab::Op::sum) || rung.ops.size() > 1) << rung.id;
    }
}

TEST(Registry, FindsRungsByAnyOfTheirNames)
{
    const auto& registry = lab::Registry::kit();
    const auto* by_id = registry.find("03_sequential");
    ASSERT_NE(by_id, nullptr);
    EXPECT_EQ(registry.find("03"), by_id);
    EXPECT_EQ(registry.find("3"), by_id);
    EXPECT_EQ(registry.find("ex03"), by_id);
    EXPECT_EQ(registry.find("Ex03"), by_id);
    EXPECT_EQ(by_id->test_prefix(), "Ex03");
    EXPECT_EQ(by_id->label(), "ex03");
    EXPECT_EQ(registry.find("99"), nullptr);
    try {
        registry.get("nope");
        FAIL() << "an unknown rung should be refused";
    } catch (const lab::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("01_interleaved"), std::string::npos) << "should list the rungs: " << e.what();
    }
}

TEST(Registry, BlockRulesSayWhatTheyAllow)
{
    lab::BlockRule pow2;
    EXPECT_TRUE(pow2.allows(64));
    EXPECT_TRUE(pow2.allows(1024));
    EXPECT_FALSE(pow2.allows(32));
    EXPECT_FALSE(pow2.allows(96));
    EXPECT_FALSE(pow2.allows(2048));
    EXPECT_EQ(pow2.describe(), "a power of two from 64 to 1024");
    lab::BlockRule warps{lab::BlockRule::Kind::multiple_of_warp, 32, 1024};
    EXPECT_TRUE(warps.allows(96));
    EXPECT_FALSE(warps.allows(100));
    EXPECT_EQ(warps.describe(), "a multiple of 32 from 32 to 1024");
}

TEST(Registry, ReportsAMissingOrBrokenFile)
{
    EXPECT_THROW(lab::Registry::load("/nonexistent/rungs.json"), lab::UsageError);
    const std::string path = testing::TempDir() + "broken_rungs.json";
    std::ofstream(path) << R"({"rungs": [{"id": "1_bad"}]})";
    try {
        lab::Registry::load(path);
        FAIL() << "a malformed registry should be refused";
    } catch (const lab::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

// A driver rung's plan names one of its schemes and has one output slot; n = 0 is allowed there
// (the identity) and nowhere else; a scheme it does not have, or one given to another rung, is refused.
TEST(Registry, ADriverRungsPlanNamesItsScheme)
{
    const lab::RungInfo& driver = lab::Registry::kit().get("10");
    ASSERT_EQ(driver.shape->name(), "driver");
    const lab::LaunchPlan plan = lab::plan_launch(driver, 0, 256, {}, 0, "split");
    EXPECT_EQ(plan.grid, 1u);
    EXPECT_EQ(plan.variant, "split");
    EXPECT_EQ(lab::plan_launch(driver, std::size_t{1} << 33, 32, {}, 0, "two_phase").grid, 1u);
    try {
        lab::plan_launch(driver, 10, 256, {}, 0, "recursive");
        FAIL() << "an unknown scheme should be refused";
    } catch (const lab::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("multipass, split, two_phase"), std::string::npos) << e.what();
    }
    EXPECT_THROW(lab::plan_launch(driver, 10, 256), lab::UsageError);
    EXPECT_THROW(lab::plan_launch(lab::Registry::kit().get("08"), 10, 256, {}, 0, "split"), lab::UsageError);
    EXPECT_THROW(lab::plan_launch(lab::Registry::kit().get("08"), 0, 256), lab::UsageError);
}

// "variants" goes with a driver and only with it, and a driver names at least one.
TEST(Registry, VariantsOnlyForADriver)
{
    const std::string path = testing::TempDir() + "variant_rungs.json";
    const std::string rung = R"({"id": "01_x", "title": "t", "practises": "p", "items_per_thread": 1,
        "block": {"min": 32, "max": 1024, "rule": "power_of_two"}, "ops": ["sum"], "hints": {}, "forbids": [], )";
    std::ofstream(path) << "{\"rungs\": [" << rung << R"("shape": "plain", "form": "plain", "grid": "cover", "variants": ["a"]}]})";
    EXPECT_THROW(lab::Registry::load(path), lab::UsageError);
    std::ofstream(path) << "{\"rungs\": [" << rung << R"("shape": "driver"}]})";
    EXPECT_THROW(lab::Registry::load(path), lab::UsageError);
    std::ofstream(path) << "{\"rungs\": [" << rung << R"("shape": "driver", "variants": ["a", "b_c"]}]})";
    EXPECT_EQ(lab::Registry::load(path).rungs().front().variants.size(), 2u);
}

// A rung's shape is one the kit knows, and its entry holds only the fields that shape reads besides
// every rung's: one left over from another shape (a driver's "grid") is refused, naming it.
TEST(Registry, AShapeIsOneTheKitKnowsWithItsOwnFields)
{
    const std::string path = testing::TempDir() + "shape_rungs.json";
    const std::string rung = R"({"id": "01_x", "title": "t", "practises": "p", "items_per_thread": 1,
        "block": {"min": 32, "max": 1024, "rule": "power_of_two"}, "ops": ["sum"], "hints": {}, "forbids": [], )";
    const auto refusal = [&](const std::string& fields) -> std::string {
        std::ofstream(path) << "{\"rungs\": [" << rung << fields << "}]}";
        try {
            lab::Registry::load(path);
        } catch (const lab::UsageError& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(refusal(R"("shape": "plain", "form": "operator", "grid": "sm_count")"), "");
    EXPECT_NE(refusal(R"("shape": "cluster")").find("plain, driver, rows"), std::string::npos);
    EXPECT_NE(refusal(R"("form": "plain", "grid": "cover")"), "") << "every rung names its shape";
    EXPECT_NE(refusal(R"("shape": "driver", "variants": ["a"], "grid": "one")").find("\"grid\" is not a field of a driver"),
              std::string::npos);
    EXPECT_NE(refusal(R"("shape": "plain", "form": "plain", "grid": "cover", "check": "per_block")").find("\"check\""),
              std::string::npos);
    EXPECT_NE(refusal(R"("shape": "plain", "form": "plain", "grid": "rows")"), "");
    EXPECT_NE(refusal(R"("shape": "plain", "form": "driver", "grid": "cover")"), "");
}

// "lessons_at" (where a rung's lesson is measured) names one of the rung's operations and schemes
// and whole sizes, and says the shape in words; it becomes lab-explain's options. Rung 13's is one
// long row with clusters.
TEST(Registry, LessonsAtIsAShapeTheRungHas)
{
    const std::string path = testing::TempDir() + "lessons_at_rungs.json";
    const std::string rung = R"({"id": "01_x", "title": "t", "practises": "p", "items_per_thread": 1,
        "block": {"min": 32, "max": 1024, "rule": "power_of_two"}, "ops": ["sum"], "hints": {}, "forbids": [],
        "shape": "driver", "variants": ["a", "b"], )";
    const auto refusal = [&](const std::string& at) -> std::string {
        std::ofstream(path) << "{\"rungs\": [" << rung << R"("lessons_at": )" << at << "}]}";
        try {
            lab::Registry::load(path);
        } catch (const lab::UsageError& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(refusal(R"({"op": "sum", "n": 4096, "variant": "b", "what": "4096 elements, b"})"), "");
    EXPECT_EQ(lab::Registry::load(path).rungs().front().lessons_at,
              (std::vector<std::string>{"--op", "sum", "--n", "4096", "--variant", "b"}));
    EXPECT_NE(refusal(R"({"op": "max", "n": 4096, "what": "w"})").find("operation 'max'"), std::string::npos);
    EXPECT_NE(refusal(R"({"op": "sum", "n": 4096, "variant": "c", "what": "w"})").find("scheme 'c'"), std::string::npos);
    EXPECT_NE(refusal(R"({"op": "sum", "n": 0, "what": "w"})").find("\"n\", a whole number"), std::string::npos);
    EXPECT_NE(refusal(R"({"op": "sum", "n": 4096})").find("\"what\""), std::string::npos);
    const lab::RungInfo& r13 = lab::Registry::kit().get("13");
    EXPECT_EQ(r13.lessons_at, (std::vector<std::string>{"--op", "softmax", "--n", "262144", "--cols", "262144", "--variant",
                                                       "clusters"}));
    EXPECT_TRUE(lab::Registry::kit().get("12").lessons_at.empty());
}

// A row rung's plan: one block per row, the row length carried to the glue and the checker; a row
// length that does not divide n, or one given to a rung that reduces an array, is refused.
TEST(Registry, ARowRungsPlanHasABlockPerRow)
{
    const lab::RungInfo& rows = lab::Registry::kit().get("12");
    ASSERT_EQ(rows.shape->name(), "rows");
    const lab::LaunchPlan plan = lab::plan_launch(rows, 3 * 1856, 256, {}, 0, "", 1856);
    EXPECT_EQ(plan.grid, 3u);
    EXPECT_EQ(plan.cols, 1856u);
    EXPECT_EQ(lab::output_count(plan, lab::Op::dot), 3u);
    EXPECT_EQ(lab::output_count(plan, lab::Op::softmax), 3u * 1856u);
    EXPECT_EQ(lab::output_count(lab::LaunchPlan{7, 256, 0}, lab::Op::sum), 7u);
    try {
        lab::plan_launch(rows, 1000, 256, {}, 0, "", 3);
        FAIL() << "1000 is not a whole number of rows of 3";
    } catch (const lab::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("not a whole number of rows of 3"), std::string::npos) << e.what();
    }
    EXPECT_THROW(lab::plan_launch(rows, 1000, 256), lab::UsageError);  // no row length
    EXPECT_THROW(lab::plan_launch(lab::Registry::kit().get("08"), 1000, 256, {}, 0, "", 10), lab::UsageError);
}

// The row operations and the rows shape go together, and only together.
TEST(Registry, RowOperationsOnlyForARowRung)
{
    const std::string path = testing::TempDir() + "row_rungs.json";
    const std::string rung = R"({"id": "01_x", "title": "t", "practises": "p", "items_per_thread": 1,
        "block": {"min": 32, "max": 1024, "rule": "multiple_of_warp"}, "hints": {}, "forbids": [], )";
    std::ofstream(path) << "{\"rungs\": [" << rung << R"("shape": "rows", "ops": ["softmax", "dot"]}]})";
    EXPECT_EQ(lab::Registry::load(path).rungs().front().ops.size(), 2u);
    std::ofstream(path) << "{\"rungs\": [" << rung << R"("shape": "row_driver", "variants": ["no_clusters"], "ops": ["dot"]}]})";
    EXPECT_EQ(lab::Registry::load(path).rungs().front().variants.size(), 1u);
    // A row driver's schemes are the ones its glue binds (clusters, no_clusters); a rows rung has none.
    for (const char* wrong : {R"("shape": "rows", "ops": ["sum"]})",
                              R"("shape": "row_driver", "variants": ["clusters"], "ops": ["sum"]})",
                              R"("shape": "row_driver", "ops": ["dot"]})",
                              R"("shape": "row_driver", "variants": ["clusters", "split"], "ops": ["dot"]})",
                              R"("shape": "rows", "variants": ["clusters"], "ops": ["dot"]})",
                              R"("shape": "plain", "form": "plain", "grid": "cover", "ops": ["softmax"]})",
                              R"("shape": "driver", "variants": ["a"], "ops": ["dot"]})",
                              R"("shape": "plain", "form": "plain", "grid": "sm_count", "ops": ["dot"]})",
                              R"("shape": "rows", "grid": "rows", "ops": ["dot"]})"}) {
        std::ofstream(path) << "{\"rungs\": [" << rung << wrong << "]}";
        EXPECT_THROW(lab::Registry::load(path), lab::UsageError) << wrong;
    }
}

}  // namespace
