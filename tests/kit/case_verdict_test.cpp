// The judge's one verdict of a case (judge/case_verdict.hpp), from what a kernel left under each
// thread order: the grader's checker and the suites both decide through it.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "case_verdict.hpp"
#include "lab/diagnosis.hpp"
#include "lab/inputs.hpp"
#include "lab/plan.hpp"
#include "lab/registry.hpp"

namespace {

using lab::judge::CaseResult;
using lab::judge::OrderRun;

struct Fixture {
    const lab::RungInfo& rung = lab::Registry::kit().get("03_sequential");
    lab::Case c;
    lab::LaunchPlan plan;
    lab::HostInput<int> input;
    Fixture()
    {
        c.name = "int_n1000_b256";
        c.input = lab::InputKind::ints;
        c.n = 1000;
        c.block = 256;
        c.seed = 7;
        plan = lab::plan_case(rung, c, {});
        input = lab::make_input<int>(c);
    }
    // The right block sums between guards.
    OrderRun<int> right(const std::string& order) const
    {
        OrderRun<int> run;
        run.order = order;
        const std::size_t slots = lab::output_count(plan, c.op);
        run.guarded = lab::guarded_output<int>(slots);
        for (std::size_t b = 0; b < slots; ++b) {
            int sum = 0;
            for (std::size_t i = b * plan.block; i < std::min<std::size_t>(c.n, (b + 1) * plan.block); ++i) sum += input.values[i];
            run.guarded[lab::kCanaryCount + b] = sum;
        }
        return run;
    }
    CaseResult judge(const std::vector<OrderRun<int>>& runs) const
    {
        CaseResult result;
        lab::judge::judge_runs<int>(rung, c, plan, [this]() -> const lab::HostInput<int>& { return input; }, std::nullopt,
                                    runs, result);
        return result;
    }
};

TEST(CaseVerdict, PassesOnlyWhenEveryOrderIsRight)
{
    const Fixture f;
    const CaseResult all = f.judge({f.right("forward"), f.right("reverse")});
    EXPECT_EQ(all.status, "passed");
    EXPECT_EQ(all.passed_orders, (std::vector<std::string>{"forward", "reverse"}));
    EXPECT_FALSE(all.orders_differ);

    OrderRun<int> wrong = f.right("reverse");
    wrong.guarded[lab::kCanaryCount + 1] += 1;
    const CaseResult one = f.judge({f.right("forward"), wrong});
    EXPECT_EQ(one.status, "failed");
    EXPECT_EQ(one.failed_orders, (std::vector<std::string>{"reverse"}));
    EXPECT_TRUE(one.orders_differ);
    EXPECT_EQ(one.first_wrong_block, 1);
    EXPECT_NE(one.message.find("1 of 4 block results wrong"), std::string::npos) << one.message;
    EXPECT_NE(one.message.find("threads ran in reverse order"), std::string::npos) << one.message;
    EXPECT_NE(one.message.find("The same case passes when the threads run in forward order"), std::string::npos) << one.message;
    EXPECT_NE(std::find(one.causes.begin(), one.causes.end(), "fails_reverse_only"), one.causes.end());
}

// A crash in one order is judged with the orders after it: the order that passes is named.
TEST(CaseVerdict, ACrashInOneOrderNamesTheOrderThatPasses)
{
    const Fixture f;
    OrderRun<int> crashed;
    crashed.order = "reverse";
    crashed.error = "cudaDeviceSynchronize() failed: an illegal memory access was encountered (cudaErrorIllegalAddress)";
    const CaseResult r = f.judge({f.right("forward"), crashed});
    EXPECT_EQ(r.status, "failed");
    EXPECT_EQ(r.kernel_error, crashed.error);
    EXPECT_EQ(r.message.rfind("rung 03_sequential, case int_n1000_b256: the kernel failed (threads in reverse order): ", 0), 0u)
        << r.message;
    EXPECT_NE(r.message.find(lab::kBadAddressHint), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("passes when the threads run in forward order"), std::string::npos) << r.message;
}

TEST(CaseVerdict, AGuardWrittenOrNoOutputFails)
{
    const Fixture f;
    OrderRun<int> overran = f.right("the GPU's");
    overran.guarded.back() = 0;
    const CaseResult r = f.judge({overran});
    EXPECT_EQ(r.status, "failed");
    EXPECT_TRUE(r.overran);
    EXPECT_NE(r.message.find("wrote outside its output: "), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("launch: n = 1000, block size 256, grid 4"), std::string::npos) << r.message;
    EXPECT_EQ(r.message.find("threads in"), std::string::npos) << "one order, none named: " << r.message;

    OrderRun<int> none = f.right("the GPU's");
    none.guarded.clear();
    EXPECT_NE(f.judge({none}).message.find("handed back no output"), std::string::npos);
    OrderRun<int> short_output = f.right("the GPU's");
    short_output.guarded.pop_back();
    EXPECT_EQ(f.judge({short_output}).status, "failed");
}

}  // namespace
