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
                  double grid = 4096, double read = 4 << 20, double barriers = 9)
{
    const double instructions = 1000, shared = 100, global = 100;
    const json total = {{"instructions", instructions}, {"lanes", lanes * instructions}, {"warps", warps * grid},
                        {"shared_requests", shared}, {"shared_wavefronts", wavefronts * shared},
                        {"global_requests", global}, {"global_sectors", sectors * global}, {"global_least_sectors", least * global},
                        {"global_read", read}, {"global_written", 16384}, {"barriers", barriers * grid}, {"warp_syncs", 0},
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
    EXPECT_FALSE(has(more, "__syncthreads()"));
    // Rung 05 with its barrier kept at stride 32: 4 per block against 3.
    const auto barrier = en::gaps(measured("yours", 31, 1, 4, 4, 15, 2048, 4 << 20, 4), measured("reference", 31, 1, 4, 4, 15, 2048, 4 << 20, 3), {});
    ASSERT_EQ(barrier.size(), 1u);
    EXPECT_EQ(barrier[0], "4.0 __syncthreads() per block, the reference 3.0 (a barrier the reference does without)");
}

// Rung 13 at one long row: the reference's cluster reads its peers' partials; a plan that never
// picks a cluster (a split instead) reads the row twice and no other block's shared memory.
TEST(ExplainNumbers, GapsNameAClusterExchangeTheReferenceMakesAndYoursDoesNot)
{
    Measured reference = measured("reference", 31, 1, 16, 16, 8, 8, 1 << 20, 4);
    reference.total["distributed_requests"] = 64;
    const Measured split = measured("yours", 31, 1, 16, 16, 8, 8, 2 << 20, 4);
    const auto found = en::gaps(split, reference, {});
    EXPECT_TRUE(has(found, "no read of another block's shared memory, the reference 64 (a cluster's blocks exchanging their partials on chip)")) << found.size();
    EXPECT_TRUE(has(found, "2.10 MB read from device memory, the reference 1.05 MB"));
    EXPECT_TRUE(en::gaps(reference, reference, {}).empty());
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

namespace {

// ncu --csv --page raw --print-units base, as it prints on an H200 (rung 03's launch; thousands
// separated by commas, a units row, ncu's own lines around the CSV), cut to a few columns.
std::string ncu_output(const std::string& second_kernel_sectors)
{
    return "==PROF== Connected to process 4034 (lab-explain-03_sequential)\n"
           "==PROF== Disconnected from process 4034\n"
           "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\","
           "\"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum\",\"sm__warps_active.avg.pct_of_peak_sustained_active\"\n"
           "\"\",\"\",\"byte\",\"sector\",\"sector\",\"%\"\n"
           "\"0\",\"void reduce<int>(const T1 *, T1 *, unsigned long)\",\"4,197,376\",\"131,072\",\"4,096\",\"81.10\"\n"
           "\"1\",\"void finish<int>(const T1 *, T1 *, \"\"quoted\"\")\",\"1,024\",\"" +
           second_kernel_sectors + "\",\"1\",\"12.5\"\n";
}

const json kMetrics = {{"dram_read", {"dram__bytes_read.sum"}},
                       {"global_sectors", {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"}},
                       {"warps_active_percent", {"sm__warps_active.avg.pct_of_peak_sustained_active"}}};

}  // namespace

TEST(ExplainNumbers, NcuCountersAddUpEveryKernelsMetricsByTheKitsNames)
{
    const json c = en::ncu_counters(ncu_output("32"), kMetrics);
    EXPECT_EQ(c.at("kernels").get<int>(), 2);
    EXPECT_DOUBLE_EQ(c.at("dram_read").get<double>(), 4197376.0 + 1024);
    EXPECT_DOUBLE_EQ(c.at("global_sectors").get<double>(), 131072.0 + 4096 + 32 + 1);
    EXPECT_DOUBLE_EQ(c.at("warps_active_percent").get<double>(), 81.10 + 12.5);
    // No kernel rows (the program launched nothing, or ncu stopped first): nothing counted.
    EXPECT_TRUE(en::ncu_counters("==PROF== Disconnected from process 1\n", kMetrics).empty());
}

TEST(ExplainNumbers, NcuOutputThatCannotBeReadIsSaidNotGuessed)
{
    json more = kMetrics;
    more["shared_requests"] = {"smsp__inst_executed_op_shared_ld_pred_on_any.sum"};
    EXPECT_THROW(en::ncu_counters(ncu_output("32"), more), std::runtime_error);   // a column ncu did not print
    EXPECT_THROW(en::ncu_counters(ncu_output("n/a"), kMetrics), std::runtime_error);  // a cell that is no number
    const std::string denied =
        "==PROF== Connected to process 77 (lab-explain-03_sequential)\n"
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the "
        "target device 0. For instructions on enabling permissions and to get more information see "
        "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n";
    EXPECT_NE(en::ncu_refusal(denied).find("ERR_NVGPUCTRPERM"), std::string::npos);
    EXPECT_TRUE(en::ncu_refusal(ncu_output("32")).empty());
}
