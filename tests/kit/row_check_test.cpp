// The row rung's checker (rung 12): what a float kernel computes the honest way passes, within the
// tolerances check.hpp derives, and the mistakes the rung teaches fail. The kernels are played here
// on the host in float, in the order a block of B threads performs them: each thread's chain over
// the columns it owns, then a tree over the threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "lab/check.hpp"
#include "lab/inputs.hpp"
#include "lab/random.hpp"

namespace {

constexpr unsigned kBlock = 256;

const lab::RungInfo& row_rung() { return lab::Registry::kit().get("12"); }

lab::LaunchPlan plan_for(std::size_t rows, std::size_t cols)
{
    return lab::plan_launch(row_rung(), rows * cols, kBlock, {}, 0, "", cols);
}

// A block's reduction of f(i) over i in [0, cols): chains per thread, then a pairwise tree.
float block_reduce(std::size_t cols, const std::function<float(std::size_t)>& f, float identity,
                   const std::function<float(float, float)>& op)
{
    std::vector<float> partial(kBlock, identity);
    for (std::size_t i = 0; i < cols; ++i) partial[i % kBlock] = op(partial[i % kBlock], f(i));
    for (std::size_t half = kBlock / 2; half > 0; half /= 2)
        for (std::size_t t = 0; t < half; ++t) partial[t] = op(partial[t], partial[t + half]);
    return partial[0];
}

const auto plus = [](float a, float b) { return a + b; };
const auto larger = [](float a, float b) { return std::max(a, b); };

// Two-pass softmax of one row, in float; `exp_error` scales every exponential (2 ulp is 1 + 4u).
std::vector<float> softmax_row(const float* x, std::size_t cols, float exp_error = 1.0f, std::size_t skip = ~std::size_t{0})
{
    const float m = block_reduce(cols, [&](std::size_t i) { return x[i]; }, -INFINITY, larger);
    const float s = block_reduce(cols, [&](std::size_t i) { return i == skip ? 0.0f : std::exp(x[i] - m) * exp_error; }, 0.0f, plus);
    std::vector<float> y(cols);
    for (std::size_t i = 0; i < cols; ++i) y[i] = std::exp(x[i] - m) * exp_error / s;
    return y;
}

// The online scheme of one row, in float: per thread a running max and a sum rescaled to it.
std::vector<float> online_softmax_row(const float* x, std::size_t cols, bool rescale = true)
{
    std::vector<float> m(kBlock, -INFINITY), d(kBlock, 0.0f);
    for (std::size_t i = 0; i < cols; ++i) {
        float& mt = m[i % kBlock];
        float& dt = d[i % kBlock];
        if (x[i] > mt) {
            dt = (rescale ? dt * std::exp(mt - x[i]) : dt) + 1.0f;
            mt = x[i];
        } else {
            dt += std::exp(x[i] - mt);
        }
    }
    const float big = block_reduce(kBlock, [&](std::size_t t) { return m[t]; }, -INFINITY, larger);
    const float s = block_reduce(kBlock, [&](std::size_t t) { return d[t] * std::exp(m[t] - big); }, 0.0f, plus);
    std::vector<float> y(cols);
    for (std::size_t i = 0; i < cols; ++i) y[i] = std::exp(x[i] - big) / s;
    return y;
}

enum class Variance { two_pass, welford, mean_of_squares };

std::vector<float> layer_norm_row(const float* x, std::size_t cols, Variance how)
{
    const float n = static_cast<float>(cols);
    float mean = 0, variance = 0;
    if (how == Variance::welford) {
        // Per thread Welford, then Chan's merge up the tree.
        std::vector<float> count(kBlock, 0), mu(kBlock, 0), m2(kBlock, 0);
        for (std::size_t i = 0; i < cols; ++i) {
            const std::size_t t = i % kBlock;
            count[t] += 1;
            const float delta = x[i] - mu[t];
            mu[t] += delta / count[t];
            m2[t] += delta * (x[i] - mu[t]);
        }
        for (std::size_t half = kBlock / 2; half > 0; half /= 2)
            for (std::size_t t = 0; t < half; ++t) {
                const float total = count[t] + count[t + half];
                if (total > 0) {
                    const float delta = mu[t + half] - mu[t];
                    mu[t] += delta * (count[t + half] / total);
                    m2[t] += m2[t + half] + delta * delta * (count[t] * count[t + half] / total);
                }
                count[t] = total;
            }
        mean = mu[0];
        variance = m2[0] / n;
    } else {
        mean = block_reduce(cols, [&](std::size_t i) { return x[i]; }, 0.0f, plus) / n;
        if (how == Variance::two_pass)
            variance = block_reduce(cols, [&](std::size_t i) { return (x[i] - mean) * (x[i] - mean); }, 0.0f, plus) / n;
        else
            variance = block_reduce(cols, [&](std::size_t i) { return x[i] * x[i]; }, 0.0f, plus) / n - mean * mean;
    }
    const float scale = 1.0f / std::sqrt(variance + 1e-5f);
    std::vector<float> y(cols);
    for (std::size_t i = 0; i < cols; ++i) y[i] = (x[i] - mean) * scale;
    return y;
}

std::vector<float> draw(std::size_t n, double lo, double hi, std::uint64_t seed)
{
    lab::Rng rng(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(rng.uniform(lo, hi));
    return v;
}

// The output of a row operation on every row of `input`.
std::vector<float> every_row(const std::vector<float>& input, std::size_t cols,
                             const std::function<std::vector<float>(const float*)>& row)
{
    std::vector<float> out;
    for (std::size_t r = 0; r < input.size() / cols; ++r) {
        const auto y = row(input.data() + r * cols);
        out.insert(out.end(), y.begin(), y.end());
    }
    return out;
}

lab::Verdict check(lab::Op op, std::size_t cols, const std::vector<float>& input, const std::vector<float>& out)
{
    const std::size_t rows = input.size() / lab::operands_of(op) / cols;
    return lab::check_output(row_rung(), op, plan_for(rows, cols), input, out);
}

// 2^22 values and more: the rows are checked on every core (lab/check.cpp), with the same verdict.
TEST(RowCheck, ManyRowsSplitAmongCoresNameTheSameFirstRow)
{
    const std::size_t rows = 4096, cols = 1025;
    std::vector<float> x(rows * cols), dots(rows);
    lab::Rng rng(11);
    for (auto& v : x) v = static_cast<float>(rng.integer(-4, 4));  // integer-valued: every dot product exact
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) dots[r] += x[r * cols + c] * x[r * cols + c];
    std::vector<float> input(x);
    input.insert(input.end(), x.begin(), x.end());  // a dot product reads x, then y: here y = x
    const lab::LaunchPlan plan = plan_for(rows, cols);
    EXPECT_TRUE(lab::check_output(row_rung(), lab::Op::dot, plan, input, dots).ok);
    dots[rows - 2] += 1;
    dots[1500] -= 1;
    const auto verdict = lab::check_output(row_rung(), lab::Op::dot, plan, input, dots);
    EXPECT_EQ(verdict.wrong, 2u);
    EXPECT_EQ(verdict.checked, rows);
    EXPECT_EQ(verdict.first_wrong_block, 1500) << verdict.first_wrong;
}

TEST(RowCheck, SoftmaxComputedInFloatPasses)
{
    for (const std::size_t cols : {1u, 33u, 1856u, 65537u})
        for (const double range : {5.0, 1e4}) {
            const auto x = draw(3 * cols, -range, range, cols);
            for (const float exp_error : {1.0f, 1.0f + 0x1.0p-22f, 1.0f - 0x1.0p-22f}) {  // expf may be off by 2 ulp
                const auto y = every_row(x, cols, [&](const float* row) { return softmax_row(row, cols, exp_error); });
                const auto v = check(lab::Op::softmax, cols, x, y);
                EXPECT_TRUE(v.ok) << "cols " << cols << ", logits in +-" << range << ": " << v.first_wrong;
            }
            const auto online = every_row(x, cols, [&](const float* row) { return online_softmax_row(row, cols); });
            const auto v = check(lab::Op::softmax_online, cols, x, online);
            EXPECT_TRUE(v.ok) << "online, cols " << cols << ", logits in +-" << range << ": " << v.first_wrong;
        }
}

TEST(RowCheck, SoftmaxMistakesFail)
{
    const std::size_t cols = 1856;
    const auto x = draw(2 * cols, -5, 5, 7);
    // One term left out of the sum.
    const auto skipped = every_row(x, cols, [&](const float* row) { return softmax_row(row, cols, 1.0f, 100); });
    const auto v = check(lab::Op::softmax, cols, x, skipped);
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 2u);
    EXPECT_NE(v.first_wrong.find("row 0 of 2, column 0 of 1856"), std::string::npos) << v.first_wrong;
    // The online sum not rescaled when the max grows.
    const auto stale = every_row(x, cols, [&](const float* row) { return online_softmax_row(row, cols, false); });
    EXPECT_FALSE(check(lab::Op::softmax_online, cols, x, stale).ok);
    // A value never written names itself.
    auto unwritten = every_row(x, cols, [&](const float* row) { return softmax_row(row, cols); });
    unwritten[cols + 5] = lab::poison<float>();
    const auto u = check(lab::Op::softmax, cols, x, unwritten);
    EXPECT_NE(u.first_wrong.find("row 1 of 2, column 5 of 1856 was never written"), std::string::npos) << u.first_wrong;
    EXPECT_EQ(u.got, "never written");
}

TEST(RowCheck, LayerNormByTwoPassesOrWelfordPassesAndByCancellationFails)
{
    for (const std::size_t cols : {2u, 33u, 1000u, 4096u, 65537u}) {
        const auto small = draw(2 * cols, -3, 5, cols);
        const auto large_mean = draw(2 * cols, 1e4 - 1.7, 1e4 + 1.7, cols + 1);
        for (const auto how : {Variance::two_pass, Variance::welford})
            for (const auto* x : {&small, &large_mean}) {
                const auto y = every_row(*x, cols, [&](const float* row) { return layer_norm_row(row, cols, how); });
                const auto v = check(lab::Op::layer_norm, cols, *x, y);
                EXPECT_TRUE(v.ok) << (how == Variance::welford ? "Welford" : "two passes") << ", cols " << cols
                                  << (x == &small ? "" : ", large mean") << ": " << v.first_wrong;
            }
        const auto naive = every_row(large_mean, cols, [&](const float* row) {
            return layer_norm_row(row, cols, Variance::mean_of_squares);
        });
        EXPECT_FALSE(check(lab::Op::layer_norm, cols, large_mean, naive).ok) << "mean(x^2) - mean^2 passed at cols " << cols;
    }
}

TEST(RowCheck, DotIsExactWhereTheArithmeticIsAndWithinRoundingElsewhere)
{
    const std::size_t cols = 1856, rows = 3;
    lab::Case c;
    c.name = "dot";
    c.op = lab::Op::dot;
    c.input = lab::InputKind::exact_floats;
    c.n = rows * cols;
    c.cols = cols;
    c.seed = 11;
    const auto exact = lab::make_input<float>(c).values;
    ASSERT_EQ(exact.size(), 2 * rows * cols) << "a dot product's input holds x, then y";
    const auto dots = [&](const std::vector<float>& input) {
        std::vector<float> out;
        for (std::size_t r = 0; r < rows; ++r)
            out.push_back(block_reduce(cols, [&](std::size_t i) { return input[r * cols + i] * input[rows * cols + r * cols + i]; },
                                       0.0f, plus));
        return out;
    };
    auto out = dots(exact);
    EXPECT_TRUE(check(lab::Op::dot, cols, exact, out).ok);
    out[2] += 1;  // one product of magnitude 1 too many
    const auto v = check(lab::Op::dot, cols, exact, out);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.first_wrong.find("row 2 of 3: expected"), std::string::npos) << v.first_wrong;
    EXPECT_NE(v.first_wrong.find("exactly"), std::string::npos) << v.first_wrong;

    c.input = lab::InputKind::floats;
    const auto real = lab::make_input<float>(c).values;
    EXPECT_TRUE(check(lab::Op::dot, cols, real, dots(real)).ok);
}

}  // namespace
