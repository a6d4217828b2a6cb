// The checker finds wrong, unwritten and imprecise results, and nothing else.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "lab/check.hpp"
#include "lab/inputs.hpp"
#include "lab/shape.hpp"

namespace {

// A plain rung whose grid covers the input (each block's slot checked against its slice) or, with
// "sm_count", fills the device (only the blocks' slots combined are checked).
lab::RungInfo block_rung(unsigned items_per_thread, const std::string& grid = "cover")
{
    lab::RungInfo rung;
    rung.id = "99_fake";
    rung.number = "99";
    rung.items_per_thread = items_per_thread;
    rung.ops = {lab::Op::sum};
    lab::read_shape_text(rung, R"({"shape": "plain", "form": "plain", "grid": ")" + grid + "\"}");
    return rung;
}

// The right per-block sums of `input` for blocks of `per_block` elements.
template <typename T>
std::vector<T> block_sums(const std::vector<T>& input, std::size_t per_block)
{
    std::vector<T> sums((input.size() + per_block - 1) / per_block, T(0));
    for (std::size_t i = 0; i < input.size(); ++i) sums[i / per_block] += input[i];
    return sums;
}

TEST(Check, AcceptsRightBlockResults)
{
    std::vector<int> input(1000);
    std::iota(input.begin(), input.end(), -300);
    const lab::LaunchPlan plan{4, 256, 0};
    const auto verdict = lab::check_output(block_rung(1), lab::Op::sum, plan, input, block_sums(input, 256));
    EXPECT_TRUE(verdict.ok) << verdict.first_wrong;
    EXPECT_EQ(verdict.checked, 4u);
}

TEST(Check, NamesTheFirstWrongBlock)
{
    std::vector<int> input(1000, 3);
    input[600] = 5;
    auto slots = block_sums(input, 256);
    slots[2] -= 1;
    slots[3] += 1;
    const auto verdict = lab::check_output(block_rung(1), lab::Op::sum, lab::LaunchPlan{4, 256, 0}, input, slots);
    EXPECT_FALSE(verdict.ok);
    EXPECT_EQ(verdict.wrong, 2u);
    EXPECT_NE(verdict.first_wrong.find("block 2 of 4 (elements 512..767)"), std::string::npos) << verdict.first_wrong;
    EXPECT_NE(verdict.first_wrong.find("expected 770, got 769"), std::string::npos) << verdict.first_wrong;
}

// Checks over 2^22 values and more are split among the cores (lab/check.cpp): the verdict must be
// the one a single pass gives, the first wrong block the lowest and every wrong one counted.
TEST(Check, ALargeCheckSplitAmongCoresNamesTheSameFirstBlock)
{
    std::vector<int> input((std::size_t{1} << 23) + 5, 1);
    const std::size_t blocks = (input.size() + 255) / 256;
    auto slots = block_sums(input, 256);
    slots[blocks - 1] += 1;  // a late slice's block, then an early one: the early one is the first
    slots[blocks / 3] -= 1;
    slots[blocks / 3 + 1] = lab::poison<int>();
    const auto verdict = lab::check_output(block_rung(1), lab::Op::sum, lab::LaunchPlan{static_cast<unsigned>(blocks), 256, 0},
                                           input, slots);
    EXPECT_FALSE(verdict.ok);
    EXPECT_EQ(verdict.wrong, 3u);
    EXPECT_EQ(verdict.checked, blocks);
    EXPECT_EQ(verdict.first_wrong_block, static_cast<long>(blocks / 3)) << verdict.first_wrong;
    EXPECT_NE(verdict.first_wrong.find("expected 256, got 255"), std::string::npos) << verdict.first_wrong;
}

TEST(Check, ReportsSlotsTheKernelNeverWrote)
{
    std::vector<float> input(600, 0.5f);
    auto slots = block_sums(input, 512);
    slots[1] = lab::poison<float>();
    const auto verdict = lab::check_output(block_rung(2), lab::Op::sum, lab::LaunchPlan{2, 256, 0}, input, slots);
    EXPECT_FALSE(verdict.ok);
    EXPECT_NE(verdict.first_wrong.find("never written"), std::string::npos) << verdict.first_wrong;
}

TEST(Check, FloatToleranceFollowsTheDocumentedBound)
{
    // 256 elements of 0.1f, one block of 256, one element per thread: depth = 1 + log2(256) = 9, and
    // the tolerance is gamma(9) * sum(|x|).
    std::vector<float> input(256, 0.1f);
    const lab::LaunchPlan plan{1, 256, 0};
    EXPECT_EQ(lab::addition_depth(block_rung(1), plan, 256), 9u);
    EXPECT_EQ(lab::addition_depth(block_rung(2), lab::LaunchPlan{1, 128, 0}, 256), 9u);
    const double exact = 256 * static_cast<double>(0.1f);
    const double tolerance = lab::rounding_allowance(9, exact);
    EXPECT_DOUBLE_EQ(tolerance, 9 * 0x1.0p-24 / (1 - 9 * 0x1.0p-24) * exact);
    const auto inside = lab::check_output(block_rung(1), lab::Op::sum, plan, input,
                                          std::vector<float>{static_cast<float>(exact + 0.9 * tolerance)});
    const auto outside = lab::check_output(block_rung(1), lab::Op::sum, plan, input,
                                           std::vector<float>{static_cast<float>(exact + 1.5 * tolerance)});
    EXPECT_TRUE(inside.ok) << inside.first_wrong;
    EXPECT_FALSE(outside.ok);
}

TEST(Check, GridStrideDepthIsEachThreadsChainAndOneBlockTree)
{
    const auto rung = block_rung(1, "sm_count");
    // 2^24 elements over 1056 blocks of 256 threads: a chain of 63, then 4 + 8 + 1; the number of
    // blocks adds nothing, since the checker adds the blocks' results exactly.
    EXPECT_EQ(lab::addition_depth(rung, lab::LaunchPlan{1056, 256, 0}, std::size_t{1} << 24), 63u + 4 + 8 + 1);
    EXPECT_EQ(lab::addition_depth(rung, lab::LaunchPlan{1, 96, 0}, 1), 1u + 4 + 7 + 1);
}

TEST(Check, IntegerValuedFloatsMustBeExact)
{
    // +-1 among 2^24 elements: every partial sum is exact in float, so dropping one element (off by
    // one) fails although gamma(depth) * 2^24 would allow dozens.
    std::vector<float> input(std::size_t{1} << 24);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = (i * 2654435761u) >> 7 & 1 ? 1.0f : -1.0f;
    double exact = 0;
    for (float v : input) exact += v;
    const auto rung = block_rung(1, "sm_count");
    const lab::LaunchPlan plan{2, 256, 0};
    const auto right = lab::check_output(rung, lab::Op::sum, plan, input,
                                         std::vector<float>{static_cast<float>(exact - 5), 5.0f});
    EXPECT_TRUE(right.ok) << right.first_wrong;
    const auto dropped = lab::check_output(rung, lab::Op::sum, plan, input,
                                           std::vector<float>{static_cast<float>(exact - 5), 4.0f});
    EXPECT_FALSE(dropped.ok);
    EXPECT_NE(dropped.first_wrong.find("exactly"), std::string::npos) << dropped.first_wrong;
    // Not exact once a fraction is among the inputs: rounding is allowed again.
    input[0] += 0.5f;
    const auto rounded = lab::check_output(rung, lab::Op::sum, plan, input,
                                           std::vector<float>{static_cast<float>(exact - 5), 4.0f});
    EXPECT_TRUE(rounded.ok)
        << "with a fraction among the inputs, rounding is allowed again";
}

TEST(Check, RejectsNanAndInfinityForFiniteSums)
{
    std::vector<float> input(10, 1.0f);
    const lab::LaunchPlan plan{1, 64, 0};
    EXPECT_FALSE(lab::check_output(block_rung(1), lab::Op::sum, plan, input, std::vector<float>{NAN}).ok);
    EXPECT_FALSE(lab::check_output(block_rung(1), lab::Op::sum, plan, input, std::vector<float>{INFINITY}).ok);
}

TEST(Check, TotalModeCombinesTheBlocks)
{
    const auto rung = block_rung(1, "sm_count");
    std::vector<int> input(5000, 2);
    const lab::LaunchPlan plan{3, 128, 0};
    EXPECT_TRUE(lab::check_output(rung, lab::Op::sum, plan, input, std::vector<int>{4000, 3000, 3000}).ok);
    const auto wrong = lab::check_output(rung, lab::Op::sum, plan, input, std::vector<int>{4000, 3000, 2999});
    EXPECT_FALSE(wrong.ok);
    EXPECT_NE(wrong.first_wrong.find("expected 10000, got 9999"), std::string::npos) << wrong.first_wrong;
    const auto unwritten =
        lab::check_output(rung, lab::Op::sum, plan, input, std::vector<int>{10000, lab::poison<int>(), 0});
    EXPECT_FALSE(unwritten.ok);
    EXPECT_NE(unwritten.first_wrong.find("block 1 of 3 was never written"), std::string::npos) << unwritten.first_wrong;
}

// The grader computes a large input's total once (total_of) and holds every launch over that input
// against it (check_total), without the input: right, wrong, unwritten and NaN results as
// check_output tells them.
TEST(Check, ATotalComputedOnceJudgesWithoutTheInput)
{
    const auto rung = block_rung(1, "sm_count");
    const lab::LaunchPlan plan{3, 128, 0};
    lab::Case c;
    c.name = "float_n5000_b128";
    c.input = lab::InputKind::floats;
    c.n = 5000;
    c.seed = 17;
    const std::vector<float> input = lab::make_input<float>(c).values;
    const lab::Total total = lab::total_of(lab::Op::sum, input);
    const float right = static_cast<float>(total.value);
    const auto judged = [&](const std::vector<float>& slots) {
        return lab::check_total(rung, lab::Op::sum, plan, input.size(), total, slots);
    };
    EXPECT_TRUE(judged({right * 0.25f, right * 0.5f, right * 0.25f}).ok);
    const lab::Verdict off = judged({right + 1.0f, 0.0f, 0.0f});
    EXPECT_FALSE(off.ok);
    EXPECT_NE(off.first_wrong.find("the 3 blocks' results combine wrongly: expected"), std::string::npos) << off.first_wrong;
    EXPECT_EQ(off.expected, lab::check_output(rung, lab::Op::sum, plan, input, std::vector<float>{right + 1.0f, 0, 0}).expected);
    const lab::Verdict unwritten = judged({right, lab::poison<float>(), 0.0f});
    EXPECT_FALSE(unwritten.ok);
    EXPECT_NE(unwritten.first_wrong.find("block 1 of 3 was never written"), std::string::npos) << unwritten.first_wrong;
    EXPECT_FALSE(judged({NAN, 0.0f, 0.0f}).ok);
    const std::vector<int> ints(5000, 3);
    const lab::Total int_total = lab::total_of(lab::Op::max, ints);
    EXPECT_TRUE(lab::check_total(rung, lab::Op::max, plan, ints.size(), int_total, std::vector<int>{3, 3, 3}).ok);
    EXPECT_FALSE(lab::check_total(rung, lab::Op::max, plan, ints.size(), int_total, std::vector<int>{3, 4, 3}).ok);
    EXPECT_THROW(lab::check_total(rung, lab::Op::max, plan, ints.size(), int_total, std::vector<int>{3, 3}), std::exception);
}

// A plain uniform int input's total, drawn without the input (the judge's way for 2^31 + 5 ints),
// is the total of the input make_input makes, for every operator and on one core or many; any
// other input has none, and is made.
TEST(Check, ATotalDrawnWithoutTheInputIsTheInputsTotal)
{
    for (const lab::InputKind kind : {lab::InputKind::ints, lab::InputKind::negative_ints, lab::InputKind::positive_ints})
        for (const lab::Op op : {lab::Op::sum, lab::Op::product, lab::Op::max, lab::Op::min})
            for (const std::size_t n : {std::size_t{1}, std::size_t{4099}, (std::size_t{1} << 22) + 3}) {
                lab::Case c;
                c.name = "drawn";
                c.input = kind;
                c.op = op;
                c.n = n;
                c.seed = 0x5eed0000 + n;
                const std::vector<int> values = lab::make_input<int>(c).values;
                std::string too_large;  // a sum past an int's range, which the catalogue never asks
                try {
                    lab::total_of(op, values);
                } catch (const std::exception& e) {
                    too_large = e.what();
                }
                if (!too_large.empty()) {
                    EXPECT_THROW(
                        try { lab::total_without_input(c); } catch (const std::exception& e) {
                            EXPECT_EQ(e.what(), too_large);
                            throw;
                        },
                        std::exception);
                    continue;
                }
                const auto drawn = lab::total_without_input(c);
                ASSERT_TRUE(drawn.has_value()) << lab::name_of(kind);
                const lab::Total made = lab::total_of(op, values);
                EXPECT_EQ(drawn->integer, made.integer) << lab::name_of(kind) << " " << lab::name_of(op) << " n " << n;
                EXPECT_EQ(drawn->value, made.value) << lab::name_of(kind) << " " << lab::name_of(op) << " n " << n;
                EXPECT_EQ(drawn->magnitude, made.magnitude);
                EXPECT_EQ(drawn->exact_in_float, made.exact_in_float);
            }
    lab::Case other;
    other.name = "other";
    other.n = 4099;
    for (const lab::InputKind kind : {lab::InputKind::extreme_ints, lab::InputKind::unit_ints, lab::InputKind::floats}) {
        other.input = kind;
        EXPECT_FALSE(lab::total_without_input(other).has_value()) << lab::name_of(kind);
    }
}

TEST(Check, GuardsAroundTheOutputShowWritesOutsideIt)
{
    auto buffer = lab::guarded_output<float>(5);
    ASSERT_EQ(buffer.size(), 5 + 2 * lab::kCanaryCount);
    for (std::size_t b = 0; b < 5; ++b) buffer[lab::kCanaryCount + b] = 1.0f;  // every slot written
    EXPECT_EQ(lab::overwritten_guard(buffer, 5), "");
    auto after = buffer;
    after[lab::kCanaryCount + 5 + 2] = 0.0f;
    EXPECT_NE(lab::overwritten_guard(after, 5).find("slot [7], 3 past the last one"), std::string::npos)
        << lab::overwritten_guard(after, 5);
    auto before = buffer;
    before[lab::kCanaryCount - 1] = 0.0f;
    EXPECT_NE(lab::overwritten_guard(before, 5).find("slot [-1], 1 before the first one"), std::string::npos)
        << lab::overwritten_guard(before, 5);
    auto far = lab::guarded_output<int>(1);
    far.back() = 0;
    EXPECT_NE(lab::overwritten_guard(far, 1), "") << "the whole guard is checked";
}

TEST(Check, FailureMessageCarriesWhatReproducesIt)
{
    lab::Case c;
    c.name = "float_n1025_b256";
    c.n = 1025;
    c.block = 256;
    c.seed = 0xABCD;
    lab::Verdict verdict;
    verdict.ok = false;
    verdict.wrong = 1;
    verdict.checked = 5;
    verdict.first_wrong = "block 4 of 5 ...";
    const auto text = lab::describe_failure(block_rung(1), c, lab::LaunchPlan{5, 256, 0}, "floats", verdict);
    for (const char* part : {"99_fake", "float_n1025_b256", "1 of 5", "block 4 of 5", "n = 1025", "block size 256",
                             "grid 5", "seed 0x000000000000abcd"})
        EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' missing from: " << text;
}

}  // namespace
