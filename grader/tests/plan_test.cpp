// Grader tests: which cases a grading plans on this machine (plan.hpp), the cases category's and
// the sanitizer pass's; when a pipelined build has a rung's runner (builder.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "lab/device.hpp"
#include "builder.hpp"
#include "fresh_folder.hpp"
#include "lab/registry.hpp"
#include "plan.hpp"
#include "rubric.hpp"
#include "sanitizer.hpp"

namespace {

using namespace lab::grading;

// Without a GPU a case is left to a GPU when it is large in elements or in threads launched (16384
// rows of one column: 16384 blocks, half a minute a case on the CPU backend), and says so; the
// kit's rubric runs every other case of every group, the hidden ones included.
TEST(Plan, TheCpuBackendLeavesToAGpuWhatIsLargeInElementsOrInThreads)
{
    if (!lab::device_status().emulated) GTEST_SKIP() << "on a GPU every case runs";
    const Rubric kit = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    const auto cases = plan_cases(lab::Registry::kit().get("12_real_kernels"), kit, 1, 2);
    int many_rows = 0, long_rows = 0, hidden = 0;
    for (const PlannedCase& p : cases) {
        if (p.c.group == "many_rows") {
            ++many_rows;
            EXPECT_NE(p.skip.find("threads launched"), std::string::npos) << p.c.name << ": " << p.skip;
        }
        if (p.c.group == "long_rows" && p.c.n <= 262144) {
            EXPECT_TRUE(p.skip.empty()) << p.c.name << ": " << p.skip;
            ++long_rows;
        }
        hidden += p.hidden && p.skip.empty();
    }
    EXPECT_GT(many_rows, 0);
    EXPECT_GT(long_rows, 0);
    EXPECT_GT(hidden, 0);
}

// The sanitizer's pass runs on the cases a GPU grading chooses, on every machine: the corpus's
// rubric leaves many_rows out of [no_gpu] visible_groups (and its 16384 rows of one column are over
// no_gpu.max_n in threads), yet the pass still takes rung 12's 16384 rows of one column, the case
// whose last short row ends at a 256-byte boundary, as a GPU grading's CPU-backend half does
// (corpus/mistake_12_reads_past_a_short_row), to run, with no canaries after the input.
TEST(Plan, TheSanitizersCasesAreAGpuGradingsOnEveryMachine)
{
    const Rubric corpus = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/corpus/rubric.toml");
    const lab::RungInfo& rung = lab::Registry::kit().get("12_real_kernels");
    const auto chosen = sanitizer_cases(plan_visible_as_on_a_gpu(rung, corpus, 1), corpus.sanitizer);
    ASSERT_EQ(chosen.size(), static_cast<std::size_t>(corpus.sanitizer.cases));
    bool one_column = false;
    for (const PlannedCase& p : chosen) {
        EXPECT_TRUE(p.skip.empty()) << p.c.name << ": " << p.skip;
        EXPECT_TRUE(p.ends_exactly) << p.c.name;
        one_column = one_column || (p.c.group == "many_rows" && p.c.op == lab::Op::dot && p.c.cols == 1);
    }
    EXPECT_TRUE(one_column) << "no dot case of 16384 rows of one column among the pass's cases";
    // The cases category's plan on this machine: without a GPU it has no many_rows case to run.
    if (lab::device_status().emulated)
        for (const PlannedCase& p : plan_cases(rung, corpus, 1, 2))
            EXPECT_FALSE(p.c.group == "many_rows" && p.skip.empty()) << p.c.name;
}

// A grading's pipeline starts a rung's cases when the build's log says its runner is linked
// (ninja prints a step's line as it ends, where its output is not a terminal): only such a line, for
// a runner, whichever language links it.
TEST(Pipeline, ARungIsLinkedWhenTheLogSaysItsRunnerWas)
{
    EXPECT_EQ(linked_runner("[12/40] Linking CXX executable bin/lab-runner-13_any_row_shape"), "13_any_row_shape");
    EXPECT_EQ(linked_runner("[3/9] Linking CUDA executable bin/lab-runner-01_interleaved"), "01_interleaved");
    EXPECT_EQ(linked_runner("[3/9] Linking CUDA executable grader/bin/lab-runner-01_interleaved\r"), "01_interleaved");
    // Not linked yet, not a runner, or a link that failed.
    EXPECT_EQ(linked_runner("[2/9] Building CUDA object grader/CMakeFiles/grade_kernel_01_interleaved.dir/rung_glue.cu.o"), std::nullopt);
    EXPECT_EQ(linked_runner("[5/9] Linking CXX executable bin/lab-explain-grade-01_interleaved"), std::nullopt);
    EXPECT_EQ(linked_runner("FAILED: bin/lab-runner-01_interleaved"), std::nullopt);
    EXPECT_EQ(linked_runner("/usr/bin/ld: cannot open output file bin/lab-runner-01_interleaved: No space left"), std::nullopt);
    EXPECT_EQ(linked_runner("[5/9] Linking CXX executable bin/lab-runner-01_interleaved.tmp"), std::nullopt);
}

// A grading runs only in a tree of the solutions: in one of the exercises (./lab replay builds its
// lab-grade there) the integrity checks would compare a submission with the skeletons, and refuse
// the reference itself (rungs 10, 11 and 13 were, before the refusal).
TEST(Pipeline, AGradingRefusesATreeOfTheExercises)
{
    namespace fs = std::filesystem;
    const std::string dir = fresh_folder("lab-tree-refusal-");
    EXPECT_EQ(grading_tree_refusal(dir), "") << "a folder with no CMakeCache.txt";
    std::ofstream(dir + "/CMakeCache.txt") << "CMAKE_BUILD_TYPE:STRING=RelWithDebInfo\nLAB_TREE:STRING=exercises\nX:BOOL=ON\n";
    const std::string refusal = grading_tree_refusal(dir);
    EXPECT_NE(refusal.find("a tree of the exercises"), std::string::npos) << refusal;
    EXPECT_NE(refusal.find("./lab grade"), std::string::npos) << refusal;
    std::ofstream(dir + "/CMakeCache.txt") << "CMAKE_BUILD_TYPE:STRING=RelWithDebInfo\nLAB_TREE:STRING=solutions\nX:BOOL=ON\n";
    EXPECT_EQ(grading_tree_refusal(dir), "");
    // This very grader's tree (the kit's tests of the grader build in one of the solutions).
    EXPECT_EQ(grading_tree_refusal(grading_build_dir()), "");
    fs::remove_all(dir);
}

}  // namespace
