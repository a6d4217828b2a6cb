// The one reader of compute-sanitizer's summaries (lab/sanitizer_log.hpp), which the suites'
// racecheck tests and the grader's sanitizer category both judge by.
#include <gtest/gtest.h>

#include "lab/sanitizer_log.hpp"

namespace {

TEST(SanitizerLog, ReadsRacecheckAndErrorSummaries)
{
    const auto hazards = lab::sanitizer_summary_in("========= RACECHECK SUMMARY: 12 hazards displayed (3 errors, 9 warnings)");
    ASSERT_TRUE(hazards.has_value());
    EXPECT_EQ(hazards->count, 12);
    EXPECT_EQ(hazards->errors, 3);
    EXPECT_EQ(hazards->warnings, 9);
    const auto one = lab::sanitizer_summary_in("========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)");
    ASSERT_TRUE(one.has_value());
    EXPECT_EQ(one->count, 1);
    const auto errors = lab::sanitizer_summary_in("========= ERROR SUMMARY: 7 errors");
    ASSERT_TRUE(errors.has_value());
    EXPECT_EQ(errors->count, 7);
    EXPECT_FALSE(lab::sanitizer_summary_in("========= Invalid __shared__ write of size 4 bytes").has_value());
}

// A program's own output is never taken for the tool's: a kernel that prints a clean summary
// must not pass a racecheck it failed.
TEST(SanitizerLog, APrintedSummaryIsNotTheTools)
{
    EXPECT_FALSE(lab::sanitizer_summary_in("RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)").has_value());
    const auto log = lab::sanitizer_summary("RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"
                                            "========= RACECHECK SUMMARY: 4 hazards displayed (4 errors, 0 warnings)\n");
    ASSERT_TRUE(log.has_value());
    EXPECT_EQ(log->count, 4);
    EXPECT_FALSE(lab::sanitizer_summary("RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n").has_value())
        << "a log with only the program's own summary has no summary of the tool's: the tool stopped early";
}

// A log with one summary per process the tool watched: the largest count decides.
TEST(SanitizerLog, TheLargestCountOfSeveralSummariesDecides)
{
    const auto log = lab::sanitizer_summary("========= ERROR SUMMARY: 0 errors\n========= ERROR SUMMARY: 2 errors\n"
                                            "========= ERROR SUMMARY: 1 error\n");
    ASSERT_TRUE(log.has_value());
    EXPECT_EQ(log->count, 2);
    EXPECT_FALSE(lab::sanitizer_summary("========= COMPUTE-SANITIZER\n").has_value());
}

}  // namespace
