// TRUSTED SIDE. See speed.hpp.
#include "speed.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "lab/device.hpp"
#include "lab/registry.hpp"
#include "lab/speed_plan.hpp"
#include "plan.hpp"
#include "speed_case.hpp"
#include "speed_verdict.hpp"

namespace lab::grading {

namespace {

// A speed case's figures, and whether they pass: the note for the report.
std::string judge_case(const lab::judge::SpeedCaseRun& run, const lab::DeviceStatus& device, bool& passed)
{
    passed = false;
    if (!run.m.wrong.empty()) return "no points: " + run.m.wrong;
    const std::string label = run.key();
    const lab::judge::SpeedJudgement j = lab::judge::judge_speed(label, run.m, device.name, device.shape.multiprocessors);
    passed = j.passed();
    return run.m.summary(label, device.name) + "; needs " + lab::judge::describe_thresholds(j.thresholds) +
           (j.plausible ? "" : std::string("; ") + lab::judge::kNotTrusted);
}

}  // namespace

void grade_speed(Grade& g, const Rubric& rubric, const Built& built, const Limits& limits, const std::string& work)
{
    const lab::DeviceStatus& device = lab::device_status();
    const lab::SpeedPlan& plan = lab::SpeedPlan::kit();
    std::map<std::string, SpeedVerdict> verdicts;
    std::vector<lab::judge::SpeedCaseRun> runs;
    for (RungResult& r : g.rungs) {
        if (!speed_graded_here(r, rubric)) continue;
        const auto speed_cases = plan.cases_of(r.id);
        SpeedVerdict& verdict = verdicts[r.id];
        if (!speed_timed(r, rubric)) {
            verdict.note = "not earned: speed counts once every visible case passes";
            continue;
        }
        verdict.passed = true;
        for (const lab::SpeedPlan::Case* speed_case : speed_cases) {
            lab::judge::SpeedCaseRun& run = runs.emplace_back();
            run.rung = &lab::Registry::kit().get(r.id);
            run.runner = built.runners.at(r.id);
            run.block = speed_case->block;
            run.scheme = speed_case->scheme;
            run.op = speed_case->op;
        }
    }
    // The judge times them (judge/speed_case.hpp): the kit's part first, then each runner in turn.
    lab::judge::time_speed_cases(runs, g.seed, limits, work);

    // Each rung's verdict: every one of its speed cases fast enough.
    for (RungResult& r : g.rungs) {
        if (!verdicts.count(r.id)) continue;
        SpeedVerdict& verdict = verdicts.at(r.id);
        double kit = 0, running = 0, checking = 0;
        for (const lab::judge::SpeedCaseRun& run : runs) {
            if (run.rung->id != r.id) continue;
            bool passed = false;
            const std::string note = judge_case(run, device, passed);
            if (run.m.wrong.empty()) r.gbps = r.gbps > 0 ? std::min(r.gbps, run.m.gbps) : run.m.gbps;  // a row rung's: its slowest kernel's
            verdict.passed = verdict.passed && passed;
            verdict.note += (verdict.note.empty() ? "" : "\n") + note;
            kit += run.kit_seconds;
            running += run.running;
            checking += run.checking;
        }
        // What its speed was made of (its runners' start-ups ran beside one another, before any go).
        r.phases["speed"] = kit + running + checking;
        if (kit + running > 0) {
            r.phases["speed_kit"] = kit;
            r.phases["speed_runner"] = running;
            r.phases["speed_checking"] = checking;
        }
        score_rung(r, rubric, true, &verdict);
        std::printf("  %-20s speed: %s\n", r.id.c_str(), verdict.note.c_str());
        std::fflush(stdout);
    }
}

}  // namespace lab::grading
