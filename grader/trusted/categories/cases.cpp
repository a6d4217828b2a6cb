// TRUSTED SIDE. The cases category: every rung's visible and hidden cases, planned at intake from
// the grading's seed, run by the judge's checker in the rung's runner (sandboxed), and the visible
// and hidden parts they earn. On a GPU a few rungs run side by side, the longest first; on the CPU
// backend, whose runners use every core, one at a time in the registry's order.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "categories.hpp"
#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/device_input.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/rung_tests.hpp"
#include "plan.hpp"
#include "report_facts.hpp"

namespace lab::grading {

namespace {

// How many rungs' cases a GPU runs side by side: four, or as many as have room in its free memory
// for their largest case each at once, with half as much again to spare (the sanitizer's passes
// beside them, the kernels' own buffers), and at least one. An H100's 80 GB take four rungs of
// 2^31 + 5 ints; a 24 GB card takes one, so that no case fails for another rung's input.
int rungs_side_by_side(const std::map<std::string, std::vector<PlannedCase>>& planned)
{
    std::size_t largest = 0;
    for (const auto& [id, cases] : planned)
        for (const PlannedCase& p : cases)
            if (p.skip.empty()) largest = std::max(largest, lab::device_bytes(p.c));
    std::size_t free = 0, total = 0;
    if (largest == 0 || cudaMemGetInfo(&free, &total) != cudaSuccess) return 3;
    return static_cast<int>(std::clamp<std::size_t>(free / (largest + largest / 2), 1, 4));
}

// The least work a case is counted as, in elements: a small case costs its launch and its copies.
constexpr std::size_t kLeastCaseWork = std::size_t{1} << 16;

// How many runners share each rung's cases (Limits::runners). On a GPU running rungs side by side, a
// rung with more than its share of the grading's work (the elements its runner makes on the host and
// copies over, each case counted as at least kLeastCaseWork; a large uniform int input is drawn on
// the GPU) would end long after every other rung: rung 13's
// 743 cases were 16 of a grading's 20 s of cases on an H200. Such a rung gets up to four runners,
// where its largest case fits as many times in the room a lane has (rungs_side_by_side). One each
// on the CPU backend, whose runners use every core.
std::vector<int> runners_per_rung(const Grading& run)
{
    const std::size_t count = run.g.rungs.size();
    std::vector<int> runners(count, 1);
    if (!run.gpu || run.rungs_at_once < 2) return runners;
    std::vector<double> work(count, 0.0);
    std::vector<std::size_t> largest(count, 0);
    double total = 0;
    std::size_t lane = 0;
    for (std::size_t k = 0; k < count; ++k) {
        if (!run.planned.count(run.rung(k).id)) continue;
        for (const PlannedCase& p : run.planned.at(run.rung(k).id)) {
            if (!p.skip.empty()) continue;
            const std::size_t made = lab::drawn_on_device(p.c) ? 0 : p.c.n * lab::operands_of(p.c.op);
            work[k] += static_cast<double>(std::max(made, kLeastCaseWork));
            largest[k] = std::max(largest[k], lab::device_bytes(p.c));
        }
        total += work[k];
        lane = std::max(lane, largest[k]);
    }
    for (std::size_t k = 0; k < count && total > 0; ++k) {
        const double share = work[k] * run.rungs_at_once / total;  // 1: its lane's fair part
        int wanted = static_cast<int>(std::ceil(2 * share));
        while (wanted > 1 && largest[k] * static_cast<std::size_t>(wanted) > lane) --wanted;
        runners[k] = std::clamp(wanted, 1, 4);
    }
    return runners;
}

// A rung's phases from its cases (RungResult::phases): the visible and hidden cases' runner time,
// and of those the large ones' (2^24 elements or more, where a GPU's time goes).
void case_phases(RungResult& r, const RungTimes& times)
{
    double visible = 0, hidden = 0, large = 0;
    for (const CaseResult& c : r.cases) {
        if (c.seconds < 0) continue;
        (c.hidden ? hidden : visible) += c.seconds;
        if (c.n >= (std::uint64_t{1} << 24)) large += c.seconds;
    }
    r.phases["preparing"] = times.preparing;
    r.phases["runner_start"] = times.starting;
    r.phases["visible_cases"] = visible;
    r.phases["hidden_cases"] = hidden;
    r.phases["large_cases"] = large;
    r.phases["checking"] = times.checking;
}

nlohmann::json case_json(const CaseResult& c)
{
    nlohmann::json one = {{"name", c.name}, {"group", c.group}, {"hidden", c.hidden}, {"op", c.op}, {"input", c.input},
                          {"n", c.n}, {"seed", c.seed}, {"offset", c.offset}, {"block", c.block}, {"grid", c.grid},
                          {"status", c.status}, {"message", c.message}, {"expected", c.expected}, {"got", c.got},
                          {"first_wrong_block", c.first_wrong_block}, {"replay", c.replay}};
    if (c.seconds >= 0) one["seconds"] = c.seconds;
    if (!c.causes.empty()) one["causes"] = c.causes;
    if (c.status == "failed") one["kind"] = failure_kind(c);
    return one;
}

CaseResult case_from_json(const nlohmann::json& one)
{
    CaseResult c;
    c.name = one.at("name").get<std::string>();
    c.group = one.at("group").get<std::string>();
    c.hidden = one.at("hidden").get<bool>();
    c.op = one.at("op").get<std::string>();
    c.input = one.at("input").get<std::string>();
    c.n = one.at("n").get<std::uint64_t>();
    c.seed = one.at("seed").get<std::uint64_t>();
    c.offset = one.at("offset").get<std::uint64_t>();
    c.block = one.at("block").get<unsigned>();
    c.grid = one.at("grid").get<unsigned>();
    c.status = one.at("status").get<std::string>();
    c.message = one.at("message").get<std::string>();
    c.expected = one.at("expected").get<std::string>();
    c.got = one.at("got").get<std::string>();
    c.first_wrong_block = one.at("first_wrong_block").get<long>();
    c.replay = one.at("replay").get<std::string>();
    c.seconds = one.value("seconds", -1.0);
    if (one.contains("causes")) c.causes = one.at("causes").get<std::vector<std::string>>();
    c.kind = one.value("kind", std::string());
    return c;
}

class Cases final : public Category {
public:
    std::string name() const override { return "cases"; }
    When when() const override { return When::cases; }

    // Every rung's cases are chosen before any submitted code runs: nothing a runner does can change them.
    void plan(Grading& run) override
    {
        std::size_t not_here = 0;
        for (const RungInfo& rung : Registry::kit().rungs()) {
            run.planned[rung.id] = plan_cases(rung, run.rubric, run.g.seed, run.g.hidden_seed);
            if (run.intake.files.count(rung.id))
                for (const PlannedCase& p : run.planned[rung.id]) not_here += !p.skip.empty();
        }
        if (not_here)
            std::cout << "  not run here: " << not_here << " cases (graded on a GPU only, or too large for this machine); "
                      << "each report lists them by group\n";
    }

    void run(Grading& run, const std::function<void(std::size_t)>& ended) override
    {
        // Rungs are graded side by side: a few at once on a GPU (each runner has its own context, and
        // no speed is measured here), one at a time on the CPU backend, whose runners use every core.
        run.rungs_at_once = run.gpu ? rungs_side_by_side(run.planned) : 1;
        run.limits.check_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / run.rungs_at_once);
        const std::size_t count = run.g.rungs.size();
        // Side by side, the longest first, so that the last to finish is a short one: a rung's work is
        // its cases' elements, each case counted as at least kLeastCaseWork. One at a time, in the
        // registry's order.
        std::vector<std::size_t> longest_first(count);
        std::vector<double> work(count, 0.0);
        for (std::size_t k = 0; k < count; ++k) {
            longest_first[k] = k;
            if (run.planned.count(run.rung(k).id))
                for (const PlannedCase& p : run.planned.at(run.rung(k).id))
                    if (p.skip.empty()) work[k] += static_cast<double>(std::max(p.c.n, kLeastCaseWork));
        }
        if (run.rungs_at_once > 1)
            std::stable_sort(longest_first.begin(), longest_first.end(), [&](std::size_t a, std::size_t b) { return work[a] > work[b]; });
        runners_ = runners_per_rung(run);
        side_by_side(count, run.rungs_at_once, [&](std::size_t order) {
            const std::size_t k = longest_first[order];
            run.ready(k);  // (on a GPU, once its runner is linked: the others' cases run meanwhile)
            if (grade_cases(run, k, false)) ended(k);
        });
    }

    bool sharing_could_change(const Grading& run, std::size_t k) const override
    {
        return run_again_alone(run.g.rungs[k].cases, SanitizerResult{});
    }

    void again(Grading& run, std::size_t k) override { grade_cases(run, k, true); }

    void score(const Rubric& rubric, bool, RungResult& rung) const override
    {
        const RungPoints& points = rubric.for_rung(rung.id);
        for (const bool hidden : {false, true}) {
            Part part;
            part.name = hidden ? "hidden" : "visible";
            part.max = hidden ? points.hidden : points.visible;
            if (part.max <= 0) continue;
            std::map<std::string, GroupScore> groups;
            std::vector<std::string> order;
            for (const CaseResult& c : rung.cases) {
                if (c.hidden != hidden) continue;
                if (!groups.count(c.group)) order.push_back(c.group), groups[c.group].name = c.group;
                GroupScore& g = groups[c.group];
                (c.status == "passed" ? g.passed : c.status == "failed" ? g.failed : g.skipped)++;
            }
            // The part's points are shared by the groups that ran here; a group none of whose cases ran
            // here is listed with its cases not run, and no share.
            std::size_t ran = 0;
            for (const auto& name : order) ran += groups[name].passed + groups[name].failed > 0;
            for (const auto& name : order) {
                GroupScore g = groups[name];
                if (g.passed + g.failed > 0) {
                    g.max = part.max / static_cast<double>(ran);
                    const double fraction = static_cast<double>(g.passed) / (g.passed + g.failed);
                    g.score = !rung.built ? 0 : rubric.proportional ? g.max * fraction : (g.failed == 0 ? g.max : 0);
                    part.score += g.score;
                }
                part.groups.push_back(g);
            }
            // Shares of a part add up to it exactly as printed: no 7.999999999999998 for 8.
            part.score = std::round(part.score * 1e6) / 1e6;
            if (!rung.built) {
                part.note = rung.unrun;
            } else if (ran == 0) {
                // Its points stay in the maximum (the same on every machine): a re-grade where its cases run earns them.
                part.graded = false;
                part.note = "not graded here: none of its cases runs on this machine";
            }
            rung.parts.push_back(part);
        }
    }

    void report(const RungResult& r, nlohmann::json& rung) const override
    {
        nlohmann::json cases = nlohmann::json::array();
        for (const CaseResult& c : r.cases) cases.push_back(case_json(c));
        rung["cases"] = std::move(cases);
    }

    void read(const nlohmann::json& rung, RungResult& r) const override
    {
        for (const nlohmann::json& one : rung.at("cases")) r.cases.push_back(case_from_json(one));
    }

private:
    // Rung k's cases run, and said; `again`: a second run, with the GPU alone. Whether they ran.
    bool grade_cases(Grading& run, std::size_t k, bool again)
    {
        const RungInfo& rung = run.rung(k);
        RungResult& r = run.g.rungs[k];
        if (!run.rubric.assigned(rung.id)) return false;  // (dropped before the reports)
        if (r.reused) {
            const std::lock_guard<std::mutex> lock(printing_);
            std::printf("  %-20s reused (unchanged since %s)\n", r.id.c_str(), r.graded_at.c_str());
            return false;
        }
        // The rung's time is run_and_check's, which its phases (case_phases) cover part by part.
        const lab::process::Account account("cases");
        if (r.built) {
            RungTimes times;
            const GpuShare::Hold hold = run.share->hold();  // (nothing when run again, the GPU alone)
            const auto started = std::chrono::steady_clock::now();
            // A rung with several runners checks as many times as many of their cases at once (they
            // hand them back that much faster); run again with the GPU alone, it has one runner.
            Limits limits = run.limits;
            limits.case_seconds = run.rubric.case_seconds_on(run.gpu);
            if (k < runners_.size() && !again) limits.runners = runners_[k], limits.check_threads *= runners_[k];
            r.cases = run_and_check(rung, run.built.runners.at(rung.id), run.planned.at(rung.id), grading_orders(), limits,
                                    run.work + "/" + rung.id, replay_command, &times);
            r.seconds = seconds_since(started);
            case_phases(r, times);
            r.reuse_key = run.key_of(rung.id);
            r.graded_at = run.g.graded_at;
        }
        // The cases only: the points come once every part is in (the table at the end, as the reports give them).
        const std::lock_guard<std::mutex> lock(printing_);
        std::printf("  %-20s %s%s\n", r.id.c_str(), again ? "again, the GPU alone: " : "",
                    !r.built ? r.unrun.c_str()
                             : ("cases: " + std::to_string(r.count("passed")) + " passed, " + std::to_string(r.count("failed")) +
                                " failed" + (r.count("skipped") ? ", " + std::to_string(r.count("skipped")) + " not run here" : "") +
                                " (" + std::to_string(static_cast<int>(r.seconds)) + " s)")
                                   .c_str());
        std::fflush(stdout);
        return true;
    }

    std::mutex printing_;
    std::vector<int> runners_;  // by rung: the runners that share its cases (runners_per_rung)
};

}  // namespace

std::unique_ptr<Category> make_cases_category()
{
    return std::make_unique<Cases>();
}

}  // namespace lab::grading
