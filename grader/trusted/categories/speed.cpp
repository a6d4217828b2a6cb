// TRUSTED SIDE. The speed category, on a GPU: each rung's runner times its full reduction (a row
// rung: each of its kernels) with nothing else on the GPU, against the kit's baseline and the
// memory ceiling timed here, in a process that loads no submitted code; once every rung's cases
// are in, and only for a rung that passes every visible case. Without a GPU its points are held
// (or excluded: the rubric's [no_gpu].speed).
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "categories.hpp"
#include "lab/device.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/speed_plan.hpp"
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

class Speed final : public Category {
public:
    std::string name() const override { return "speed"; }
    When when() const override { return When::after_cases; }

    bool needs_gpu_alone(const Grading& run) const override { return run.gpu && speed_to_time(run.g, run.rubric); }

    // The cases are timed by the judge (judge/speed_case.hpp: the kit's part first, then each runner
    // in turn with nothing else on the GPU), as the suites' speed test times them; the verdict of
    // each is judge_speed's.
    void run(Grading& run, const std::function<void(std::size_t)>&) override
    {
        if (!run.gpu) return;
        const lab::process::Account account("speed");
        const lab::DeviceStatus& device = lab::device_status();
        const lab::SpeedPlan& plan = lab::SpeedPlan::kit();
        std::vector<lab::judge::SpeedCaseRun> runs;
        for (RungResult& r : run.g.rungs) {
            if (!speed_graded_here(r, run.rubric)) continue;
            SpeedVerdict& verdict = r.speed.emplace();
            if (!speed_timed(r, run.rubric)) {
                verdict.note = "not earned: speed counts once every visible case passes";
                continue;
            }
            verdict.passed = true;
            for (const lab::SpeedPlan::Case* speed_case : plan.cases_of(r.id)) {
                lab::judge::SpeedCaseRun& one = runs.emplace_back();
                one.rung = &lab::Registry::kit().get(r.id);
                one.runner = run.built.runners.at(r.id);
                one.block = speed_case->block;
                one.scheme = speed_case->scheme;
                one.op = speed_case->op;
            }
        }
        lab::judge::time_speed_cases(runs, run.g.seed, run.limits, run.work);
        // Each rung's verdict: every one of its speed cases fast enough.
        for (RungResult& r : run.g.rungs) {
            if (!r.speed) continue;
            SpeedVerdict& verdict = *r.speed;
            double kit = 0, running = 0, checking = 0;
            for (const lab::judge::SpeedCaseRun& one : runs) {
                if (one.rung->id != r.id) continue;
                bool passed = false;
                const std::string note = judge_case(one, device, passed);
                if (one.m.wrong.empty()) r.gbps = r.gbps > 0 ? std::min(r.gbps, one.m.gbps) : one.m.gbps;  // a row rung's: its slowest kernel's
                verdict.passed = verdict.passed && passed;
                verdict.note += (verdict.note.empty() ? "" : "\n") + note;
                kit += one.kit_seconds;
                running += one.running;
                checking += one.checking;
            }
            // What its speed was made of (its runners' start-ups ran beside one another, before any go).
            r.phases["speed"] = kit + running + checking;
            if (kit + running > 0) {
                r.phases["speed_kit"] = kit;
                r.phases["speed_runner"] = running;
                r.phases["speed_checking"] = checking;
            }
            std::printf("  %-20s speed: %s\n", r.id.c_str(), verdict.note.c_str());
            std::fflush(stdout);
        }
    }

    void score(const Rubric& rubric, bool gpu, RungResult& rung) const override
    {
        if (!rubric.speed_counts(rung.id)) return;
        Part speed;
        speed.name = "speed";
        speed.max = rubric.for_rung(rung.id).speed;
        if (!gpu) {
            speed.graded = false;
            speed.note = "not graded here: no GPU (the rubric's no_gpu.speed = \"held\": these points stay in the maximum, "
                         "for a re-grade on a GPU)";
        } else if (!rung.built) {
            speed.note = rung.unrun;
        } else if (rung.speed) {
            speed.score = rung.speed->passed ? speed.max : 0;
            speed.note = rung.speed->note;
        } else {
            speed.graded = false;
            speed.note = "not graded here: not measured";
        }
        rung.parts.push_back(speed);
    }

    void report(const RungResult& r, nlohmann::json& rung) const override { rung["gbps"] = r.gbps; }
    void read(const nlohmann::json& rung, RungResult& r) const override { r.gbps = rung.at("gbps").get<double>(); }
};

}  // namespace

bool speed_graded_here(const RungResult& rung, const Rubric& rubric)
{
    return rubric.speed_counts(rung.id) && rung.built && !rung.reused;
}

bool speed_timed(const RungResult& rung, const Rubric& rubric)
{
    return speed_graded_here(rung, rubric) && rung.count("failed", 0) == 0;
}

bool speed_to_time(const Grade& g, const Rubric& rubric)
{
    for (const RungResult& r : g.rungs)
        if (speed_timed(r, rubric)) return true;
    return false;
}

std::unique_ptr<Category> make_speed_category()
{
    return std::make_unique<Speed>();
}

}  // namespace lab::grading
