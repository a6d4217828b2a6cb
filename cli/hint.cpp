// ./lab hint [NN | NN-todo] [--level N] [--all]: hints in levels, per TODO. Level 1 is the concept
// and 2 the shape (the registry, rungs.json "hints"); 3 is the code (exercises/.hints/NN_name.json,
// lab/hints.hpp). Each call goes one level further on the first TODO still open in the student's
// file, then on the next; a TODO's name picks that TODO, --level N that level, --all shows again
// every level already seen. Which levels were seen is recorded per TODO (progress.hpp).
#include <algorithm>
#include <iostream>
#include <sstream>

#include "kit.hpp"
#include "lab/hints.hpp"
#include "lab/todos.hpp"
#include "lab/usage_error.hpp"
#include "progress.hpp"

namespace lab::cli {

namespace {

const char* const kLevelNames[] = {"", "the concept", "the shape", "the code"};

// `text` wrapped at 100 columns, each line indented by `indent`.
std::string wrapped(const std::string& text, const std::string& indent)
{
    std::istringstream words(text);
    std::string out, line, word;
    while (words >> word) {
        if (!line.empty() && indent.size() + line.size() + 1 + word.size() > 100) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return line.empty() ? out : out + indent + line + "\n";
}

// The registry's hints for a TODO; for one that carries code, those of the TODOs it names, followed
// back to where each was first asked for.
void own_origins(const std::vector<HintCode>& all, const std::string& todo, std::vector<std::string>& out)
{
    const auto it = std::find_if(all.begin(), all.end(), [&](const HintCode& h) { return h.todo == todo; });
    if (it == all.end() || it->from.empty()) {
        if (std::find(out.begin(), out.end(), todo) == out.end()) out.push_back(todo);
        return;
    }
    for (const auto& origin : it->from) own_origins(all, origin, out);
}

class Hints {
public:
    explicit Hints(const Kit& kit)
    {
        for (const RungInfo& rung : Registry::kit().rungs()) {
            const std::string path = hint_code_path(kit.root, rung.id);
            auto todos = read_hint_code(path);
            for (auto& t : todos) rung_of_[t.todo] = &rung;
            code_[rung.id] = std::move(todos);
        }
    }

    const std::vector<HintCode>& todos(const RungInfo& rung) const { return code_.at(rung.id); }
    const RungInfo* rung_of(const std::string& todo) const
    {
        const auto it = rung_of_.find(todo);
        return it == rung_of_.end() ? nullptr : it->second;
    }
    const HintCode& todo(const std::string& name) const
    {
        for (const auto& h : code_.at(rung_of(name)->id))
            if (h.todo == name) return h;
        throw UsageError("no TODO " + name);
    }

    // Level `level` (1-3) of TODO `name`, as the student reads it.
    std::string text(const std::string& name, int level) const
    {
        const HintCode& h = todo(name);
        if (level == 3) {
            std::string code;
            std::istringstream lines(h.code);
            for (std::string line; std::getline(lines, line);) code += (line.empty() ? "" : "    " + line) + "\n";
            return "The reference solution's code (yours may differ and be right):\n" + code;
        }
        if (h.from.empty()) {
            const TodoHints* own = rung_of(name)->hints_for(name);
            return wrapped(level == 1 ? own->idea : own->shape, "  ");
        }
        std::vector<std::string> origins;
        for (const auto& o : h.from) own_origins(all(), o, origins);
        std::string out;
        if (level == 1) {
            std::string files;
            for (const auto& o : h.from) {
                const std::string file = "exercises/" + rung_of(o)->id + ".cu";
                if (files.find(file) == std::string::npos) files += (files.empty() ? "" : " and ") + file;
            }
            out += wrapped("This TODO holds code you have written before: copy yours over from " + files +
                               " and make the change the TODO names, if it names one. What that code does:",
                           "  ");
        }
        for (const auto& o : origins) {
            const TodoHints* own = rung_of(o)->hints_for(o);
            if (own) out += wrapped(o + ": " + (level == 1 ? own->idea : own->shape), "  ");
        }
        return out;
    }

private:
    std::vector<HintCode> all() const
    {
        std::vector<HintCode> every;
        for (const auto& [id, todos] : code_) every.insert(every.end(), todos.begin(), todos.end());
        return every;
    }

    std::map<std::string, std::vector<HintCode>> code_;  // by rung id, in the exercise's order
    std::map<std::string, const RungInfo*> rung_of_;
};

// The TODOs of the rung still open in the student's file, in its order (only those the kit knows).
std::vector<std::string> open_todos(const Kit& kit, const RungInfo& rung, const Hints& hints)
{
    std::vector<std::string> open;
    const std::string file = exercise_file(kit, rung);
    try {
        for (const auto& t : find_todos(file))
            if (hints.rung_of(t.name) == &rung) open.push_back(t.name);
    } catch (const UsageError&) {
        // No exercise file: nothing is open.
    }
    return open;
}

}  // namespace

int hint(const Kit& kit, const std::string& key, int level, bool all)
{
    if (level != 0 && (level < 1 || level > kHintLevels))
        throw UsageError("--level takes 1 (the concept), 2 (the shape) or 3 (the code), not " + std::to_string(level));
    const Hints hints(kit);
    const RungInfo* rung = nullptr;
    std::string target;  // the TODO asked for by name
    if (key.empty()) {
        rung = current_rung(kit);
        if (!rung) {
            say("Every rung is done: no hints needed. ./lab hint NN shows a rung's anyway.");
            return 0;
        }
    } else if (const RungInfo* named = Registry::kit().find(key)) {
        rung = named;
    } else if ((rung = hints.rung_of(key))) {
        target = key;
    } else {
        Registry::kit().get(key);  // throws, naming the rungs
    }
    HintLevels seen = hint_levels(kit);
    std::cout << rung->id << ": " << rung->title << "\n";

    if (all) {
        bool any = false;
        for (const auto& h : hints.todos(*rung)) {
            const int deepest = seen.count(h.todo) ? seen.at(h.todo) : 0;
            for (int l = 1; l <= deepest; ++l) {
                std::cout << "TODO " << h.todo << ", hint " << l << " of " << kHintLevels << " (" << kLevelNames[l] << "):\n"
                          << hints.text(h.todo, l);
                any = true;
            }
        }
        if (!any) std::cout << "No hint of this rung shown yet: ./lab hint " << rung->number << " shows the first.\n";
        return 0;
    }

    const auto open = open_todos(kit, *rung, hints);
    if (target.empty() && open.empty()) {
        // No TODO line is left (the student deleted them all): which one to help with is the
        // student's to say, and nothing is shown (nor recorded) until then.
        std::cout << "No TODO line is left in exercises/" << rung->id << ".cu, so there is no telling which one you are "
                  << "on. Name it:";
        for (const auto& h : hints.todos(*rung)) std::cout << " ./lab hint " << h.todo << ",";
        std::cout << " or see them all: ./lab hint " << rung->number << " --all. A failing case of ./lab check "
                  << rung->number << " names the TODO it points to.\n";
        return 0;
    }
    if (target.empty()) {
        // The first open TODO not yet seen to the end; with --level, the first open one.
        for (const auto& t : open)
            if (level != 0 || !seen.count(t) || seen.at(t) < kHintLevels) {
                target = t;
                break;
            }
        if (target.empty()) {
            std::cout << "Every hint of its open TODOs is shown already (./lab hint " << rung->number << " --all shows them again; ./lab hint "
                      << open.front() << " --level N one of them). More in handouts/" << rung->id << ".md\n";
            return 0;
        }
    }
    const int before = seen.count(target) ? seen.at(target) : 0;
    const int shown = level != 0 ? level : std::min(before + 1, kHintLevels);
    const HintCode& todo = hints.todo(target);
    std::cout << "TODO " << target << " (" << todo.size << "), hint " << shown << " of " << kHintLevels << " ("
              << kLevelNames[shown] << "):\n"
              << hints.text(target, shown);
    bool new_record = false;
    if (shown > before) {
        seen[target] = shown;
        new_record = set_hint_levels(kit, seen);
    }
    if (shown < kHintLevels)
        std::cout << "Next: ./lab hint " << target << " for hint " << shown + 1 << " (" << kLevelNames[shown + 1] << ").\n";
    else if (const auto next = std::find(open.begin(), open.end(), target); next != open.end() && next + 1 != open.end())
        std::cout << "That is every hint for TODO " << target << ". The next open TODO: ./lab hint " << *(next + 1) << "\n";
    else
        std::cout << "That is every hint for TODO " << target << ". More in handouts/" << rung->id << ".md\n";
    if (new_record)
        std::cout << "(./lab hint records the hints you have seen in exercises/hints_used.json: commit it with your work; "
                     "your instructor sees it.)\n";
    return 0;
}

}  // namespace lab::cli
