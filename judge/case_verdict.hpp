// TRUSTED SIDE. A case's verdict from what its kernel did under each thread order: the one place that
// decides whether a case passed, and says why not. The judge's checker (checker.cpp, from the
// buffers a runner hands back) judges through it for the grader and the suites alike, so a case's
// verdict, its message and its likely causes are the same whichever of the two ran it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "case_result.hpp"
#include "lab/cases.hpp"
#include "lab/check.hpp"
#include "lab/inputs.hpp"
#include "lab/plan.hpp"
#include "lab/registry.hpp"

namespace lab::judge {

// One thread order's run of a case.
template <typename T>
struct OrderRun {
    std::string order;        // "forward", "reverse", ... ; the GPU's own order on a GPU
    std::string error;        // what the kernel's failure said (CUDA's words, the CPU backend's detail); "" when none
    // The output slots, kCanaryCount guards either side (lab/inputs.hpp): empty when none came back,
    // and a failure unless it has the planned size.
    std::vector<T> guarded;
};

// Fills `result`'s status, message, orders, causes, expected and got, kernel error and overrun from
// `runs` (at least one). `input` makes the case's input when it is needed (a failure to describe,
// or the check itself when `total` is none); `total`, for a rung checked by its total, the input's
// exact total (then the input is made only to describe a failure).
template <typename T>
void judge_runs(const RungInfo& rung, const Case& c, const LaunchPlan& plan,
                const std::function<const HostInput<T>&()>& input, const std::optional<Total>& total,
                const std::vector<OrderRun<T>>& runs, CaseResult& result);

}  // namespace lab::judge
