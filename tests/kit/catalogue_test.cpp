// The catalogue holds every case the issue list asks for, and its inputs behave as documented.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

#include "lab/cases.hpp"
#include "lab/inputs.hpp"
#include "lab/registry.hpp"
#include "lab/speed.hpp"
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

TEST(Catalogue, NamesAreUniquePerOperator)
{
    std::set<std::string> names;
    for (const Case& c : Catalogue::kit().cases())
        EXPECT_TRUE(names.insert(std::string(lab::name_of(c.op)) + "/" + c.name).second) << c.name;
    EXPECT_GT(names.size(), 100u);
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

namespace {

TEST(SpeedPlan, HasOneLinePerRungOfTheRegistry)
{
    const auto& plan = lab::SpeedPlan::kit();
    EXPECT_GE(plan.n, std::size_t{1} << 26) << "speed inputs must be larger than any GPU's L2";
    for (const auto& rung : lab::Registry::kit().rungs()) {
        const lab::SpeedThreshold* t = plan.find(rung.id);
        ASSERT_NE(t, nullptr) << rung.id << " has no speed thresholds in tests/speed.json";
        EXPECT_TRUE(rung.block.allows(t->block)) << rung.id << ": its speed block size is not one it runs with";
        EXPECT_GT(t->vs_baseline, 0) << rung.id;
        EXPECT_LE(t->vs_baseline, t->reference_vs_baseline) << rung.id << ": the reference would fail its own threshold";
        EXPECT_LE(t->vs_cpu, t->reference_vs_cpu) << rung.id;
        EXPECT_LE(t->of_ceiling, t->reference_of_ceiling) << rung.id;
    }
}

TEST(SpeedPlan, CalibrationKeepsEightTenthsAndTheCeilingForBandwidthBoundRungs)
{
    lab::SpeedMeasurement slow, fast;
    slow.ms = 2.0, slow.baseline_ms = 3.0, slow.cpu_ms = 100.0, slow.gbps = 1000, slow.ceiling = {2000, 1900};
    fast.ms = 1.0, fast.baseline_ms = 3.0, fast.cpu_ms = 100.0, fast.gbps = 1800, fast.ceiling = {2000, 1900};
    const auto s = lab::calibrate("03_sequential", 256, slow);
    EXPECT_DOUBLE_EQ(s.vs_baseline, 1.2);
    EXPECT_DOUBLE_EQ(s.vs_cpu, 40);
    EXPECT_DOUBLE_EQ(s.of_ceiling, 0) << "50% of the ceiling: too far from it to require a fraction";
    lab::SpeedMeasurement middle = fast;
    middle.gbps = 1500;  // 75%: limited by its instructions more than by memory
    EXPECT_DOUBLE_EQ(lab::calibrate("06_complete_unroll", 256, middle).of_ceiling, 0);
    const auto f = lab::calibrate("08_warp_shuffle", 256, fast);
    EXPECT_DOUBLE_EQ(f.of_ceiling, 0.72);
    EXPECT_DOUBLE_EQ(f.reference_of_ceiling, 0.9);
    lab::SpeedPlan plan;
    plan.n = 64;
    plan.calibrated_on = "a GPU";
    plan.thresholds = {s, f};
    const std::string json = lab::to_json(plan);
    EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 9) << "one line per rung:\n" << json;
}

}  // namespace
