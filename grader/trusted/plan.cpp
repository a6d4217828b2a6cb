// TRUSTED SIDE. See plan.hpp.
#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
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

std::vector<PlannedCase> plan_visible_as_on_a_gpu(const RungInfo& rung, const Rubric& rubric, std::uint64_t seed)
{
    std::vector<PlannedCase> cases;
    if (!rubric.assigned(rung.id)) return cases;
    // The same catalogue and seed as plan_cases: a case both plan has the same inputs in both.
    add_cases(rung, Catalogue::load(kit_path("tests/cases.json"), seed), rubric.gpu_visible_groups, false,
              std::numeric_limits<double>::infinity(), cases);
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

std::string lesson_text(const std::string& metric, double value)
{
    int digits = 2;
    for (const LessonNumber& number : lesson_numbers())
        if (metric == number.name) digits = number.digits;
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
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
