// TRUSTED SIDE. See speed_verdict.hpp.
#include "speed_verdict.hpp"

namespace lab::judge {

SpeedJudgement judge_speed(const std::string& key, const SpeedMeasurement& m, const std::string& gpu, int multiprocessors)
{
    SpeedJudgement j;
    j.thresholds = SpeedPlan::kit().thresholds_for(key, gpu, multiprocessors, m);
    j.plausible = m.of_ceiling() <= kMostOfTheCeiling;
    j.vs_baseline_met = m.vs_baseline() >= j.thresholds.vs_baseline;
    j.of_ceiling_met = j.thresholds.of_ceiling <= 0 || m.of_ceiling() >= j.thresholds.of_ceiling;
    return j;
}

std::string describe_thresholds(const AppliedThresholds& t)
{
    return "at least " + format_ratio(t.vs_baseline) + " the baseline" +
           (t.of_ceiling > 0 ? " and " + format_percent(t.of_ceiling) + " of the ceiling" : "") + ", " + t.source;
}

}  // namespace lab::judge
