// TRUSTED SIDE. See case_verdict.hpp.
#include "case_verdict.hpp"

#include <cstring>

#include "lab/diagnosis.hpp"

namespace lab::judge {

template <typename T>
void judge_runs(const RungInfo& rung, const Case& c, const LaunchPlan& plan,
                const std::function<const HostInput<T>&()>& input, const std::optional<Total>& total,
                const std::vector<OrderRun<T>>& runs, CaseResult& result)
{
    const std::size_t slot_count = output_count(plan, c.op);
    const std::string about = "rung " + rung.id + ", case " + c.name + ": ";
    std::vector<std::string> passed_in, failed_in;
    std::string first_failure, causes;
    // The first failure's likely causes, as text and by pattern name (lab/diagnosis.hpp).
    const auto note_causes = [&](const std::vector<Diagnosis>& found) {
        if (!causes.empty()) return;
        causes = likely_causes(rung, found);
        for (const Diagnosis& d : found) result.causes.push_back(d.pattern);
    };
    std::vector<const std::vector<T>*> outputs;
    std::vector<std::vector<T>> slots_of(runs.size());
    for (std::size_t o = 0; o < runs.size(); ++o) {
        const OrderRun<T>& run = runs[o];
        const std::string in_order = runs.size() > 1 ? " (threads in " + run.order + " order)" : "";
        std::string failure;
        if (!run.error.empty()) {
            const bool bad_address = run.error.find("IllegalAddress") != std::string::npos ||
                                     run.error.find("illegal memory access") != std::string::npos ||
                                     run.error.find("MisalignedAddress") != std::string::npos;
            if (result.kernel_error.empty()) result.kernel_error = run.error;
            failure = about + "the kernel failed" + in_order + ": " + run.error + (bad_address ? kBadAddressHint : "");
            if (bad_address) note_causes(diagnose_crash(rung, c));
        } else if (run.guarded.size() != slot_count + 2 * kCanaryCount) {
            failure = about + "the runner handed back no output for this case" + in_order;
        } else {
            const std::string overrun = overwritten_guard(run.guarded, slot_count, c.op);
            if (!overrun.empty()) {
                failure = about + "the kernel wrote outside its output" + in_order + ": " + overrun +
                          "\n  launch: n = " + std::to_string(c.n) + ", block size " + std::to_string(plan.block) +
                          ", grid " + std::to_string(plan.grid);
                result.overran = true;
            } else {
                const auto first = run.guarded.begin() + static_cast<std::ptrdiff_t>(kCanaryCount);
                std::vector<T>& slots = slots_of[o];
                slots.assign(first, first + static_cast<std::ptrdiff_t>(slot_count));
                const Verdict verdict = total ? check_total(rung, c.op, plan, c.n, *total, slots)
                                              : check_output(rung, c.op, plan, input().values, slots);
                if (!verdict.ok) {
                    failure = describe_failure(rung, c, plan, input().description, verdict) +
                              (runs.size() > 1 ? "\n  threads ran in " + run.order + " order" : "");
                    note_causes(diagnose(rung, c, plan, input().values, slots));
                    if (result.expected.empty() && result.got.empty()) {
                        result.expected = verdict.expected;
                        result.got = verdict.got;
                        result.first_wrong_block = verdict.first_wrong_block;
                    }
                }
                outputs.push_back(&slots);
            }
        }
        (failure.empty() ? passed_in : failed_in).push_back(run.order);
        if (!failure.empty() && first_failure.empty()) first_failure = failure;
    }
    result.passed_orders = passed_in;
    result.failed_orders = failed_in;
    // Bit for bit (a NaN is not equal to itself, but the same NaN in every order agrees).
    for (const std::vector<T>* out : outputs)
        result.orders_differ |= out->size() != outputs.front()->size() ||
                                std::memcmp(out->data(), outputs.front()->data(), out->size() * sizeof(T)) != 0;
    if (failed_in.empty()) {
        result.status = "passed";
        return;
    }
    result.status = "failed";
    result.message = first_failure;
    if (!passed_in.empty()) {
        result.message += "\n  The same case passes when the threads run in " + passed_in.front() + " order. " +
                          thread_order_advice(rung, failed_in);
        if (failed_in.size() == 1 && (failed_in.front() == "forward" || failed_in.front() == "reverse"))
            result.causes.push_back("fails_" + failed_in.front() + "_only");
    } else if (result.orders_differ) {
        // A pattern in the wrong values says more than results that differ in every order (reading
        // what nobody wrote, say); an order that passes says more than any pattern.
        result.message += "\n  The results also differ between thread orders." +
                          (causes.empty() ? " " + thread_order_advice(rung, failed_in) : std::string());
    }
    result.message += causes;
}

template void judge_runs<float>(const RungInfo&, const Case&, const LaunchPlan&,
                                const std::function<const HostInput<float>&()>&, const std::optional<Total>&,
                                const std::vector<OrderRun<float>>&, CaseResult&);
template void judge_runs<int>(const RungInfo&, const Case&, const LaunchPlan&,
                              const std::function<const HostInput<int>&()>&, const std::optional<Total>&,
                              const std::vector<OrderRun<int>>&, CaseResult&);

}  // namespace lab::judge
