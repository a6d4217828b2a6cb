// TRUSTED SIDE. See plan.hpp.
#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <set>
#include <stdexcept>

#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/lesson_numbers.hpp"
#include "lab/plan.hpp"
#include "lab/random.hpp"
#include "lab/rung_tests.hpp"
#include "lab/shape.hpp"
#include "lab/speed_plan.hpp"
#include "lab/text.hpp"

namespace lab::grading {

namespace {

bool wanted(const std::vector<std::string>& groups, const std::string& group)
{
    return groups.empty() || std::find(groups.begin(), groups.end(), group) != groups.end();
}

void add_cases(const RungInfo& rung, const Catalogue& catalogue, const std::vector<std::string>& groups, bool hidden,
               double cpu_max_n, std::vector<PlannedCase>& out)
{
    const DeviceStatus& device = device_status();
    for (const Op op : kAllOps)
        for (const Case& c : catalogue.select(rung, op)) {
            if (!wanted(groups, c.group)) continue;
            PlannedCase p;
            p.c = c;
            p.hidden = hidden;
            p.plan = plan_case(rung, c, device.shape);
            if (const auto reason = kit_skip_reason(c.gpu_only, device_bytes(c), device.emulated, free_device_bytes))
                p.skip = *reason;
            // The CPU backend's time goes with the threads it runs as much as with the elements: 16384
            // rows of one column are 16384 blocks (many_rows: 30 s a case here, 257 s of rung 12's 269).
            else if (device.emulated &&
                     std::max(static_cast<double>(c.n), static_cast<double>(p.plan.grid) * p.plan.block) > cpu_max_n)
                p.skip = "graded on a GPU only: larger than the rubric's no_gpu.max_n (elements, or threads launched)";
            out.push_back(std::move(p));
        }
}

}  // namespace

std::vector<PlannedCase> plan_cases(const RungInfo& rung, const Rubric& rubric, std::uint64_t seed, std::uint64_t hidden_seed)
{
    const bool gpu = !device_status().emulated;
    std::vector<PlannedCase> cases;
    if (!rubric.assigned(rung.id)) return cases;
    // Fresh inputs every run: every case's seed comes from the run's, never from the file's.
    add_cases(rung, Catalogue::load(kit_path("tests/cases.json"), seed),
              gpu ? rubric.gpu_visible_groups : rubric.cpu_visible_groups, false, rubric.cpu_max_n, cases);
    add_cases(rung, Catalogue::load(kit_path("grader/hidden_cases.json"), hidden_seed),
              gpu ? rubric.gpu_hidden_groups : rubric.cpu_hidden_groups, true, rubric.cpu_max_n, cases);
    return cases;
}

std::uint64_t hidden_seed(const Rubric& rubric, std::uint64_t seed)
{
    if (rubric.hidden_seed_pinned) return rubric.hidden_seed;
    // The catalogue's bytes are what the students lack: with the grading's seed alone (every report
    // prints it) the hidden inputs cannot be drawn again. Not a cryptographic hash: the seed is no
    // key, and a kit whose hidden_cases.json is public has no hidden cases to keep.
    return lab::splitmix_mix(seed ^ lab::fnv1a(lab::read_file(kit_path("grader/hidden_cases.json"))));
}

std::vector<std::string> groups_left_out(const Rubric& rubric, bool gpu)
{
    std::vector<std::string> left_out;
    const auto listed = [&](const std::vector<std::string>& groups, const Catalogue& catalogue, const std::string& part,
                            const std::string& key) {
        if (groups.empty()) return;
        std::set<std::string> seen;
        for (const Case& c : catalogue.cases())
            if (seen.insert(c.group).second && !wanted(groups, c.group))
                left_out.push_back(part + " group " + c.group + " (not in the rubric's " + key + ")");
    };
    listed(gpu ? rubric.gpu_visible_groups : rubric.cpu_visible_groups, Catalogue::kit(), "visible",
           gpu ? "gpu.visible_groups" : "no_gpu.visible_groups");
    listed(gpu ? rubric.gpu_hidden_groups : rubric.cpu_hidden_groups, Catalogue::load(kit_path("grader/hidden_cases.json")),
           "hidden", gpu ? "gpu.hidden_groups" : "no_gpu.hidden_groups");
    return left_out;
}

void check_rubric_groups(const Rubric& rubric)
{
    std::set<std::string> visible, hidden;
    for (const Case& c : Catalogue::kit().cases()) visible.insert(c.group);
    const Catalogue hidden_catalogue = Catalogue::load(kit_path("grader/hidden_cases.json"));
    for (const Case& c : hidden_catalogue.cases()) hidden.insert(c.group);
    const auto check = [&](const std::vector<std::string>& groups, const std::set<std::string>& known,
                           const std::string& key, const std::string& file) {
        for (const auto& g : groups)
            if (!known.count(g))
                throw std::runtime_error(rubric.path + ": key " + key + ": no group \"" + g + "\" in " + file);
    };
    check(rubric.cpu_visible_groups, visible, "no_gpu.visible_groups", "tests/cases.json");
    check(rubric.gpu_visible_groups, visible, "gpu.visible_groups", "tests/cases.json");
    check(rubric.cpu_hidden_groups, hidden, "no_gpu.hidden_groups", "grader/hidden_cases.json");
    check(rubric.gpu_hidden_groups, hidden, "gpu.hidden_groups", "grader/hidden_cases.json");
}

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

void score_rung(RungResult& rung, const Rubric& rubric, bool gpu, const SpeedVerdict* verdict)
{
    const RungPoints& points = rubric.for_rung(rung.id);
    rung.parts.clear();
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
    if (rubric.speed_counts(rung.id)) {
        Part speed;
        speed.name = "speed";
        speed.max = points.speed;
        if (!gpu) {
            speed.graded = false;
            speed.note = "not graded here: no GPU (the rubric's no_gpu.speed = \"held\": these points stay in the maximum, "
                         "for a re-grade on a GPU)";
        } else if (!rung.built) {
            speed.note = rung.unrun;
        } else if (verdict) {
            speed.score = verdict->passed ? speed.max : 0;
            speed.note = verdict->note;
        } else {
            speed.graded = false;
            speed.note = "not graded here: not measured";
        }
        rung.parts.push_back(speed);
    }
    score_sanitizer(rung, rubric);
    score_technique(rung, rubric);
}

std::string lesson_text(const std::string& metric, double value)
{
    int digits = 2;
    for (const LessonNumber& number : lesson_numbers())
        if (metric == number.name) digits = number.digits;
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
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

// The late policy's verdict (rubric.hpp), from the time the submission was handed in: given by
// whoever received it (--submitted-at: an LMS's or a CI platform's record), never read from the
// submission's own files or commits, whose times its author sets.
LateResult late_verdict(const Rubric& rubric, const std::string& submitted_at, const std::string& student)
{
    LateResult late;
    late.policy = rubric.late.on;
    if (!submitted_at.empty()) late.submitted_at = format_time(parse_time(submitted_at));
    if (!rubric.late.on) {
        if (!submitted_at.empty()) late.note = "handed in at " + late.submitted_at + "; the rubric has no late policy";
        return late;
    }
    if (submitted_at.empty()) {
        late.due = format_time(rubric.late.due);
        late.note = "the rubric has a late policy (due " + late.due +
                    "), but no submission time was given (--submitted-at, or grade-all's roster): no penalty taken";
        return late;
    }
    const Lateness l = lateness(rubric.late, student, parse_time(submitted_at));
    late.due = format_time(l.due);
    late.extended = l.extended;
    late.days = l.days;
    late.fraction = l.fraction;
    std::ostringstream note;
    note << "handed in at " << late.submitted_at << ", due " << late.due << (l.extended ? " (an extension)" : "");
    if (l.days == 0) note << ": on time";
    else
        note << ": " << l.days << " day" << (l.days == 1 ? "" : "s") << " late, " << std::lround(l.fraction * 100)
             << "% of the points earned taken off";
    late.note = note.str();
    return late;
}

std::string replay_command(const RungInfo& rung, const Case& c, const LaunchPlan& plan)
{
    const std::string seed = lab::seed_text(c.seed);
    const std::string size = c.cols ? " --rows " + std::to_string(c.rows()) + " --cols " + std::to_string(c.cols)
                                    : " --n " + std::to_string(c.n);
    std::string command = "./lab replay " + rung.number + " --op " + std::string(name_of(c.op)) + " --input " +
                          std::string(name_of(c.input)) + size + " --block " + std::to_string(c.block) + " --seed " + seed;
    if (rung.shape->sizes_grid_to_device()) command += " --grid " + std::to_string(plan.grid);
    if (c.offset) command += " --offset " + std::to_string(c.offset);
    if (!c.variant.empty()) command += " --scheme " + c.variant;
    return command;
}

std::uint64_t parse_seed(const std::string& text)
{
    const auto seed = lab::parse_seed_text(text);
    if (!seed) throw std::runtime_error("--seed " + text + " is not a number (give it as the report does: 0x...)");
    return *seed;
}

std::vector<std::string> grading_orders()
{
    return lab::device_status().emulated ? lab::thread_orders() : std::vector<std::string>{};
}

}  // namespace lab::grading
