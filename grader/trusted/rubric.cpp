// TRUSTED SIDE. See rubric.hpp.
#include "rubric.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <toml++/toml.h>

#include "lab/lesson_numbers.hpp"
#include "lab/registry.hpp"
#include "lab/speed_plan.hpp"
#include "lab/text.hpp"

namespace lab::grading {

namespace {

struct Reader {
    std::string path;

    [[noreturn]] void fail(const toml::node& node, const std::string& key, const std::string& what) const
    {
        throw std::runtime_error(path + ":" + std::to_string(node.source().begin.line) + ": key " + key + ": " + what);
    }

    // Every key of `table` must be one of `known`.
    void only(const toml::table& table, const std::string& where, const std::set<std::string>& known) const
    {
        for (const auto& [key, node] : table)
            if (!known.count(std::string(key.str()))) {
                std::string list;
                for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
                fail(node, where + std::string(key.str()),
                     "not a key the grader knows" + (list.empty() ? std::string(" (this table takes none yet)")
                                                                  : " (it knows: " + list + ")"));
            }
    }

    const toml::table* table(const toml::table& parent, const std::string& key, const std::string& where) const
    {
        const toml::node* node = parent.get(key);
        if (!node) return nullptr;
        if (!node->is_table()) fail(*node, where + key, "must be a table");
        return node->as_table();
    }

    void number(const toml::table& t, const std::string& key, const std::string& where, double& out, double min) const
    {
        const toml::node* node = t.get(key);
        if (!node) return;
        if (const auto v = node->value<double>(); v && (node->is_floating_point() || node->is_integer())) {
            if (*v < min) fail(*node, where + key, "must be at least " + std::to_string(min));
            out = *v;
            return;
        }
        fail(*node, where + key, "must be a number");
    }

    void text(const toml::table& t, const std::string& key, const std::string& where, std::string& out,
              const std::set<std::string>& allowed) const
    {
        const toml::node* node = t.get(key);
        if (!node) return;
        if (!node->is_string()) fail(*node, where + key, "must be a string");
        out = *node->value<std::string>();
        if (!allowed.empty() && !allowed.count(out)) {
            std::string list;
            for (const auto& a : allowed) list += (list.empty() ? "\"" : ", \"") + a + "\"";
            fail(*node, where + key, "must be one of " + list + ", not \"" + out + "\"");
        }
    }

    void strings(const toml::table& t, const std::string& key, const std::string& where,
                 std::vector<std::string>& out) const
    {
        const toml::node* node = t.get(key);
        if (!node) return;
        if (!node->is_array()) fail(*node, where + key, "must be a list of names");
        out.clear();
        for (const auto& item : *node->as_array()) {
            if (!item.is_string()) fail(item, where + key, "must be a list of names (strings)");
            out.push_back(*item.value<std::string>());
        }
    }

    void points(const toml::table& t, const std::string& where, RungPoints& p) const
    {
        number(t, "visible", where, p.visible, 0);
        number(t, "hidden", where, p.hidden, 0);
        number(t, "speed", where, p.speed, 0);
    }

    // A rung's own table ([rungs.NN_name]): its points, and 0 for a category it leaves out.
    void rung_points(const toml::table& t, const std::string& where, RungPoints& p) const
    {
        points(t, where, p);
        if (t.get("sanitizer")) {
            number(t, "sanitizer", where, p.sanitizer, 0);
            p.sanitizer_on = p.sanitizer > 0;
        }
        if (const toml::node* node = t.get("technique")) {
            double technique = -1;
            number(t, "technique", where, technique, 0);
            if (technique != 0)
                fail(*node, where + "technique",
                     "only 0 here (no technique points for this rung): the points of technique are each "
                     "[[lessons.technique]] criterion's");
            p.technique_on = false;
        }
    }
};

}  // namespace

Lateness lateness(const LatePolicy& policy, const std::string& student, long long submitted)
{
    Lateness l;
    const auto extension = policy.extensions.find(student);
    l.extended = extension != policy.extensions.end();
    l.due = l.extended ? extension->second : policy.due;
    const long long past = submitted - l.due - static_cast<long long>(policy.grace_minutes * 60);
    if (past > 0) l.days = static_cast<int>((past + 86399) / 86400);
    l.fraction = std::min(policy.most, l.days * policy.per_day);
    return l;
}

const RungPoints& Rubric::for_rung(const std::string& id) const
{
    const auto it = rungs.find(id);
    return it == rungs.end() ? points : it->second;
}

bool Rubric::sanitizer_on(const std::string& id) const
{
    const RungPoints& p = for_rung(id);
    return p.assigned && p.sanitizer_on && (p.sanitizer > 0 || sanitizer.penalty > 0);
}

bool Rubric::speed_counts(const std::string& id) const
{
    return for_rung(id).speed > 0 && speed_without_gpu != NotGradedHere::excluded &&
           !lab::SpeedPlan::kit().cases_of(id).empty();
}

std::vector<const TechniqueCriterion*> Rubric::technique_of(const std::string& id) const
{
    std::vector<const TechniqueCriterion*> criteria;
    if (!for_rung(id).technique_on || !for_rung(id).assigned) return criteria;
    for (const TechniqueCriterion& c : lessons.technique)
        if (c.rung == id) criteria.push_back(&c);
    return criteria;
}

double Rubric::rung_max(const std::string& id) const
{
    const RungPoints& p = for_rung(id);
    if (!p.assigned) return 0;
    double total = p.visible + p.hidden + (speed_counts(id) ? p.speed : 0) + (sanitizer_on(id) ? p.sanitizer : 0);
    for (const TechniqueCriterion* c : technique_of(id)) total += c->points;
    return total;
}

bool Rubric::assigned(const std::string& id) const { return rung_max(id) > 0 || sanitizer_on(id); }

double Rubric::case_seconds_on(bool gpu) const { return gpu ? std::min(case_seconds, gpu_case_seconds) : case_seconds; }

double Rubric::max() const
{
    double total = 0;
    for (const RungInfo& rung : Registry::kit().rungs()) total += rung_max(rung.id);
    return total;
}

Rubric load_rubric(const std::string& path)
{
    toml::table doc;
    try {
        doc = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
        throw std::runtime_error(path + ":" + std::to_string(e.source().begin.line) + ":" +
                                 std::to_string(e.source().begin.column) + ": not valid TOML: " +
                                 std::string(e.description()));
    }
    const Reader r{path};
    r.only(doc, "", {"course", "points", "limits", "no_gpu", "gpu", "hidden", "rungs", "sanitizer", "lessons", "integrity", "late", "hints"});
    Rubric rubric;
    rubric.path = path;
    std::set<std::string> assigned;  // [course].rungs; empty: every rung
    if (const auto* course = r.table(doc, "course", "")) {
        r.only(*course, "course.", {"name", "rungs"});
        r.text(*course, "name", "course.", rubric.course, {});
        std::vector<std::string> listed;
        r.strings(*course, "rungs", "course.", listed);
        for (const std::string& name : listed) {
            const RungInfo* rung = Registry::kit().find(name);
            if (!rung) r.fail(*course->get("rungs"), "course.rungs", "no rung \"" + name + "\" (./lab list shows them)");
            if (!assigned.insert(rung->id).second)
                r.fail(*course->get("rungs"), "course.rungs", rung->id + " is listed twice");
        }
        if (course->get("rungs") && assigned.empty())
            r.fail(*course->get("rungs"), "course.rungs", "assigns no rung: list at least one, or leave the key out for every rung");
    }
    if (const auto* points = r.table(doc, "points", "")) {
        r.only(*points, "points.", {"visible", "hidden", "speed", "partial"});
        r.points(*points, "points.", rubric.points);
        std::string partial = "proportional";
        r.text(*points, "partial", "points.", partial, {"proportional", "all_or_nothing"});
        rubric.proportional = partial == "proportional";
    }
    if (const auto* limits = r.table(doc, "limits", "")) {
        r.only(*limits, "limits.", {"case_seconds", "rung_seconds", "cpu_seconds", "memory_mib", "processes"});
        r.number(*limits, "case_seconds", "limits.", rubric.case_seconds, 1);
        r.number(*limits, "rung_seconds", "limits.", rubric.rung_seconds, 1);
        r.number(*limits, "cpu_seconds", "limits.", rubric.cpu_seconds, 1);
        r.number(*limits, "memory_mib", "limits.", rubric.memory_mib, 64);
        r.number(*limits, "processes", "limits.", rubric.processes, 16);
    }
    if (const auto* cpu = r.table(doc, "no_gpu", "")) {
        r.only(*cpu, "no_gpu.", {"speed", "visible_groups", "hidden_groups", "max_n"});
        r.number(*cpu, "max_n", "no_gpu.", rubric.cpu_max_n, 1);
        if (const toml::node* node = cpu->get("speed"); node && node->is_string() &&
                                                        (*node->value<std::string>() == "not_graded" || *node->value<std::string>() == "zero"))
            r.fail(*node, "no_gpu.speed",
                   "\"" + *node->value<std::string>() + "\" is no longer a choice, since the maximum is the same on every "
                   "machine: \"held\" (speed stays in the maximum; without a GPU it is not graded here, for a re-grade on "
                   "one) or \"excluded\" (speed leaves the maximum on every machine)");
        std::string speed = "held";
        r.text(*cpu, "speed", "no_gpu.", speed, {"held", "excluded"});
        rubric.speed_without_gpu = speed == "excluded" ? NotGradedHere::excluded : NotGradedHere::held;
        r.strings(*cpu, "visible_groups", "no_gpu.", rubric.cpu_visible_groups);
        r.strings(*cpu, "hidden_groups", "no_gpu.", rubric.cpu_hidden_groups);
    }
    if (const auto* gpu = r.table(doc, "gpu", "")) {
        r.only(*gpu, "gpu.", {"case_seconds", "visible_groups", "hidden_groups"});
        r.number(*gpu, "case_seconds", "gpu.", rubric.gpu_case_seconds, 1);
        r.strings(*gpu, "visible_groups", "gpu.", rubric.gpu_visible_groups);
        r.strings(*gpu, "hidden_groups", "gpu.", rubric.gpu_hidden_groups);
    }
    if (const auto* t = r.table(doc, "sanitizer", "")) {
        SanitizerRules& s = rubric.sanitizer;
        r.only(*t, "sanitizer.", {"points", "penalty", "tools", "thread_orders", "max_n", "cases"});
        r.number(*t, "points", "sanitizer.", s.points, 0);
        r.number(*t, "penalty", "sanitizer.", s.penalty, 0);
        r.number(*t, "max_n", "sanitizer.", s.max_n, 1);
        r.number(*t, "cases", "sanitizer.", s.cases, 1);
        r.strings(*t, "tools", "sanitizer.", s.tools);
        for (const std::string& tool : s.tools)
            if (tool != "memcheck" && tool != "racecheck" && tool != "synccheck" && tool != "initcheck")
                r.fail(*t->get("tools"), "sanitizer.tools",
                       "\"" + tool + "\" is not a compute-sanitizer tool (memcheck, racecheck, synccheck, initcheck)");
        if (const toml::node* node = t->get("thread_orders")) {
            if (!node->is_boolean()) r.fail(*node, "sanitizer.thread_orders", "must be true or false");
            s.thread_orders = *node->value<bool>();
        }
    }
    if (const auto* t = r.table(doc, "hidden", "")) {
        r.only(*t, "hidden.", {"details", "seed"});
        if (const toml::node* node = t->get("details")) {
            if (!node->is_boolean()) r.fail(*node, "hidden.details", "must be true or false");
            rubric.hidden_details = *node->value<bool>();
        }
        if (const toml::node* node = t->get("seed")) {
            std::optional<std::uint64_t> seed;
            if (node->is_integer() && *node->value<std::int64_t>() >= 0) seed = static_cast<std::uint64_t>(*node->value<std::int64_t>());
            if (node->is_string()) seed = lab::parse_seed_text(*node->value<std::string>());
            if (!seed) r.fail(*node, "hidden.seed", "must be a seed, as a report gives one (\"0x...\") or a whole number");
            rubric.hidden_seed_pinned = true;
            rubric.hidden_seed = *seed;
        }
    }
    // Every rung's points: [points], the [sanitizer] table's, then the rung's own table.
    for (const auto& rung : Registry::kit().rungs()) {
        RungPoints& p = rubric.rungs[rung.id];
        p = rubric.points;
        p.sanitizer = rubric.sanitizer.points;
        p.assigned = assigned.empty() || assigned.count(rung.id);
    }
    if (const auto* rungs = r.table(doc, "rungs", "")) {
        for (const auto& [key, node] : *rungs) {
            const std::string name(key.str());
            const RungInfo* rung = Registry::kit().find(name);
            if (!rung || rung->id != name) r.fail(node, "rungs." + name, "no such rung (./lab list shows them)");
            if (!node.is_table()) r.fail(node, "rungs." + name, "must be a table");
            if (!rubric.rungs[name].assigned)
                r.fail(node, "rungs." + name, "gives points to a rung that course.rungs does not assign");
            r.only(*node.as_table(), "rungs." + name + ".", {"visible", "hidden", "speed", "sanitizer", "technique"});
            r.rung_points(*node.as_table(), "rungs." + name + ".", rubric.rungs[name]);
        }
    }
    if (const auto* t = r.table(doc, "lessons", "")) {
        LessonRules& l = rubric.lessons;
        r.only(*t, "lessons.", {"measure", "cpu_seconds", "technique"});
        if (const toml::node* node = t->get("measure")) {
            if (!node->is_boolean()) r.fail(*node, "lessons.measure", "must be true or false");
            l.measure = *node->value<bool>();
        }
        r.number(*t, "cpu_seconds", "lessons.", l.cpu_seconds, 1);
        if (const toml::node* node = t->get("technique")) {
            if (!node->is_array_of_tables())
                r.fail(*node, "lessons.technique", "must be a list of criteria ([[lessons.technique]] tables)");
            std::set<std::string> metrics;
            for (const lab::LessonNumber& number : lab::lesson_numbers()) metrics.insert(number.name);
            for (const auto& item : *node->as_array()) {
                const toml::table& c = *item.as_table();
                const std::string where = "lessons.technique.";
                r.only(c, where, {"rung", "metric", "at_most", "at_least", "of_reference", "points", "says"});
                TechniqueCriterion criterion;
                for (const char* key : {"rung", "metric"})
                    if (!c.get(key)) r.fail(c, where + key, "is missing: each criterion names a rung and a metric");
                r.text(c, "rung", where, criterion.rung, {});
                const RungInfo* rung = Registry::kit().find(criterion.rung);
                if (!rung || rung->id != criterion.rung) r.fail(*c.get("rung"), where + "rung", "no such rung (./lab list shows them)");
                if (!rubric.rungs[criterion.rung].assigned)
                    r.fail(*c.get("rung"), where + "rung", criterion.rung + " is not a rung course.rungs assigns");
                r.text(c, "metric", where, criterion.metric, metrics);
                r.number(c, "at_most", where, criterion.at_most, 0);
                r.number(c, "at_least", where, criterion.at_least, 0);
                if (!c.get("at_most") && !c.get("at_least")) r.fail(c, where + "at_most", "is missing: give at_most, at_least or both");
                if (const toml::node* reference = c.get("of_reference")) {
                    if (!reference->is_boolean()) r.fail(*reference, where + "of_reference", "must be true or false");
                    criterion.of_reference = *reference->value<bool>();
                }
                r.number(c, "points", where, criterion.points, 0);
                r.text(c, "says", where, criterion.says, {});
                if (criterion.says.empty()) criterion.says = criterion.metric;
                l.technique.push_back(std::move(criterion));
            }
            if (!l.measure) r.fail(*node, "lessons.technique", "grades what lessons.measure = false leaves unmeasured");
        }
    }
    if (const auto* t = r.table(doc, "hints", "")) {
        r.only(*t, "hints.", {"level_1", "level_2", "level_3"});
        r.number(*t, "level_1", "hints.", rubric.hints.level_1, 0);
        r.number(*t, "level_2", "hints.", rubric.hints.level_2, 0);
        r.number(*t, "level_3", "hints.", rubric.hints.level_3, 0);
    }
    if (const auto* t = r.table(doc, "late", "")) {
        LatePolicy& late = rubric.late;
        r.only(*t, "late.", {"due", "grace_minutes", "penalty_per_day", "most_penalty", "extensions"});
        const toml::node* due = t->get("due");
        if (!due) r.fail(*t, "late.due", "is missing: when the work is due (an ISO 8601 time such as \"2026-12-01T23:59:00Z\")");
        std::string text;
        if (due->is_date_time()) {
            std::ostringstream written;
            written << *due->as_date_time();
            text = written.str();
        } else if (due->is_string()) {
            text = *due->value<std::string>();
        } else {
            r.fail(*due, "late.due", "must be a time (\"2026-12-01T23:59:00Z\")");
        }
        try {
            late.due = parse_time(text);
        } catch (const std::exception& e) {
            r.fail(*due, "late.due", e.what());
        }
        r.number(*t, "grace_minutes", "late.", late.grace_minutes, 0);
        r.number(*t, "penalty_per_day", "late.", late.per_day, 0);
        r.number(*t, "most_penalty", "late.", late.most, 0);
        if (late.per_day > 1) r.fail(*t->get("penalty_per_day"), "late.penalty_per_day", "is a fraction of the points: at most 1");
        if (late.most > 1) r.fail(*t->get("most_penalty"), "late.most_penalty", "is a fraction of the points: at most 1");
        std::string extensions;
        r.text(*t, "extensions", "late.", extensions, {});
        if (!extensions.empty()) {
            const std::filesystem::path file = std::filesystem::path(path).parent_path() / extensions;
            std::ifstream in(file);
            if (!in) r.fail(*t->get("extensions"), "late.extensions", "cannot read " + file.string());
            int line_number = 0;
            for (std::string line; std::getline(in, line);) {
                ++line_number;
                if (!line.empty() && line.back() == '\r') line.pop_back();
                if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#') continue;
                const std::string where = file.string() + ":" + std::to_string(line_number) + ": ";
                std::vector<std::string> fields;
                try {
                    fields = lab::csv_fields(line);
                } catch (const std::exception& e) {
                    throw std::runtime_error(where + e.what());
                }
                if (fields.size() == 2 && fields[0] == "student" && fields[1] == "due") continue;
                if (fields.size() != 2) throw std::runtime_error(where + "expected student,due (an ISO 8601 time)");
                if (late.extensions.count(fields[0])) throw std::runtime_error(where + fields[0] + " has an extension already");
                try {
                    late.extensions[fields[0]] = parse_time(fields[1]);
                } catch (const std::exception& e) {
                    throw std::runtime_error(where + e.what());
                }
            }
        }
        late.on = true;
    }
    if (const auto* t = r.table(doc, "integrity", "")) r.only(*t, "integrity.", {});
    return rubric;
}

}  // namespace lab::grading
