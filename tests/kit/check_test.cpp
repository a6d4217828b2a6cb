// The checker finds wrong, unwritten and imprecise results, and nothing else.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "lab/check.hpp"
#include "lab/inputs.hpp"

namespace {

lab::RungInfo block_rung(unsigned items_per_thread)
{
    lab::RungInfo rung;
    rung.id = "99_fake";
    rung.number = "99";
    rung.items_per_thread = items_per_thread;
    rung.check = lab::CheckMode::per_block;
    rung.ops = {lab::Op::sum};
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
    // 256 elements of 1.0: sum(|x|) = 256, depth = 1 + 8 + 2 = 11, tolerance = 11 * 2^-24 * 256.
    std::vector<float> input(256, 1.0f);
    const double tolerance = 11 * 0x1.0p-24 * 256;
    EXPECT_EQ(lab::addition_depth(256, 256), 11u);
    const lab::LaunchPlan plan{1, 256, 0};
    const auto inside = lab::check_output(block_rung(1), lab::Op::sum, plan, input,
                                          std::vector<float>{static_cast<float>(256 + 0.9 * tolerance)});
    const auto outside = lab::check_output(block_rung(1), lab::Op::sum, plan, input,
                                           std::vector<float>{static_cast<float>(256 + 1.5 * tolerance)});
    EXPECT_TRUE(inside.ok) << inside.first_wrong;
    EXPECT_FALSE(outside.ok);
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
    auto rung = block_rung(1);
    rung.check = lab::CheckMode::total;
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
