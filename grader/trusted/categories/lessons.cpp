// TRUSTED SIDE. The lessons category: each built rung's kernel measured as ./lab explain measures it,
// beside the reference's (lessons.hpp measures), and the technique part where the rubric grades it
// ([[lessons.technique]]). On the CPU alone: on a GPU every built rung's measurement starts with the
// cases (it needs none of their verdicts) and waits for the CPU backend's build; on the CPU backend,
// once every rung's cases and sanitizer passes are in, a rung at a time.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <thread>

#include "categories.hpp"
#include "lessons.hpp"
#include "plan.hpp"

namespace lab::grading {

namespace {

constexpr int kLessonsAtOnce = 2, kChecksShared = 4;  // on a GPU

class LessonsCategory final : public Category {
public:
    std::string name() const override { return "lessons"; }
    When when() const override { return When::beside_cases; }

    BuildNeeds needs(const Grading& run) const override
    {
        BuildNeeds needs;
        needs.explainers = run.rubric.lessons.measure;
        return needs;
    }

    void start(Grading& run) override
    {
        run_ = &run;
        slots_.assign(run.g.rungs.size(), Slot{});
        Limits limits = run.limits;
        limits.check_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / (run.gpu ? kChecksShared : 1));
        std::vector<std::string> built;
        for (const auto& [id, contents] : run.to_build) built.push_back(id);
        lessons_.emplace(run.rubric, built, [this] { return explainers(); }, limits, run.request.jobs, run.work);
    }

    std::vector<Pass> passes() override
    {
        return {Pass{"lessons", "lessons", false, true, kLessonsAtOnce, [this](std::size_t k) {
                         slots_[k].seconds = lessons_->measure(run_->rung(k).id, slots_[k].lessons);
                     }}};
    }

    bool wanted(const Grading& run, std::size_t k) const override { return lessons_->wanted(run.g.rungs[k]); }

    void keep(Grading& run, std::size_t k) override
    {
        Slot& s = slots_[k];
        if (!s.seconds) return;
        RungResult& r = run.g.rungs[k];
        r.lessons = std::move(s.lessons);
        r.phases["lessons"] = *s.seconds;
        std::printf("  %-20s lessons: %s\n", r.id.c_str(), r.lessons.note.c_str());
        std::fflush(stdout);
    }

    void score(const Rubric& rubric, bool, RungResult& rung) const override { score_technique(rung, rubric); }

    void report(const RungResult& r, nlohmann::json& rung) const override
    {
        rung["lessons"] = {{"yours", r.lessons.yours}, {"reference", r.lessons.reference}, {"note", r.lessons.note}};
    }

    void read(const nlohmann::json& rung, RungResult& r) const override
    {
        if (!rung.contains("lessons")) return;
        const nlohmann::json& l = rung.at("lessons");
        r.lessons.yours = l.at("yours").get<std::map<std::string, double>>();
        r.lessons.reference = l.at("reference").get<std::map<std::string, double>>();
        r.lessons.note = l.at("note").get<std::string>();
    }

private:
    struct Slot {
        LessonResult lessons;
        std::optional<double> seconds;  // once measured
    };

    // The explain programs: this tree's without a GPU, the CPU backend's second build's with one.
    Explainers explainers()
    {
        Explainers where;
        if (!run_->gpu) {
            where.programs = run_->built.explainers;
            where.tree = grading_build_dir();
        } else if (!run_->cpu_build) {
            where.missing = "the CPU backend's build was not made";
        } else {
            double unused = 0;
            where.programs = run_->cpu_build->wait(where.missing, unused).explainers;
            where.tree = run_->cpu_build->tree();
        }
        return where;
    }

    Grading* run_ = nullptr;
    std::vector<Slot> slots_;
    std::optional<Lessons> lessons_;
};

}  // namespace

std::unique_ptr<Category> make_lessons_category()
{
    return std::make_unique<LessonsCategory>();
}

void score_technique(RungResult& rung, const Rubric& rubric)
{
    rung.parts.erase(std::remove_if(rung.parts.begin(), rung.parts.end(), [](const Part& p) { return p.name == "technique"; }),
                     rung.parts.end());
    const std::vector<const TechniqueCriterion*> criteria = rubric.technique_of(rung.id);
    if (criteria.empty()) return;
    Part part;
    part.name = "technique";
    for (const TechniqueCriterion* c : criteria) part.max += c->points;
    const LessonResult& l = rung.lessons;
    const bool visible_pass = rung.count("failed", 0) == 0 && rung.count("passed", 0) > 0;
    if (!rung.built) {
        part.note = rung.unrun;
    } else if (!l.measured()) {
        part.note = "not earned: the kernel's lesson numbers were not measured" + (l.note.empty() ? "" : " (" + l.note + ")");
    } else {
        if (!visible_pass) part.note = "not earned: technique counts once every visible case passes";
        for (const TechniqueCriterion* c : criteria) {
            const double yours = l.yours.at(c->metric);
            const auto reference = l.reference.find(c->metric);
            std::string bound, missing;
            bool met = true;
            for (const auto& [limit, most] : {std::pair{c->at_most, true}, std::pair{c->at_least, false}}) {
                if (limit < 0) continue;
                double value = limit;
                std::string shown = lesson_text(c->metric, limit);
                if (c->of_reference) {
                    if (reference == l.reference.end()) {
                        missing = " (the reference's number was not measured)";
                        met = false;
                        continue;
                    }
                    value = limit * reference->second;
                    shown = lesson_text(c->metric, value) + " (" + lesson_text("", limit) + " x the reference's " +
                            lesson_text(c->metric, reference->second) + ")";
                }
                // A hair of room for the last digit of a ratio: 1.0000001 wavefronts is 1.
                met = met && (most ? yours <= value * (1 + 1e-9) : yours >= value * (1 - 1e-9));
                bound += std::string(bound.empty() ? "" : " and ") + (most ? "at most " : "at least ") + shown;
            }
            const bool earned = met && visible_pass;
            if (earned) part.score += c->points;
            part.note += std::string(part.note.empty() ? "" : "\n") + (met ? "met: " : "missed: ") + c->says + " (" +
                         c->metric + " " + lesson_text(c->metric, yours) + ", " + bound + ")" + missing;
        }
    }
    part.score = std::round(part.score * 1e6) / 1e6;
    rung.parts.push_back(part);
}

}  // namespace lab::grading
