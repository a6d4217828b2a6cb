// TRUSTED SIDE. See rubric.hpp.
#include "rubric.hpp"

#include <set>
#include <stdexcept>
#include <toml++/toml.h>

#include "lab/registry.hpp"

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
};

}  // namespace

const RungPoints& Rubric::for_rung(const std::string& id) const
{
    const auto it = rungs.find(id);
    return it == rungs.end() ? points : it->second;
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
    r.only(doc, "", {"course", "points", "limits", "no_gpu", "gpu", "rungs", "sanitizer", "integrity"});
    Rubric rubric;
    rubric.path = path;
    if (const auto* course = r.table(doc, "course", "")) {
        r.only(*course, "course.", {"name"});
        r.text(*course, "name", "course.", rubric.course, {});
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
        std::string speed = "not_graded";
        r.text(*cpu, "speed", "no_gpu.", speed, {"not_graded", "zero"});
        rubric.speed_zero_without_gpu = speed == "zero";
        r.strings(*cpu, "visible_groups", "no_gpu.", rubric.cpu_visible_groups);
        r.strings(*cpu, "hidden_groups", "no_gpu.", rubric.cpu_hidden_groups);
    }
    if (const auto* gpu = r.table(doc, "gpu", "")) {
        r.only(*gpu, "gpu.", {"visible_groups", "hidden_groups"});
        r.strings(*gpu, "visible_groups", "gpu.", rubric.gpu_visible_groups);
        r.strings(*gpu, "hidden_groups", "gpu.", rubric.gpu_hidden_groups);
    }
    for (const auto& rung : Registry::kit().rungs()) rubric.rungs[rung.id] = rubric.points;
    if (const auto* rungs = r.table(doc, "rungs", "")) {
        for (const auto& [key, node] : *rungs) {
            const std::string name(key.str());
            const RungInfo* rung = Registry::kit().find(name);
            if (!rung || rung->id != name) r.fail(node, "rungs." + name, "no such rung (./lab list shows them)");
            if (!node.is_table()) r.fail(node, "rungs." + name, "must be a table");
            r.only(*node.as_table(), "rungs." + name + ".", {"visible", "hidden", "speed"});
            r.points(*node.as_table(), "rungs." + name + ".", rubric.rungs[name]);
        }
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
    if (const auto* t = r.table(doc, "integrity", "")) r.only(*t, "integrity.", {});
    return rubric;
}

}  // namespace lab::grading
