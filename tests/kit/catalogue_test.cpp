// The catalogue holds every case the issue list asks for, and its inputs behave as documented.
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
#include "lab/speed_plan.hpp"
#include "lab/rung_tests.hpp"
#include "lab/shape.hpp"
#include "lab/usage_error.hpp"

namespace {

using lab::Case;
using lab::Catalogue;
using lab::InputKind;

bool has_case(std::size_t n, unsigned block, InputKind input)
{
    for (const Case& c : Catalogue::kit().cases())
        if (c.op == lab::Op::sum && c.n == n && c.block == block && c.input == input) return true;
    return false;
}

bool is_prime(std::size_t n)
{
    for (std::size_t d = 2; d * d <= n; ++d)
        if (n % d == 0) return false;
    return n > 1;
}

TEST(SizeExpr, EvaluatesTermsInTheBlockSize)
{
    EXPECT_EQ(lab::eval_size("1", 256), 1u);
    EXPECT_EQ(lab::eval_size("b-1", 256), 255u);
    EXPECT_EQ(lab::eval_size("b+1", 64), 65u);
    EXPECT_EQ(lab::eval_size("2*b+1", 128), 257u);
    EXPECT_EQ(lab::eval_size("2^20-1", 0), 1048575u);
    EXPECT_EQ(lab::eval_size("4096*b+1", 1024), 4194305u);
    EXPECT_EQ(lab::eval_size("2^24", 1), 16777216u);
}

TEST(SizeExpr, RejectsMalformedExpressions)
{
    for (const char* bad : {"", "b-", "3^4", "x", "2*n", "b-b", "2^50", "1.5"})
        EXPECT_THROW(lab::eval_size(bad, 256), lab::UsageError) << "'" << bad << "' should be refused";
}

// Unique per operator among the cases one rung can run: the driver rungs' groups are their own.
TEST(Catalogue, NamesAreUniquePerOperator)
{
    std::set<std::string> names;
    for (const Case& c : Catalogue::kit().cases())
        EXPECT_TRUE(names.insert((c.driver_only ? "driver/" : "") + std::string(lab::name_of(c.op)) + "/" + c.name).second)
            << c.name;
    EXPECT_GT(names.size(), 100u);
}

// A driver rung (rungs 10, 11) runs only the driver groups' cases, each once per scheme, named by it and
// with the same input for every scheme; no other rung runs them.
TEST(Catalogue, DriverRungsRunTheirOwnCasesOncePerScheme)
{
    const lab::Registry& registry = lab::Registry::kit();
    const lab::RungInfo* driver = nullptr;
    for (const auto& rung : registry.rungs()) {
        const auto cases = Catalogue::kit().select(rung, lab::Op::sum);
        if (rung.shape->name() != "driver") {
            for (const Case& c : cases) EXPECT_FALSE(c.driver_only) << rung.id << " runs the driver case " << c.name;
            continue;
        }
        driver = &rung;
        ASSERT_GE(rung.variants.size(), 2u) << rung.id;
        std::size_t plain = 0;
        for (const Case& c : Catalogue::kit().cases()) plain += c.driver_only && c.op == lab::Op::sum && rung.block.allows(c.block);
        EXPECT_EQ(cases.size(), plain * rung.variants.size());
        std::set<std::string> names;
        for (const Case& c : cases) {
            EXPECT_TRUE(c.driver_only);
            EXPECT_EQ(c.name.rfind(c.variant + "_", 0), 0u) << c.name;
            names.insert(c.name);
        }
        EXPECT_EQ(names.size(), cases.size());
        // n = 0 (the identity) and beyond 2^31 (GPU only) are among them.
        EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [](const Case& c) { return c.n == 0; }));
        EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [](const Case& c) { return c.n > (std::size_t{1} << 31) && c.gpu_only; }));
        // Same input for each scheme: the seed does not depend on the scheme.
        EXPECT_EQ(cases[0].seed, cases[1].seed);
        EXPECT_NE(cases[0].variant, cases[1].variant);
    }
    ASSERT_NE(driver, nullptr) << "rungs.json has no driver rung";
}

// Every rung's racecheck test (GPU only, so never run on the CPU backend) watches a kernel case the
// rung's program has: a driver rung's once per scheme, since its cases carry the scheme's name.
TEST(Catalogue, RacecheckWatchesCasesTheRungRuns)
{
    for (const auto& rung : lab::Registry::kit().rungs()) {
        const auto tests = lab::rung_tests(rung, true);
        std::set<std::string> kernel_cases;
        std::size_t watched = 0;
        for (const auto& t : tests)
            if (t.kind == lab::TestKind::kernel) kernel_cases.insert(t.name);
        for (const auto& t : tests) {
            if (t.kind != lab::TestKind::racecheck) continue;
            ++watched;
            EXPECT_TRUE(kernel_cases.count(t.watched)) << rung.id << ": " << t.name << " watches " << t.watched
                                                       << ", which is not one of the rung's cases";
        }
        EXPECT_EQ(watched, std::max<std::size_t>(rung.variants.size(), 1)) << rung.id;
    }
}

// The one skip rule (lab::kit_skip_reason) that the suites and the grader apply: a GPU-only case is
// skipped on the CPU backend and no other is; on a GPU, a case of kAskFreeMemoryFrom bytes or more is
// held against the free memory, and a smaller one never asks for it. A speed or racecheck test is
// skipped on the CPU backend and never on a GPU, a launcher test never.
TEST(Catalogue, OneSkipRuleForEveryJudge)
{
    std::size_t asked = 0;
    std::size_t free = std::size_t{4} << 30;
    const auto free_bytes = [&] {
        ++asked;
        return free;
    };
    const std::size_t big = std::size_t{8} << 30, small = lab::kAskFreeMemoryFrom - 1;
    // The CPU backend: a GPU-only case, whatever its size, and nothing else; never a question to a GPU.
    const auto cpu = lab::kit_skip_reason(true, small, true, free_bytes);
    ASSERT_TRUE(cpu.has_value());
    EXPECT_NE(cpu->find("runs on a GPU only"), std::string::npos) << *cpu;
    EXPECT_FALSE(lab::kit_skip_reason(false, big, true, free_bytes).has_value());
    EXPECT_EQ(asked, 0u);
    // A GPU: small cases run without asking, GPU-only or not.
    EXPECT_FALSE(lab::kit_skip_reason(true, small, false, free_bytes).has_value());
    EXPECT_FALSE(lab::kit_skip_reason(false, small, false, free_bytes).has_value());
    EXPECT_EQ(asked, 0u);
    // A large case is asked about, GPU-only or not, and skipped with both figures when it does not fit.
    for (const bool gpu_only : {true, false}) {
        asked = 0;
        const auto skip = lab::kit_skip_reason(gpu_only, big, false, free_bytes);
        EXPECT_EQ(asked, 1u);
        ASSERT_TRUE(skip.has_value()) << "gpu_only " << gpu_only;
        EXPECT_EQ(*skip, "needs 8.0 GiB of device memory; this GPU has 4.0 GiB free");
    }
    free = big;
    EXPECT_FALSE(lab::kit_skip_reason(true, big, false, free_bytes).has_value()) << "exactly enough free memory is enough";
    // Every listed kernel case carries its device memory, so that the rule applies to it through the
    // test; the beyond-int cases are the ones large enough to ask.
    bool asks = false;
    for (const auto& rung : lab::Registry::kit().rungs())
        for (const auto& t : lab::rung_tests(rung, false)) {
            if (t.kind != lab::TestKind::kernel) continue;
            EXPECT_GT(t.device_bytes, 0u) << t.name;
            asks |= t.device_bytes >= lab::kAskFreeMemoryFrom;
        }
    EXPECT_TRUE(asks) << "no kernel case is large enough to be held against a GPU's free memory";
    // Each kind of test through the same rule, on the CPU backend and on a GPU with room.
    free = std::size_t{1} << 40;
    for (const auto& t : lab::rung_tests(lab::Registry::kit().get("07_coarsening"), true)) {
        const auto on_cpu = lab::kit_skip_reason(t, true, free_bytes);
        const auto on_gpu = lab::kit_skip_reason(t, false, free_bytes);
        EXPECT_FALSE(on_gpu.has_value()) << t.name << ": " << on_gpu.value_or("");
        EXPECT_EQ(on_cpu.has_value(), t.gpu_only) << t.name;
        if (t.kind == lab::TestKind::speed) EXPECT_EQ(on_cpu.value_or("").find("speed is measured on a GPU only"), 0u) << t.name;
        if (t.kind == lab::TestKind::racecheck) EXPECT_EQ(on_cpu.value_or(""), "racecheck runs on a GPU only.") << t.name;
        if (t.kind == lab::TestKind::kernel && t.gpu_only) EXPECT_EQ(on_cpu.value_or("").find("this case runs on a GPU only"), 0u);
    }
}

// The row rungs (12, 13) run the row groups' cases (rows x cols, named by both), and only they do; a group
// naming one rung is its alone. 12's reach one column and 2^20, one row and thousands, the numerical traps.
TEST(Catalogue, TheRowRungRunsRowCasesAndOnlyIt)
{
    const lab::RungInfo& rows = lab::Registry::kit().get("12");
    for (const auto& rung : lab::Registry::kit().rungs())
        for (const lab::Op op : lab::kAllOps)
            for (const Case& c : Catalogue::kit().select(rung, op)) {
                EXPECT_EQ(c.cols > 0, rung.shape->works_on_rows()) << rung.id << " runs " << c.name;
                EXPECT_TRUE(c.rung_only.empty() || c.rung_only == rung.id) << rung.id << " runs " << c.name;
            }
    // Rung 13 runs each of its cases once with clusters and once without.
    const lab::RungInfo& shapes = lab::Registry::kit().get("13");
    for (const lab::Op op : shapes.ops) {
        std::size_t clusters = 0, without = 0;
        for (const Case& c : Catalogue::kit().select(shapes, op)) {
            clusters += c.variant == "clusters";
            without += c.variant == "no_clusters";
            EXPECT_EQ(c.name.rfind(c.variant + "_", 0), 0u) << c.name;
        }
        EXPECT_GT(clusters, 0u) << lab::name_of(op);
        EXPECT_EQ(clusters, without) << lab::name_of(op);
    }
    std::size_t least_cols = SIZE_MAX, most_cols = 0, most_rows = 0;
    std::set<InputKind> kinds;
    for (const lab::Op op : rows.ops) {
        const auto cases = Catalogue::kit().select(rows, op);
        ASSERT_FALSE(cases.empty()) << lab::name_of(op);
        for (const Case& c : cases) {
            EXPECT_EQ(c.n, c.rows() * c.cols) << c.name;
            EXPECT_NE(c.name.find("_r" + std::to_string(c.rows()) + "_c" + std::to_string(c.cols) + "_b"), std::string::npos)
                << c.name;
            least_cols = std::min(least_cols, c.cols), most_cols = std::max(most_cols, c.cols);
            most_rows = std::max(most_rows, c.rows());
            kinds.insert(c.input);
        }
    }
    EXPECT_EQ(least_cols, 1u);
    EXPECT_GE(most_cols, std::size_t{1} << 20);
    EXPECT_GE(most_rows, 4096u);
    for (const InputKind k : {InputKind::huge_logits, InputKind::negative_logits, InputKind::large_mean, InputKind::exact_floats})
        EXPECT_TRUE(kinds.count(k)) << "no row case with " << lab::name_of(k);
}

TEST(Catalogue, RefusesMalformedRowGroups)
{
    const std::string path = testing::TempDir() + "row_cases.json";
    const std::string head = R"({"base_seed": 1, "groups": [{"name": "g", "inputs": ["float"], "blocks": [256], )";
    std::ofstream(path) << head << R"("for": "rows", "ops": ["softmax"], "rows": ["2"], "cols": ["b+1"]}]})";
    const Catalogue ok = Catalogue::load(path);
    ASSERT_EQ(ok.cases().size(), 1u);
    EXPECT_EQ(ok.cases().front().name, "float_r2_c257_b256");
    EXPECT_EQ(ok.cases().front().n, 514u);
    for (const char* wrong : {R"("for": "rows", "ops": ["softmax"], "sizes": ["3"]})",                   // no shape
                              R"("for": "rows", "ops": ["softmax"], "rows": ["2"], "cols": ["3"], "sizes": ["6"]})",
                              R"("for": "rows", "ops": ["sum"], "rows": ["2"], "cols": ["3"]})",          // not a row op
                              R"("ops": ["dot"], "sizes": ["3"]})",                                        // a row op in an array group
                              R"("for": "rows", "ops": ["dot"], "rows": ["2"], "cols": ["3"], "grids": ["sm"]})"}) {
        std::ofstream(path) << head << wrong << "]}";
        EXPECT_THROW(Catalogue::load(path), lab::UsageError) << wrong;
    }
    std::ofstream(path) << R"({"base_seed": 1, "groups": [{"name": "g", "inputs": ["int"], "blocks": [256], "for": "rows",
        "ops": ["dot"], "rows": ["2"], "cols": ["3"]}]})";
    EXPECT_THROW(Catalogue::load(path), lab::UsageError) << "the row operations take floats";
}

// LAB_CASES_SEED: a grading's seed read as lab-grade reads it (hex or decimal), the catalogue then
// drawn from it as the grader's visible cases are; anything that is not a whole number refused.
TEST(Catalogue, TakesAGradingsSeedFromTheEnvironment)
{
    const char* before = std::getenv("LAB_CASES_SEED");
    const std::string kept = before ? before : "";
    unsetenv("LAB_CASES_SEED");
    EXPECT_FALSE(lab::cases_seed_from_environment().has_value());
    setenv("LAB_CASES_SEED", "", 1);
    EXPECT_FALSE(lab::cases_seed_from_environment().has_value());
    setenv("LAB_CASES_SEED", "0x76abb039384d953f", 1);
    EXPECT_EQ(lab::cases_seed_from_environment(), std::optional<std::uint64_t>(0x76abb039384d953full));
    setenv("LAB_CASES_SEED", "12345", 1);
    EXPECT_EQ(lab::cases_seed_from_environment(), std::optional<std::uint64_t>(12345));
    for (const char* wrong : {"seed", "0x12zz", "12 ", "-3", "0x1ffffffffffffffff"}) {
        setenv("LAB_CASES_SEED", wrong, 1);
        EXPECT_THROW(lab::cases_seed_from_environment(), lab::UsageError) << wrong;
    }
    if (before) setenv("LAB_CASES_SEED", kept.c_str(), 1);
    else unsetenv("LAB_CASES_SEED");
    // The seed moves every visible case's seed as the grader's does (plan.cpp: the same load).
    const Catalogue kit = Catalogue::load(lab::kit_path("tests/cases.json"));
    const Catalogue moved = Catalogue::load(lab::kit_path("tests/cases.json"), 0x76abb039384d953full);
    ASSERT_EQ(kit.cases().size(), moved.cases().size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < kit.cases().size(); ++i) {
        EXPECT_EQ(kit.cases()[i].name, moved.cases()[i].name);
        differ += kit.cases()[i].seed != moved.cases()[i].seed;
    }
    EXPECT_EQ(differ, kit.cases().size());
}

TEST(Catalogue, CoversTheEdgesAtEveryBlockSize)
{
    for (unsigned b : {64u, 128u, 256u, 512u, 1024u})
        for (InputKind input : {InputKind::ints, InputKind::floats, InputKind::exact_floats})
            for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                                  std::size_t{b - 1}, std::size_t{b}, std::size_t{b + 1}, std::size_t{1856}})
                EXPECT_TRUE(has_case(n, b, input))
                    << "missing " << lab::name_of(input) << "_n" << n << "_b" << b;
}

TEST(Catalogue, CoversLargeAndAwkwardSizes)
{
    bool power_minus_one = false, power_plus_one = false, prime = false, thousands_of_blocks = false, big = false;
    for (const Case& c : Catalogue::kit().cases()) {
        const std::size_t n = c.n;
        for (int k = 10; k <= 24; ++k) {
            power_minus_one |= n == (std::size_t{1} << k) - 1;
            power_plus_one |= n == (std::size_t{1} << k) + 1;
        }
        prime |= n > 990000 && n < 1010000 && is_prime(n);
        thousands_of_blocks |= n / (2 * c.block) >= 2000 && c.input != InputKind::exact_floats;
        big |= n == (std::size_t{1} << 24);
    }
    EXPECT_TRUE(power_minus_one) << "no 2^k - 1 case";
    EXPECT_TRUE(power_plus_one) << "no 2^k + 1 case";
    EXPECT_TRUE(prime) << "no prime size near 10^6";
    EXPECT_TRUE(thousands_of_blocks) << "no case with thousands of blocks, even at two elements per thread";
    EXPECT_TRUE(big) << "no 2^24 case";
}

bool has_group_case(lab::Op op, InputKind input)
{
    for (const Case& c : Catalogue::kit().cases())
        if (c.op == op && c.input == input) return true;
    return false;
}

TEST(Catalogue, CoversTheOperatorsEdgeCases)
{
    using lab::Op;
    EXPECT_TRUE(has_group_case(Op::max, InputKind::negative_ints)) << "max over all-negative ints";
    EXPECT_TRUE(has_group_case(Op::max, InputKind::negative_floats)) << "max over all-negative floats";
    EXPECT_TRUE(has_group_case(Op::min, InputKind::positive_ints)) << "min over all-positive ints";
    EXPECT_TRUE(has_group_case(Op::min, InputKind::positive_floats)) << "min over all-positive floats";
    EXPECT_TRUE(has_group_case(Op::max, InputKind::negative_infinity)) << "max over -inf only";
    for (InputKind nan : {InputKind::nan_first, InputKind::nan_middle, InputKind::nan_last}) {
        EXPECT_TRUE(has_group_case(Op::max, nan)) << lab::name_of(nan);
        EXPECT_TRUE(has_group_case(Op::min, nan)) << lab::name_of(nan);
    }
    EXPECT_TRUE(has_group_case(Op::max, InputKind::extreme_ints)) << "INT_MIN and INT_MAX";
    EXPECT_TRUE(has_group_case(Op::product, InputKind::unit_ints)) << "int products";
    EXPECT_TRUE(has_group_case(Op::product, InputKind::unit_floats)) << "float products";
    EXPECT_TRUE(has_group_case(Op::sum, InputKind::spike_floats)) << "one huge element at a random position";
    EXPECT_TRUE(has_group_case(Op::sum, InputKind::heavy_tail_floats)) << "heavy-tailed values";
}

TEST(Catalogue, CoversGridStrideRungs)
{
    bool smaller_grid = false, larger_grid = false, misaligned = false, beyond_int = false, single_warp = false;
    for (const Case& c : Catalogue::kit().cases()) {
        smaller_grid |= !c.grid.empty() && c.grid_blocks(132) < 132;
        larger_grid |= !c.grid.empty() && c.grid_blocks(132) > 132;
        misaligned |= c.offset % 4 != 0;
        beyond_int |= c.n > (std::size_t{1} << 31) && c.gpu_only;
        single_warp |= c.block == 32;
    }
    EXPECT_TRUE(smaller_grid) << "a grid smaller than the SM count";
    EXPECT_TRUE(larger_grid) << "a grid larger than the SM count";
    EXPECT_TRUE(misaligned) << "an input that is not 16-byte aligned";
    EXPECT_TRUE(beyond_int) << "more than 2^31 elements, on the GPU";
    EXPECT_TRUE(single_warp) << "a one-warp block";
}

TEST(Inputs, SpecialKindsHoldWhatTheirNamesSay)
{
    auto make = [](InputKind kind, std::size_t n) {
        Case c;
        c.input = kind;
        c.n = n;
        c.seed = 5;
        return c;
    };
    for (float v : lab::make_input<float>(make(InputKind::negative_floats, 1000)).values) EXPECT_LT(v, 0.0f);
    for (int v : lab::make_input<int>(make(InputKind::positive_ints, 1000)).values) EXPECT_GT(v, 0);
    for (float v : lab::make_input<float>(make(InputKind::negative_infinity, 10)).values) EXPECT_EQ(v, -INFINITY);
    EXPECT_TRUE(std::isnan(lab::make_input<float>(make(InputKind::nan_first, 100)).values.front()));
    EXPECT_TRUE(std::isnan(lab::make_input<float>(make(InputKind::nan_last, 100)).values.back()));
    EXPECT_TRUE(std::isnan(lab::make_input<float>(make(InputKind::nan_middle, 100)).values[50]));
    const auto extremes = lab::make_input<int>(make(InputKind::extreme_ints, 1000)).values;
    EXPECT_NE(std::find(extremes.begin(), extremes.end(), INT_MIN), extremes.end());
    EXPECT_NE(std::find(extremes.begin(), extremes.end(), INT_MAX), extremes.end());
    for (float v : lab::make_input<float>(make(InputKind::exact_floats, 1 << 20)).values) EXPECT_NE(v, 0.0f);
    const auto spike = lab::make_input<float>(make(InputKind::spike_floats, 1 << 20)).values;
    EXPECT_EQ(std::count_if(spike.begin(), spike.end(), [](float v) { return std::fabs(v) == 0x1.0p20f; }), 1);
    EXPECT_EQ(std::count_if(spike.begin(), spike.end(), [](float v) { return std::fabs(v) > 1.0f; }), 1);
    // Heavy tails: the largest 1% of the elements carry most of the magnitude.
    auto tail = lab::make_input<float>(make(InputKind::heavy_tail_floats, 1 << 16)).values;
    for (auto& v : tail) v = std::fabs(v);
    std::sort(tail.begin(), tail.end());
    double all = 0, top = 0;
    for (std::size_t i = 0; i < tail.size(); ++i) (i >= tail.size() * 99 / 100 ? top : all) += tail[i];
    EXPECT_GT(top, all) << "the top 1% should outweigh the other 99%";
    long long product = 1;
    for (int v : lab::make_input<int>(make(InputKind::unit_ints, 1 << 20)).values) product *= v;
    EXPECT_LE(std::llabs(product), 1LL << 20) << "an int product that could overflow";
}

// The remainder without a division (lab/random.hpp) is z % d for every z and d: random ones, and those
// next to d's multiples and the ends of the range, for divisors small, of 32 bits and of 64 bits.
TEST(Inputs, TheRemainderWithoutADivisionIsTheRemainder)
{
    lab::Rng rng(0x5eed);
    long wrong = 0;
    for (const std::uint64_t d : std::initializer_list<std::uint64_t>{1ull, 2ull, 3ull, 7ull, 2001ull, 1000000ull, 1ull << 32, (1ull << 32) + 1, 0x9E3779B97F4A7C15ull,
                                  (1ull << 63) + 1, ~0ull}) {
        const lab::Remainder remainder(d);
        const std::uint64_t top = ~0ull / d * d;
        for (const std::uint64_t z : std::initializer_list<std::uint64_t>{0ull, 1ull, ~0ull, d - 1, d, d + 1, 2 * d, top, top - 1})
            wrong += remainder(z) != z % d;
        for (int k = 0; k < 200000; ++k) {
            const std::uint64_t z = rng.next();
            wrong += remainder(z) != z % d;
        }
    }
    EXPECT_EQ(wrong, 0);
    // And a range's draws are Rng::integer's, the whole int range included.
    for (const auto& [lo, hi] : {std::pair<std::int64_t, std::int64_t>{-1000, 1000}, {INT_MIN, INT_MAX}, {1, 1000000}, {5, 5}}) {
        lab::Rng one(lo * 31 + hi), other(lo * 31 + hi);
        const lab::IntegersIn draw(lo, hi);
        for (int k = 0; k < 100000; ++k) wrong += draw(one) != other.integer(lo, hi);
    }
    EXPECT_EQ(wrong, 0);
}

TEST(Inputs, AreReproducibleFromTheSeedAndNeverConstant)
{
    Case c;
    c.name = "float_n4096_b256";
    c.input = InputKind::floats;
    c.n = 4096;
    c.seed = 42;
    const auto a = lab::make_input<float>(c), b = lab::make_input<float>(c);
    EXPECT_EQ(a.values, b.values);
    EXPECT_NE(std::set<float>(a.values.begin(), a.values.end()).size(), 1u);
    c.seed = 43;
    EXPECT_NE(lab::make_input<float>(c).values, a.values);
}

// Inputs of 2^22 values and more are filled by several threads (lab/inputs.cpp): the values must be
// those one generator gives in order, so a seed means the same input on any machine.
TEST(Inputs, ManyThreadsGiveWhatOneGeneratorGivesInOrder)
{
    Case c;
    c.n = (std::size_t{1} << 22) + 3;
    c.seed = 0x5eed;
    c.input = InputKind::ints;
    const auto ints = lab::make_input<int>(c).values;
    const std::int64_t bound = std::clamp<std::int64_t>(INT_MAX / static_cast<std::int64_t>(c.n), 1, 1000);
    lab::Rng one(c.seed);
    std::size_t differ = 0;
    for (int v : ints) differ += v != one.integer(-bound, bound);
    EXPECT_EQ(differ, 0u) << "ints filled in parallel differ from one generator's sequence";

    c.input = InputKind::exact_floats;  // two draws per value
    const auto exact = lab::make_input<float>(c).values;
    const std::int64_t magnitude = std::clamp<std::int64_t>((std::int64_t{1} << 24) / static_cast<std::int64_t>(c.n), 1, 64);
    lab::Rng two(c.seed);
    differ = 0;
    for (float v : exact) {
        const auto m = two.integer(1, magnitude);
        differ += v != static_cast<float>(two.integer(0, 1) ? m : -m);
    }
    EXPECT_EQ(differ, 0u) << "two draws a value: the threads' starting points are off";

    c.input = InputKind::spike_floats;  // one draw per value, then the spike's place and sign from where one generator ends
    const auto spike = lab::make_input<float>(c).values;
    lab::Rng three(c.seed);
    for (std::size_t i = 0; i < spike.size(); ++i) three.next();
    const auto at = static_cast<std::size_t>(three.integer(0, static_cast<std::int64_t>(c.n) - 1));
    EXPECT_EQ(std::fabs(spike[at]), 0x1.0p20f) << "the generator did not end where one generator ends";
}

TEST(Inputs, IntSumsCannotOverflow)
{
    Case c;
    c.input = InputKind::ints;
    c.n = std::size_t{1} << 24;
    c.seed = 7;
    const auto input = lab::make_input<int>(c);
    long long bound = 0;
    for (int v : input.values) bound = std::max<long long>(bound, std::llabs(v));
    EXPECT_LE(bound * static_cast<long long>(c.n), 2147483647LL);
    EXPECT_GT(bound, 1);
}

TEST(Inputs, ExactFloatsSumExactlyInAnyOrder)
{
    Case c;
    c.input = InputKind::exact_floats;
    c.n = 1 << 20;
    c.seed = 9;
    const auto input = lab::make_input<float>(c);
    float forward = 0, backward = 0;
    for (float v : input.values) forward += v;
    for (auto it = input.values.rbegin(); it != input.values.rend(); ++it) backward += *it;
    double exact = 0;
    for (float v : input.values) exact += v;
    EXPECT_EQ(forward, exact);
    EXPECT_EQ(backward, exact);
}

TEST(Inputs, CanariesChangeTheResultOfEachOperator)
{
    EXPECT_GT(lab::canary<float>(lab::Op::sum), 1e20f);
    EXPECT_GT(lab::canary<float>(lab::Op::max), 1e20f);
    EXPECT_LT(lab::canary<float>(lab::Op::min), -1e20f);
    EXPECT_TRUE(std::isnan(lab::poison<float>()));
}

}  // namespace
