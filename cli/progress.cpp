// See progress.hpp.
#include "progress.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/json_text.hpp"
#include "lab/random.hpp"
#include "lab/todos.hpp"

namespace lab::cli {

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json(const std::string& path)
{
    const auto j = nlohmann::json::parse(lab::read_file(path), nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
}

// $LAB_STATE, else .lab at the kit's root.
std::string state_dir(const Kit& kit)
{
    const char* set = std::getenv("LAB_STATE");
    return set && *set ? set : kit.root + "/.lab";
}

std::string hints_file(const Kit& kit) { return state_dir(kit) + "/progress/hints.json"; }

// What ./lab generate wrote to the exercise (exercises/.generated), or "" when it has no record.
std::string generated_stamp(const Kit& kit, const RungInfo& rung)
{
    std::istringstream lines(lab::read_file(kit.root + "/exercises/.generated"));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string stamp, name;
        if (fields >> stamp >> name && name == rung.id + ".cu") return stamp;
    }
    return "";
}

}  // namespace

std::string exercise_file(const Kit& kit, const RungInfo& rung) { return kit.root + "/exercises/" + rung.id + ".cu"; }

std::string stamp_of(const std::string& path)
{
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(lab::fnv1a(lab::read_file(path))));
    return hex;
}

std::string progress_file(const Kit& kit, const RungInfo& rung) { return state_dir(kit) + "/progress/" + rung.id + ".json"; }

RungState rung_state(const Kit& kit, const RungInfo& rung)
{
    RungState state;
    const std::string file = exercise_file(kit, rung);
    if (!fs::exists(file)) {
        state.detail = "exercises/" + rung.id + ".cu is missing";
        return state;
    }
    const std::string stamp = stamp_of(file);
    if (stamp == generated_stamp(kit, rung)) return state;  // not started
    const auto todos = find_todos(file);
    if (!todos.empty()) {
        state.kind = RungState::Kind::todos;
        state.detail = std::to_string(todos.size()) + " TODO" + (todos.size() == 1 ? "" : "s") + " left (" +
                       todos.front().name + " at line " + std::to_string(todos.front().line) + ")";
        return state;
    }
    const auto record = read_json(progress_file(kit, rung));
    if (record.value("stamp", "") != stamp) {
        state.kind = RungState::Kind::unchecked;
        state.detail = record.empty() ? "not checked yet" : "changed since its last check";
        return state;
    }
    const std::string verdict = record.value("verdict", "");
    if (verdict == "correct") state.kind = RungState::Kind::correct;
    else if (verdict == "fast") state.kind = RungState::Kind::fast;
    else if (verdict == "slow") state.kind = RungState::Kind::slow;
    else {
        state.kind = RungState::Kind::failing;
        state.detail = record.value("first_failing", "");
    }
    // A correct kernel that missed the rung's lesson when ./lab check measured it: the first way.
    const auto gaps = record.find("lesson_gaps");
    if (state.done() && gaps != record.end() && gaps->is_array() && !gaps->empty() && gaps->front().is_string())
        state.detail = gaps->front().get<std::string>() + (gaps->size() > 1 ? " (and " + std::to_string(gaps->size() - 1) + " more)" : "");
    return state;
}

std::string describe(const RungState& state)
{
    switch (state.kind) {
    case RungState::Kind::not_started: return state.detail.empty() ? "not started" : state.detail;
    case RungState::Kind::todos: return "TODOs left: " + state.detail;
    case RungState::Kind::unchecked: return "finished, " + state.detail;
    case RungState::Kind::failing: return "failing: " + state.detail;
    case RungState::Kind::correct: return state.detail.empty() ? "correct" : "correct, but misses the lesson: " + state.detail;
    case RungState::Kind::fast: return "correct and fast enough";
    case RungState::Kind::slow: return "correct, not fast enough yet (./lab bench NN)";
    }
    return "";
}

const RungInfo* current_rung(const Kit& kit)
{
    for (const RungInfo& rung : Registry::kit().rungs())
        if (!rung_state(kit, rung).done()) return &rung;
    return nullptr;
}

HintLevels hint_levels(const Kit& kit)
{
    HintLevels levels;
    for (const std::string& file : {hints_file(kit), hints_record_path(kit.root)})
        if (const auto text = lab::try_read_file(file))
            if (const auto record = parse_hints_record(*text))
                for (const auto& [todo, level] : *record) levels[todo] = std::max(levels[todo], level);
    return levels;
}

bool set_hint_levels(const Kit& kit, const HintLevels& levels)
{
    const std::string text = hints_record_text(levels), tracked = hints_record_path(kit.root);
    const auto before = lab::try_read_file(tracked);
    const bool anew = !before || !parse_hints_record(*before);
    fs::create_directories(fs::path(hints_file(kit)).parent_path());
    for (const std::string& file : {hints_file(kit), tracked}) {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out) throw Failure("cannot write " + file);
    }
    return anew;
}

}  // namespace lab::cli
