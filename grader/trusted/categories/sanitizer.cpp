// TRUSTED SIDE. The sanitizer category (sanitizer.hpp runs it): an untimed pass over a few small
// visible cases of each rung that passes every visible case (or of every rung that built, when the
// rubric takes a penalty), in two halves. compute-sanitizer's tools use the GPU: on a GPU a rung's
// start as soon as its cases are in, beside the other rungs' cases, and end before the speed is
// timed. The CPU backend's thread orders use the CPU alone: on a GPU they run the second build's
// runners (cpu_backend_build.hpp), below the GPU work in priority, and may go on after the GPU is
// let go; on the CPU backend they run once every rung's cases are in, a rung at a time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "categories.hpp"
#include "lab/device.hpp"
#include "lab/registry.hpp"
#include "plan.hpp"
#include "sanitizer.hpp"

namespace lab::grading {

namespace {

constexpr int kPassesAtOnce = 4;  // rungs, on a GPU

class Sanitizer final : public Category {
public:
    std::string name() const override { return "sanitizer"; }
    When when() const override { return When::beside_cases; }

    // The pass's cases, chosen at intake as a GPU grading chooses them, on every machine: without a
    // GPU the cases category leaves out what is over [no_gpu] max_n (16384 rows of one column, rung
    // 12's many_rows, launch 2^19 threads) or not in [no_gpu] visible_groups, and a pass chosen from
    // those would miss what the GPU grading's CPU-backend half finds there (a read past the end of a
    // short row, whose last row ends at a 256-byte boundary only there).
    void plan(Grading& run) override
    {
        for (const RungInfo& rung : Registry::kit().rungs())
            cases_[rung.id] = sanitizer_cases(plan_visible_as_on_a_gpu(rung, run.rubric, run.g.seed), run.rubric.sanitizer);
    }

    BuildNeeds needs(const Grading& run) const override
    {
        BuildNeeds needs;
        needs.cpu_runners = run.gpu && run.rubric.sanitizer.on() && run.rubric.sanitizer.thread_orders;
        return needs;
    }

    void start(Grading& run) override
    {
        run_ = &run;
        passes_.assign(run.g.rungs.size(), Passes{});
        limits_ = run.limits;
        limits_.check_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / (run.gpu ? kPassesAtOnce : 1));
        if (run.gpu) {
            base_.tool_path = compute_sanitizer();
            base_.tools = run.rubric.sanitizer.tools;
            base_.orders = {"forward", "reverse"};
        } else {
            base_.orders = lab::thread_orders();
        }
    }

    std::vector<Pass> passes() override
    {
        Pass tools{"sanitizer_tools", "sanitizer", true, false, kPassesAtOnce, [this](std::size_t k) { half(k, true); }};
        Pass orders{"thread_orders", "sanitizer", false, false, kPassesAtOnce, [this](std::size_t k) { half(k, false); }};
        return {tools, orders};
    }

    // For each rung that passes every visible case (or every rung that built, when the rubric takes a penalty).
    bool wanted(const Grading& run, std::size_t k) const override
    {
        const RungResult& r = run.g.rungs[k];
        return run.rubric.sanitizer_on(r.id) && r.built && !r.reused &&
               (run.rubric.sanitizer.penalty > 0 || (r.count("failed", 0) == 0 && r.count("passed", 0) > 0));
    }

    // A tool's log that said the GPU's memory ran out, or a race beside a failed case.
    bool sharing_could_change(const Grading& run, std::size_t k) const override
    {
        return run_again_alone(run.g.rungs[k].cases, passes_[k].tools);
    }

    // Its tools run again (the pipeline runs this category's GPU pass again once this returns).
    void again(Grading&, std::size_t k) override { passes_[k].tools = SanitizerResult{}; }

    void keep(Grading& run, std::size_t k) override
    {
        Passes& p = passes_[k];
        if (!p.from) return;
        RungResult& r = run.g.rungs[k];
        append(p.tools, std::move(p.orders));
        r.sanitizer = std::move(p.tools);
        r.phases["sanitizer"] = std::chrono::duration<double>(*p.to - *p.from).count();
        std::printf("  %-20s sanitizer: %s\n", r.id.c_str(),
                    r.sanitizer.findings.empty()
                        ? ("nothing found" + std::string(r.sanitizer.note.empty() ? "" : " (" + r.sanitizer.note + ")")).c_str()
                        : (std::to_string(r.sanitizer.findings.size()) + " finding(s): " + r.sanitizer.findings.front()).c_str());
        std::fflush(stdout);
    }

    void score(const Rubric& rubric, bool, RungResult& rung) const override { score_sanitizer(rung, rubric); }

    void report(const RungResult& r, nlohmann::json& rung) const override
    {
        rung["sanitizer"] = {{"ran", r.sanitizer.ran()}, {"checks", r.sanitizer.checks}, {"findings", r.sanitizer.findings},
                             {"note", r.sanitizer.note}};
    }

    void read(const nlohmann::json& rung, RungResult& r) const override
    {
        const nlohmann::json& s = rung.at("sanitizer");
        r.sanitizer.checks = s.at("checks").get<std::vector<std::string>>();
        r.sanitizer.findings = s.at("findings").get<std::vector<std::string>>();
        r.sanitizer.note = s.at("note").get<std::string>();
    }

private:
    using Clock = std::chrono::steady_clock;
    struct Passes {
        SanitizerResult tools, orders;
        std::optional<Clock::time_point> from, to;  // from the start of the first half to the end of the last
    };

    // On a GPU the CPU backend's build may still be running: the tools start at once, and the thread
    // orders of the first rung to need them wait for it (once, for every rung).
    void wait_for_cpu()
    {
        std::call_once(cpu_waited_, [this] {
            double unused = 0;
            if (!run_->cpu_build || !run_->cpu_build->runners()) {
                cpu_missing_ = "the rubric's sanitizer.thread_orders is false";
                return;
            }
            const Built& cpu = run_->cpu_build->wait(cpu_missing_, unused);
            cpu_runners_ = cpu.runners;
            cpu_logs_ = cpu.logs;
        });
    }

    SanitizerRun run_for(const std::string& id)
    {
        SanitizerRun run = base_;
        run.submitted = submitted_paths(grading_build_dir(), id);
        if (run_->gpu) {
            run.runner = run_->built.runners.at(id);
            run.before_orders = [this, id](SanitizerRun& then) {
                wait_for_cpu();
                const std::string tree = run_->cpu_build ? run_->cpu_build->tree() : "";
                if (!tree.empty())
                    for (const std::string& path : submitted_paths(tree, id)) then.submitted.push_back(path);
                if (cpu_runners_.count(id)) then.cpu_runner = cpu_runners_.at(id);
                else if (!cpu_missing_.empty()) then.cpu_missing = cpu_missing_;
                else
                    then.cpu_missing = "the file did not build for the CPU backend:\n" +
                                       (cpu_logs_.count(id) ? cpu_logs_.at(id) : std::string("(no message)"));
            };
        } else {
            run.cpu_runner = run_->built.runners.at(id);
        }
        return run;
    }

    // One half of rung k's pass, into its Passes: the tools (the GPU), or the thread orders (the CPU).
    void half(std::size_t k, bool tools)
    {
        const Clock::time_point started = Clock::now();
        const std::string& id = run_->rung(k).id;
        Passes& p = passes_[k];
        const auto run_half = tools ? run_sanitizer_tools : run_sanitizer_orders;
        run_half(run_->rung(k), run_for(id), cases_.at(id), limits_,
                 run_->work + "/" + id + "-sanitizer", tools ? p.tools : p.orders);
        const std::lock_guard<std::mutex> lock(spans_);
        if (!p.from || started < *p.from) p.from = started;
        const Clock::time_point now = Clock::now();
        if (!p.to || now > *p.to) p.to = now;
    }

    Grading* run_ = nullptr;
    std::map<std::string, std::vector<PlannedCase>> cases_;  // by rung id, from plan()
    std::vector<Passes> passes_;
    std::mutex spans_;
    Limits limits_;
    SanitizerRun base_;
    std::once_flag cpu_waited_;
    std::string cpu_missing_;
    std::map<std::string, std::string> cpu_runners_, cpu_logs_;
};

}  // namespace

std::unique_ptr<Category> make_sanitizer_category()
{
    return std::make_unique<Sanitizer>();
}

void score_sanitizer(RungResult& rung, const Rubric& rubric)
{
    const SanitizerRules& rules = rubric.sanitizer;
    rung.parts.erase(std::remove_if(rung.parts.begin(), rung.parts.end(), [](const Part& p) { return p.name == "sanitizer"; }),
                     rung.parts.end());
    if (!rubric.sanitizer_on(rung.id)) return;
    Part part;
    part.name = "sanitizer";
    part.max = rubric.for_rung(rung.id).sanitizer;
    const SanitizerResult& s = rung.sanitizer;
    const bool visible_pass = rung.count("failed", 0) == 0 && rung.count("passed", 0) > 0;
    if (!rung.built) {
        part.note = rung.unrun;
    } else if (!s.findings.empty()) {
        double others = 0;
        for (const Part& p : rung.parts) others += p.graded ? p.score : 0;
        part.score = -std::min(rules.penalty, std::max(0.0, others));
        part.note = "found (" + std::to_string(s.findings.size()) + "):";
        for (const std::string& f : s.findings) part.note += "\n- " + f;
        if (part.score < 0) {
            char penalty[64];
            std::snprintf(penalty, sizeof penalty, "\npenalty: %.2f points (the rubric's sanitizer.penalty)", part.score);
            part.note += penalty;
        }
    } else if (!s.ran()) {
        part.graded = !visible_pass;
        part.note = !visible_pass ? "not earned: the sanitizer pass counts once every visible case passes"
                                  : "not graded here" + (s.note.empty() ? std::string() : ": " + s.note);
    } else if (!visible_pass) {
        part.note = "nothing found, but not earned: the sanitizer pass counts once every visible case passes";
    } else {
        part.score = part.max;
        std::string checks;
        for (const std::string& c : s.checks) checks += (checks.empty() ? "" : ", ") + c;
        part.note = "nothing found by " + checks + (s.note.empty() ? "" : ". " + s.note);
    }
    part.score = std::round(part.score * 1e6) / 1e6;
    rung.parts.push_back(part);
}

}  // namespace lab::grading
