// The catalogue holds every case the issue list asks for, and its inputs behave as documented.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "lab/cases.hpp"
#include "lab/inputs.hpp"
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
