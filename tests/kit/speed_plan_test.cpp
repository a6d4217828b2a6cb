// Kit tests: the speed tests' thresholds (tests/speed.json, lab/speed_plan.hpp): one line per rung,
// the rule that makes thresholds from a calibration's runs, the defaults of an uncalibrated GPU, and
// the file as the kit writes it.
#include <gtest/gtest.h>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include "lab/cases.hpp"
#include "lab/inputs.hpp"
#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/shape.hpp"
#include "lab/speed_plan.hpp"
#include "lab/rung_tests.hpp"
#include "lab/usage_error.hpp"

namespace {

TEST(SpeedPlan, HasOneLinePerRungOfTheRegistryAndEveryCalibrationPassesItsReference)
{
    const auto& plan = lab::SpeedPlan::kit();
    EXPECT_GE(plan.n, std::size_t{1} << 26) << "speed inputs must be larger than any GPU's L2";
    for (const auto& rung : lab::Registry::kit().rungs()) {
        const auto cases = plan.cases_of(rung.id);
        ASSERT_FALSE(cases.empty()) << rung.id << " has no speed test in tests/speed.json";
        // A row rung has a speed test per kernel, over the plan's matrix; every other rung, one.
        if (rung.shape->works_on_rows()) {
            EXPECT_EQ(cases.size(), rung.ops.size()) << rung.id << ": a speed test for each of its kernels";
            for (const lab::Op op : rung.ops)
                EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const auto* c) { return c->op == lab::name_of(op); }))
                    << rung.id << " has no speed test for " << lab::name_of(op);
            EXPECT_GE(plan.rows * plan.cols * sizeof(float), std::size_t{64} << 20) << "the row matrix must outgrow L2";
        } else {
            EXPECT_EQ(cases.size(), 1u) << rung.id;
        }
        for (const lab::SpeedPlan::Case* c : cases) {
            // A rung with schemes (a driver, a row driver) times one of them, named; no other rung names one.
            if (!rung.variants.empty())
                EXPECT_NE(std::find(rung.variants.begin(), rung.variants.end(), c->scheme), rung.variants.end())
                    << rung.id << ": its speed test must name one of its schemes (" << rung.describe_variants()
                    << "), not '" << c->scheme << "'";
            else
                EXPECT_EQ(c->scheme, "") << rung.id << " has one kernel, but its speed test names a scheme";
            EXPECT_EQ(c->op.empty(), !rung.shape->works_on_rows()) << c->key();
            EXPECT_TRUE(rung.block.allows(c->block)) << rung.id << ": its speed block size is not one it runs with";
            int calibrated = 0;
            for (const auto& calibration : plan.calibrations) {
                const lab::RungCalibration* r = calibration.find(c->key());
                if (!r) continue;  // that GPU gets the defaults for it (SpeedPlan::thresholds_for)
                ++calibrated;
                EXPECT_GE(calibration.runs, 10) << calibration.gpu << ": fewer than 10 runs say little about the spread";
                EXPECT_GT(r->vs_baseline.threshold, 0) << calibration.gpu << " " << c->key();
                EXPECT_LT(r->vs_baseline.threshold, r->vs_baseline.min)
                    << calibration.gpu << " " << c->key() << ": the reference's slowest run would fail";
                EXPECT_LT(r->of_ceiling.threshold, r->of_ceiling.min) << calibration.gpu << " " << c->key();
                EXPECT_EQ(r->of_ceiling.threshold > 0, r->of_ceiling.median >= 0.8)
                    << calibration.gpu << " " << c->key() << ": a share of the ceiling is required of the bandwidth-bound "
                    << "rungs, and only of them";
            }
            // Every array rung on every calibrated GPU; a row kernel on at least one.
            if (c->op.empty()) EXPECT_EQ(calibrated, static_cast<int>(plan.calibrations.size())) << c->key();
            else EXPECT_GE(calibrated, 1) << c->key() << " is calibrated on no GPU";
        }
    }
}

// A row kernel's threshold separates it from the kit's naive row kernel, never from an array rung
// that happens to sit below it: its earlier technique is 1x the baseline, at the naive kernel's share
// of the ceiling (the reference's of_ceiling over its vs_baseline, slowest runs).
TEST(SpeedPlan, ARowKernelIsComparedWithTheNaiveRowKernel)
{
    lab::Calibration c;
    c.gpu = "g";
    c.multiprocessors = 100;
    c.ceiling_gbps = 3000;
    c.runs = 10;
    c.rungs = {{"a", lab::Spread{2.00, 2.01, 2.02, 0}, lab::Spread{0.50, 0.51, 0.52, 0}, lab::Spread{90, 95, 100, 0}},
               {"r/dot", lab::Spread{3.00, 3.10, 3.20, 0}, lab::Spread{0.90, 0.92, 0.93, 0}, lab::Spread{90, 95, 100, 0}}};
    lab::set_thresholds(c);
    const double room = 3.00 * (1 - 2 * 0.20 / 3.10), share_room = 0.90 * (1 - 2 * 0.03 / 0.92);
    EXPECT_NEAR(c.rungs[1].vs_baseline.threshold, std::floor(100 * std::sqrt(1.0 * room)) / 100, 1e-9)
        << "the row kernel was compared with rung a (2.02x), not with the naive row kernel (1x)";
    EXPECT_NEAR(c.rungs[1].of_ceiling.threshold, std::floor(100 * std::sqrt(0.90 / 3.00 * share_room)) / 100, 1e-9);
    // The array rung is untouched by the row kernel after it.
    // Its spread (1%) gives less room than the least, 3%.
    EXPECT_NEAR(c.rungs[0].vs_baseline.threshold, std::floor(100 * std::sqrt(0.5 * 2.00 * (1 - 0.03))) / 100, 1e-9);
}

// A speed test whose case asks the plain kernel's speed (tests/speed.json: rung 12's dot) holds a
// submission to 90% of the kit's naive row kernel, not to the geometric middle between it and the
// reference: a plain coalesced dot (1.15x the naive kernel, 79% of the ceiling on an H200) passes,
// a dot that loads its rows uncoalesced (about half the naive kernel's speed) fails; the kit's
// own H200 calibration says so too.
TEST(SpeedPlan, AKernelWhoseLessonBuysNoSpeedAsksThePlainKernels)
{
    const std::string text = R"({"n": 67108864, "rows": {"count": 4096, "cols": 4096},
        "rungs": [{"rung": "12_real_kernels", "block": 256, "op": "dot", "asks": "baseline"},
                  {"rung": "12_real_kernels", "block": 256, "op": "softmax"}],
        "calibrations": [{"gpu": "g", "multiprocessors": 132, "ceiling_gbps": 4257, "runs": 10, "rungs": [
          {"rung": "12_real_kernels/dot", "vs_baseline": {"min": 1.450, "median": 1.453, "max": 1.467},
           "of_ceiling": {"min": 0.994, "median": 1.001, "max": 1.006}, "vs_cpu": {"min": 800, "median": 845, "max": 884}},
          {"rung": "12_real_kernels/softmax", "vs_baseline": {"min": 2.609, "median": 2.628, "max": 2.653},
           "of_ceiling": {"min": 0.956, "median": 0.968, "max": 0.985}, "vs_cpu": {"min": 381, "median": 398, "max": 422}}]}]})";
    const auto plan = lab::SpeedPlan::parse(text, "speed.json");
    const lab::RungCalibration& dot = *plan.calibrations[0].find("12_real_kernels/dot");
    ASSERT_TRUE(dot.asks_baseline);
    EXPECT_DOUBLE_EQ(dot.vs_baseline.threshold, 0.90);
    EXPECT_DOUBLE_EQ(dot.of_ceiling.threshold, std::floor(100 * 0.9 * 0.994 / 1.450) / 100);  // 0.61
    const auto passes = [&](const std::string& key, double vs_baseline, double of_ceiling) {
        const lab::RungCalibration& r = *plan.calibrations[0].find(key);
        return vs_baseline >= r.vs_baseline.threshold && of_ceiling >= r.of_ceiling.threshold;
    };
    EXPECT_TRUE(passes("12_real_kernels/dot", 1.15, 0.79)) << "a plain coalesced dot must earn its speed points";
    EXPECT_FALSE(passes("12_real_kernels/dot", 0.50, 0.34)) << "an uncoalesced dot must not";
    // The softmax keeps the rung's step (reading its row once against the naive kernel's three reads).
    EXPECT_FALSE(plan.calibrations[0].find("12_real_kernels/softmax")->asks_baseline);
    EXPECT_FALSE(passes("12_real_kernels/softmax", 1.10, 0.40)) << "a softmax that reads its row three times must not pass";
    // The kit's own plan marks the row rungs' dots so (13's at 4096 x 4096 is a block a row, as 12's), and
    // only them.
    for (const auto& c : lab::SpeedPlan::kit().cases)
        EXPECT_EQ(c.asks == "baseline", c.key() == "12_real_kernels/dot" || c.key() == "13_any_row_shape/dot") << c.key();
    // A misspelt "asks" is refused, not read as the rung's step.
    std::string bad = text;
    const std::string asks = "\"asks\": \"baseline\"";
    bad.replace(bad.find(asks), asks.size(), "\"asks\": \"baselin\"");
    EXPECT_THROW(lab::SpeedPlan::parse(bad, "speed.json"), lab::UsageError);
}

lab::Spread spread(double min, double median, double max) { return lab::Spread{min, median, max, 0}; }

lab::Calibration ladder(const std::string& gpu, double scale)
{
    lab::Calibration c;
    c.gpu = gpu;
    c.multiprocessors = 100;
    c.ceiling_gbps = 3000;
    c.runs = 10;
    c.rungs = {{"a", spread(0.98, 1.0, 1.02), spread(0.10, 0.11, 0.12), spread(90, 95, 100)},
               {"b", spread(1.58, 1.60, 1.62), spread(0.50, 0.51, 0.52), spread(90, 95, 100)},
               {"c", spread(2.00 * scale, 2.04 * scale, 2.10 * scale), spread(0.82, 0.85, 0.86), spread(90, 95, 100)},
               {"d", spread(2.00 * scale, 2.05 * scale, 2.08 * scale), spread(0.83, 0.85, 0.87), spread(90, 95, 100)}};
    lab::set_thresholds(c);
    return c;
}

// The reference's lowest run less two relative spreads (at least 3% less), and no higher than the
// geometric middle between that and the best run of the fastest earlier rung that is clearly slower.
double expected_threshold(const lab::Spread& s, double earlier)
{
    const double room = s.min * (1 - std::max(2 * (s.max - s.min) / s.median, 0.03));
    return std::floor(100 * (earlier > 0 ? std::sqrt(earlier * room) : room) + 1e-9) / 100;
}

TEST(SpeedPlan, ThresholdsFollowTheMeasuredSpreadAndSeparateTheRungs)
{
    const lab::Calibration c = ladder("GPU", 1.0);
    const auto& r = c.rungs;
    EXPECT_DOUBLE_EQ(r[0].vs_baseline.threshold, expected_threshold(r[0].vs_baseline, 0.5))
        << "the first rung is separated from half the baseline's speed";
    EXPECT_DOUBLE_EQ(r[1].vs_baseline.threshold, expected_threshold(r[1].vs_baseline, 1.02));
    EXPECT_DOUBLE_EQ(r[2].vs_baseline.threshold, expected_threshold(r[2].vs_baseline, 1.62));
    EXPECT_DOUBLE_EQ(r[3].vs_baseline.threshold, expected_threshold(r[3].vs_baseline, 1.62))
        << "rung c is as fast as d, within the noise: the separation is from b";
    for (const auto& rung : r) {
        EXPECT_LT(rung.vs_baseline.threshold, rung.vs_baseline.min) << rung.rung;
        EXPECT_EQ(rung.vs_cpu.threshold, 0) << "one CPU thread's speed is reported, never required";
    }
    EXPECT_GT(r[1].vs_baseline.threshold, r[0].vs_baseline.max) << "rung a's kernel in b's slot must fail";
    EXPECT_GT(r[2].vs_baseline.threshold, r[1].vs_baseline.max) << "rung b's kernel in c's slot must fail";
    EXPECT_EQ(r[0].of_ceiling.threshold, 0);
    EXPECT_EQ(r[1].of_ceiling.threshold, 0) << "51% of the ceiling: not bandwidth-bound, no share required";
    EXPECT_DOUBLE_EQ(r[2].of_ceiling.threshold, expected_threshold(r[2].of_ceiling, 0.52));
    // A reference calibrated with almost no spread still gets 3% of room: a grading times the
    // baseline and the submission apart, where the calibration times them side by side.
    lab::Calibration tight = c;
    tight.rungs[2].vs_baseline = spread(2.100, 2.102, 2.104);
    lab::set_thresholds(tight);
    EXPECT_LE(tight.rungs[2].vs_baseline.threshold, 2.100 * 0.97);
    EXPECT_DOUBLE_EQ(tight.rungs[2].vs_baseline.threshold, expected_threshold(tight.rungs[2].vs_baseline, 1.62));
    // A noisier reference gets more room.
    lab::Calibration noisy = c;
    noisy.rungs[2].vs_baseline = spread(1.9, 2.04, 2.2);
    lab::set_thresholds(noisy);
    EXPECT_LT(noisy.rungs[2].vs_baseline.threshold, c.rungs[2].vs_baseline.threshold);
}

lab::SpeedMeasurement measurement(double vs_baseline, double ceiling_over_baseline)
{
    lab::SpeedMeasurement m;
    m.baseline_ms = 1.0;
    m.ms = 1.0 / vs_baseline;
    m.gbps = 400 * vs_baseline;  // the baseline runs at 400 GB/s
    m.ceiling = {400 * ceiling_over_baseline, 0};
    return m;
}

TEST(SpeedPlan, AnUncalibratedGpuGetsConservativeDefaults)
{
    lab::SpeedPlan plan;
    plan.n = 64;
    plan.cases = {{"a", 256}, {"b", 256}, {"c", 256}, {"d", 256}};
    plan.calibrations = {ladder("Big GPU", 1.0), ladder("Bigger GPU", 1.2)};
    const auto calibrated = plan.thresholds_for("c", "Big GPU", 100, measurement(2.0, 7.5));
    EXPECT_TRUE(calibrated.calibrated);
    EXPECT_EQ(calibrated.vs_baseline, plan.calibrations[0].rungs[2].vs_baseline.threshold);
    EXPECT_NE(calibrated.source.find("calibrated on Big GPU (100 multiprocessors) from 10 runs"), std::string::npos)
        << calibrated.source;
    EXPECT_NE(calibrated.reference_vs_baseline.find("2.00x to 2.10x (median 2.04x)"), std::string::npos)
        << calibrated.reference_vs_baseline;

    // Another GPU, or the same name with fewer multiprocessors: the lowest calibrated threshold.
    for (const auto& [gpu, sms] : std::vector<std::pair<std::string, int>>{{"Small GPU", 40}, {"Big GPU", 50}}) {
        const auto t = plan.thresholds_for("c", gpu, sms, measurement(2.0, 7.5));
        EXPECT_FALSE(t.calibrated);
        EXPECT_DOUBLE_EQ(t.vs_baseline, std::min(plan.calibrations[0].rungs[2].vs_baseline.threshold,
                                                 plan.calibrations[1].rungs[2].vs_baseline.threshold));
        EXPECT_DOUBLE_EQ(t.of_ceiling, std::floor(100 * 0.75 * 0.82) / 100);
        EXPECT_NE(t.source.find("has no calibration in tests/speed.json"), std::string::npos) << t.source;
        EXPECT_NE(t.source.find("./lab calibrate"), std::string::npos) << t.source;
    }
    // Slow memory: the ceiling is only 2.4 times the baseline, so at most half of that is asked.
    EXPECT_DOUBLE_EQ(plan.thresholds_for("c", "Small GPU", 40, measurement(2.0, 2.4)).vs_baseline, 1.2);
    EXPECT_DOUBLE_EQ(plan.thresholds_for("b", "Small GPU", 40, measurement(2.0, 2.4)).of_ceiling, 0)
        << "not bandwidth-bound on the calibrated GPUs";
    // The calibrated GPU, running far below the ceiling it was calibrated at: the defaults, and why.
    const auto throttled = plan.thresholds_for("c", "Big GPU", 100, measurement(2.0, 5.0));
    EXPECT_FALSE(throttled.calibrated);
    EXPECT_NE(throttled.source.find("below 80% of the one calibrated"), std::string::npos) << throttled.source;
}

TEST(SpeedPlan, TheKitsFileIsWrittenAsTheKitWritesIt)
{
    const std::string path = lab::kit_path("tests/speed.json");
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(lab::SpeedPlan::parse(text.str(), path).to_json(), text.str())
        << "tests/speed.json is not in the form ./lab calibrate writes";
}

TEST(SpeedPlan, WritesWhatItReads)
{
    lab::SpeedPlan plan;
    plan.n = 64;
    plan.cases = {{"a", 256}, {"b", 128}, {"c", 256}, {"d", 32}};
    plan.calibrations = {ladder("Big GPU", 1.0), ladder("Bigger GPU", 1.2)};
    const std::string json = plan.to_json();
    EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 10 + 2 * (5 + 4) + 2) << "a line per rung, and per rung of each GPU:\n" << json;
    const lab::SpeedPlan back = lab::SpeedPlan::parse(json, "test");
    EXPECT_EQ(back.to_json(), json);
    ASSERT_EQ(back.calibrations.size(), 2u);
    EXPECT_EQ(back.calibrations[1].gpu, "Bigger GPU");
    EXPECT_EQ(back.cases[3].block, 32u);
    EXPECT_NEAR(back.calibrations[0].rungs[2].vs_baseline.min, 2.0, 1e-9);
    EXPECT_THROW(lab::SpeedPlan::parse("{\"n\": 1}", "test"), lab::UsageError);
}

}  // namespace
