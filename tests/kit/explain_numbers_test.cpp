// Kit.ExplainNumbers.*: what ./lab explain and ./lab check say about lab-explain's measurements
// (cli/explain_numbers.hpp), on measurements written here: idle lanes, bank conflicts, scattered
// loads, whether the reference has them too, what a rung changed, and where yours falls short.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "explain_numbers.hpp"

namespace {

using lab::cli::explain_numbers::Kind;
using lab::cli::explain_numbers::Measured;
using nlohmann::json;
namespace en = lab::cli::explain_numbers;

// One launch of `grid` blocks over 2^20 elements with these figures: lanes per instruction,
// wavefronts per shared request, sectors and the fewest per device request, warps per block.
Measured measured(const std::string& who, double lanes, double wavefronts, double sectors, double least, double warps,
                  double grid = 4096, double read = 4 << 20)
{
    const double instructions = 1000, shared = 100, global = 100;
    const json total = {{"instructions", instructions}, {"lanes", lanes * instructions}, {"warps", warps * grid},
                        {"shared_requests", shared}, {"shared_wavefronts", wavefronts * shared},
                        {"global_requests", global}, {"global_sectors", sectors * global}, {"global_least_sectors", least * global},
                        {"global_read", read}, {"global_written", 16384}, {"barriers", 9 * grid}, {"warp_syncs", 0},
                        {"shuffles", 0}, {"lane_histogram", {{"32", instructions}}}};
    const json data = {{"n", 1 << 20}, {"error", ""}, {"launches", json::array({{{"grid", grid}, {"total", total}}})}};
    return en::measured_from(who, data);
}

bool has(const std::vector<std::string>& said, const std::string& part)
{
    for (const std::string& s : said)
        if (s.find(part) != std::string::npos) return true;
    return false;
}

TEST(ExplainNumbers, EachLessonIsSaidAndWhetherTheReferenceHasItToo)
{
    const Measured reference = measured("reference 03", 24.4, 1.0, 4, 4, 21);
    const Measured conflicts = measured("yours", 24.4, 3.12, 4, 4, 21);
    auto said = en::lessons(conflicts, &reference, "03");
    ASSERT_EQ(said.size(), 1u);
    EXPECT_NE(said[0].find("Bank conflicts: each shared-memory request takes 3.12 wavefronts"), std::string::npos) << said[0];
    EXPECT_NE(said[0].find("does not: this is yours to fix"), std::string::npos) << said[0];
    // The same numbers in the reference itself (rung 02's): not the student's to fix.
    said = en::lessons(conflicts, &conflicts, "02");
    EXPECT_TRUE(has(said, "has it too: it is not what this rung asks you to fix")) << said[0];
    EXPECT_TRUE(has(en::lessons(measured("yours", 9.1, 1, 4, 4, 56), &reference, "03"), "Idle lanes: a warp instruction has 9.1"));
    EXPECT_TRUE(has(en::lessons(measured("yours", 24.4, 1, 28.56, 3.67, 21), &reference, "03"), "Scattered loads: 28.56"));
    // 16-byte loads: 16 sectors a request is the fewest, not scattered.
    EXPECT_FALSE(has(en::lessons(measured("yours", 31.4, 1, 15.97, 15.97, 9), nullptr, "08"), "Scattered"));
    EXPECT_TRUE(has(en::lessons(reference, &reference, "03"), "Your numbers match the reference's"));
}

TEST(ExplainNumbers, GapsNameWhatFallsShortAndItsLine)
{
    const Measured reference = measured("reference", 24.4, 1.0, 4, 4, 21);
    const auto line = [](Kind kind) { return kind == Kind::conflicts ? std::string("exercises/03_sequential.cu:25") : std::string(); };
    const auto found = en::gaps(measured("yours", 24.4, 3.12, 4, 4, 21), reference, line);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0], "3.12 wavefronts per shared-memory request, the reference 1.00 (bank conflicts; most at "
                        "exercises/03_sequential.cu:25)");
    EXPECT_TRUE(en::gaps(reference, reference, line).empty());
    const auto more = en::gaps(measured("yours", 9.1, 1, 28.56, 3.67, 56, 4096, 8 << 20), reference, {});
    EXPECT_TRUE(has(more, "9.1 active lanes per warp instruction, the reference 24.4 (idle lanes)"));
    EXPECT_TRUE(has(more, "28.56 sectors per device-memory request where 3.67 would do (scattered loads)"));
    EXPECT_TRUE(has(more, "56.0 warps at work per block, the reference 21.0"));
    EXPECT_TRUE(has(more, "8.39 MB read from device memory, the reference 4.19 MB"));
}

TEST(ExplainNumbers, SincePreviousGivesWhatTheRungChangedPerThousandElements)
{
    const Measured rung03 = measured("reference 03", 24.4, 1.0, 4, 4, 21, 4096);
    const Measured rung04 = measured("reference 04", 25.6, 1.0, 4, 4, 21, 2048);  // half the blocks, half the warps
    const std::string since = en::since_previous(rung04, rung03, "03");
    EXPECT_NE(since.find("From rung 03's reference to this rung's, per 1,000 elements: warps at work 82.0 -> 41.0"),
              std::string::npos) << since;
    EXPECT_NE(since.find("__syncthreads() of a block 35.2 -> 17.6"), std::string::npos) << since;
    EXPECT_EQ(en::since_previous(rung03, rung03, "02"), "");
}

}  // namespace
