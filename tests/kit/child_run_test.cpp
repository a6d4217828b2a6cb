// How a test program's ending is held against what it reported (judge/child_run.hpp): the rule
// behind the suites' "contradicts what it reported" verdict.
#include <gtest/gtest.h>

#include "child_run.hpp"

namespace {

using case_runner::ChildRun;

ChildRun reported(std::initializer_list<const char*> statuses)
{
    ChildRun run;
    int k = 0;
    for (const char* status : statuses) {
        const std::string name = "Ex03/Sum.MatchesReference/case" + std::to_string(k++);
        run.started.push_back(name);
        run.results.push_back({name, status, ""});
    }
    return run;
}

}  // namespace

// A program that ends by itself must say with its status what it reported: 0 when all passed, 1
// when one failed; a crash or a stop at the deadline after its last result contradicts it.
TEST(ChildRun, AProgramThatEndsByItselfMustAgreeWithItsResults)
{
    ChildRun all_passed = reported({"passed", "passed"});
    all_passed.exit_code = 0;
    EXPECT_TRUE(all_passed.ending_agrees());
    all_passed.exit_code = 1;
    EXPECT_FALSE(all_passed.ending_agrees()) << "passed, then status 1";
    ChildRun one_failed = reported({"passed", "failed"});
    one_failed.exit_code = 1;
    EXPECT_TRUE(one_failed.ending_agrees());
    one_failed.exit_code = 0;
    EXPECT_FALSE(one_failed.ending_agrees()) << "failed, then status 0";
    ChildRun crashed = reported({"passed"});
    crashed.signal = 11;
    EXPECT_FALSE(crashed.ending_agrees()) << "passed, then a crash outside any test";
    ChildRun hung_at_exit = reported({"passed"});
    hung_at_exit.timed_out = true;
    EXPECT_FALSE(hung_at_exit.ending_agrees()) << "passed, then no end before the deadline";
}

// The runner stops a program itself the moment it reports its third case stopped at a time limit
// (kHangsBeforeStopping): that status is the runner's, and the cases it passed before stand, as
// they do with the grader's judge and with ctest's process per case.
TEST(ChildRun, AProgramTheRunnerStoppedIsNotHeldToItsStatus)
{
    ChildRun run = reported({"passed", "failed", "passed", "failed", "failed"});
    run.stopped = true;
    run.exit_code = -1;  // as run_child leaves it
    EXPECT_TRUE(run.ending_agrees());
    EXPECT_FALSE(run.clean_exit());
}
