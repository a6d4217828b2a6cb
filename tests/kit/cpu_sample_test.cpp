// Kit tests: the CPU backend's sample of a rung's larger cases (lab::cpu_sample, ./lab run and
// ./lab check without a GPU): every small case, one larger case of each shape, and of the largest
// (kLargestWork and up) one per scheme, the same ones for the same seed.
#include <gtest/gtest.h>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>
#include "lab/registry.hpp"
#include "lab/rung_tests.hpp"

namespace {

TEST(CpuSample, EverySmallCaseOneOfEachShapeAndOneLargestPerScheme)
{
    for (const auto& rung : lab::Registry::kit().rungs()) {
        const std::vector<lab::RungTest> plan = lab::rung_tests(rung, false);
        const std::vector<bool> runs = lab::cpu_sample(plan, 0x5eed);
        ASSERT_EQ(runs.size(), plan.size());
        std::map<std::string, int> kept_of_shape, largest_of_scheme;
        std::set<std::string> shapes, largest_schemes;
        for (std::size_t i = 0; i < plan.size(); ++i) {
            const lab::RungTest& t = plan[i];
            const bool larger = t.kind == lab::TestKind::kernel && !t.gpu_only && t.work > lab::kSmallWork;
            if (!larger) {
                EXPECT_TRUE(runs[i]) << rung.id << ": " << t.name << " is not a larger case, and every other test runs";
                continue;
            }
            shapes.insert(t.shape);
            if (t.work >= lab::kLargestWork) largest_schemes.insert(t.scheme);
            if (!runs[i]) continue;
            ++kept_of_shape[t.shape];
            if (t.work >= lab::kLargestWork) ++largest_of_scheme[t.scheme];
        }
        for (const auto& [shape, kept] : kept_of_shape) EXPECT_EQ(kept, 1) << rung.id << ": shape " << shape;
        for (const std::string& scheme : largest_schemes)
            EXPECT_EQ(largest_of_scheme[scheme], 1) << rung.id << ": the largest cases of scheme '" << scheme << "'";
        // Every shape below the largest keeps its one case.
        for (const std::string& shape : shapes) {
            bool below = false;
            for (const auto& t : plan) below = below || (t.shape == shape && t.work < lab::kLargestWork);
            if (below) EXPECT_EQ(kept_of_shape[shape], 1) << rung.id << ": shape " << shape;
        }
        EXPECT_EQ(lab::cpu_sample(plan, 0x5eed), runs) << rung.id << ": the same seed draws the same sample";
    }
}

TEST(CpuSample, RowRungsKeepOneOfTheirLargestCasesPerScheme)
{
    // Rung 13 has twenty shapes of 2^22 elements or more that the CPU backend runs (its sweep's
    // 2^24-float matrices are a GPU's only): with one case of each, its sample's larger cases came
    // to 346 M elements of work; with one per operator and scheme, 239 M; with one per scheme, less
    // than 200 M. Rung 12 (one scheme) kept each of its four operations' 4096 x 4096 (16 M floats
    // apiece, twice that for the dot); now one, and less than 70 M in all.
    for (const auto& [id, schemes, most] : {std::tuple<const char*, std::size_t, std::size_t>{"13_any_row_shape", 2, 200},
                                            std::tuple<const char*, std::size_t, std::size_t>{"12_real_kernels", 1, 70}}) {
        const lab::RungInfo& rung = lab::Registry::kit().get(id);
        const std::vector<lab::RungTest> plan = lab::rung_tests(rung, false);
        for (std::uint64_t seed : {0x5eedull, 1ull, 2ull}) {
            const std::vector<bool> runs = lab::cpu_sample(plan, seed);
            std::size_t work = 0, largest = 0;
            for (std::size_t i = 0; i < plan.size(); ++i)
                if (runs[i] && plan[i].kind == lab::TestKind::kernel && !plan[i].gpu_only && plan[i].work > lab::kSmallWork) {
                    work += plan[i].work;
                    largest += plan[i].work >= lab::kLargestWork;
                }
            EXPECT_EQ(largest, schemes) << id << ", seed " << seed << ": one of the largest cases per scheme";
            EXPECT_LT(work, most << 20) << id << ", seed " << seed << ": elements of work in the sample's larger cases";
        }
    }
}

}  // namespace
