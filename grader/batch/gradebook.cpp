// INSTRUCTOR SIDE (grade-all). See gradebook.hpp: the gradebook, the Markdown class summary, the
// history of a student's gradings, and the class figures both summaries use (class_figures.hpp);
// the HTML page is class_page.cpp.
#include "gradebook.hpp"

#include "class_figures.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "lab/exit_status.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "roster.hpp"

namespace lab::batch {

using json = nlohmann::json;

namespace {

const std::vector<std::string> kCategories = {"visible", "hidden", "speed", "sanitizer"};

// A category's cell of the gradebook: the points its parts earned, or nothing where none of them
// was graded on the grading's machine (speed without a GPU): held, not lost (the `held` column has
// them).
std::string category_cell(const json& grade, const std::string& name)
{
    double sum = 0;
    bool any = false, graded = false;
    for (const json& r : grade.at("rungs"))
        for (const json& p : r.at("parts"))
            if (p.at("name") == name) {
                sum += p.at("score").get<double>();
                any = true, graded = graded || p.value("graded", true);
            }
    return any && !graded ? std::string() : summary::points(sum);
}

}  // namespace

namespace summary {

std::string points(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

std::string percent(double part, double whole)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
    return text;
}

// The rungs, in the order the first graded report lists them.
std::vector<std::string> rung_ids(const std::vector<Outcome>& outcomes)
{
    for (const Outcome& o : outcomes)
        if (o.graded) {
            std::vector<std::string> ids;
            for (const json& r : o.grade.at("rungs")) ids.push_back(r.at("id").get<std::string>());
            return ids;
        }
    return {};
}


// A rung passes when it ran and no case it ran failed.
bool rung_passes(const json& rung)
{
    if (!rung.at("built").get<bool>()) return false;
    int passed = 0;
    for (const json& c : rung.at("cases")) {
        if (c.at("status") == "failed") return false;
        passed += c.at("status") == "passed";
    }
    return passed > 0;
}



// The causes one failed case points to: the patterns the grader's diagnosis recognised in it, or
// else the kind of failure its message names.
static std::vector<std::string> causes_of(const json& c)
{
    if (c.contains("causes") && !c.at("causes").empty()) return c.at("causes").get<std::vector<std::string>>();
    const std::string message = c.at("message").get<std::string>();
    // A launch the CPU backend stopped at its time limit, or a runner killed for its CPU time, is an
    // endless loop as much as one the judge stopped (judge/checker.cpp's hang rule counts them alike).
    // The CPU time by describe_exit's words (judge/runner_process.cpp), not strsignal's, which follow
    // the locale.
    if (message.find("stopped after") != std::string::npos || message.find("not run: ") != std::string::npos ||
        message.find("the runner was stopped") != std::string::npos ||
        message.find(lab::exit_status::kLaunchTimeoutName) != std::string::npos ||
        message.find("it used more CPU time than the rubric allows") != std::string::npos)
        return {"stopped at a limit (time, CPU time, memory or processes)"};
    if (message.find("the kernel failed") != std::string::npos) return {"the kernel failed (a CUDA error, an illegal address)"};
    if (message.find("wrote outside its output") != std::string::npos) return {"wrote outside its output"};
    if (message.find("runner was killed") != std::string::npos || message.find("handed back no output") != std::string::npos)
        return {"the runner crashed"};
    return {"wrong results, in no pattern the kit knows"};
}

std::string graded_count(const std::vector<Outcome>& outcomes, const ClassFigures& f)
{
    const auto none = std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.no_submission; });
    return std::to_string(f.graded.size()) + " of " + std::to_string(outcomes.size() - static_cast<std::size_t>(none)) +
           " submissions graded" +
           (none ? " (and " + std::to_string(none) + " student" + (none == 1 ? "" : "s") + " of the LMS roster handed nothing in)"
                 : std::string());
}

ClassFigures figures(const std::vector<Outcome>& outcomes)
{
    ClassFigures f;
    f.rungs = rung_ids(outcomes);
    std::vector<double> totals;
    std::map<std::string, std::set<std::string>> failed_by;
    for (const Outcome& o : outcomes) {
        if (!o.graded) {
            f.not_graded.push_back(&o);
            continue;
        }
        f.graded.push_back(&o);
        const double score = o.grade.at("score").get<double>(), max = o.grade.at("max").get<double>();
        f.max = std::max(f.max, max);
        totals.push_back(score);
        const int bin = max > 0 ? std::clamp(static_cast<int>(10.0 * score / max), 0, 9) : 0;
        ++f.histogram[bin];
        for (const json& r : o.grade.at("rungs")) {
            ClassFigures::Rung& rung = f.per_rung[r.at("id")];
            rung.max = std::max(rung.max, r.at("max").get<double>());
            if (r.at("submitted").get<bool>()) {
                ++rung.submitted;
                rung.points += r.at("score").get<double>();
            }
            rung.passed += rung_passes(r);
            for (const json& p : r.at("parts"))
                if (p.at("name") == "speed" && p.at("graded").get<bool>() && p.at("max").get<double>() > 0) {
                    ++rung.timed;
                    rung.fast += p.at("score").get<double>() >= p.at("max").get<double>();
                }
            const std::string id = r.at("id").get<std::string>();
            if (r.at("submitted").get<bool>() && !r.at("unrun").get<std::string>().empty()) {
                ClassFigures::Cause& cause = f.causes[id][r.at("unrun").get<std::string>()];
                cause.students.insert(o.id);
                if (cause.example.empty()) cause.example = "student " + o.id;
            }
            for (const json& c : r.at("cases"))
                if (c.at("status") == "failed") {
                    const std::string name = (c.at("hidden").get<bool>() ? "hidden " : "") + c.at("op").get<std::string>() + " " +
                                             c.at("name").get<std::string>();
                    failed_by[id + ": " + name].insert(o.id);
                    for (const std::string& key : causes_of(c)) {
                        ClassFigures::Cause& cause = f.causes[id][key];
                        cause.students.insert(o.id);
                        if (cause.example.empty()) {
                            cause.example = o.id + ", " + name;
                            cause.replay = c.at("replay").get<std::string>();
                        }
                    }
                }
        }
    }
    if (!totals.empty()) {
        std::sort(totals.begin(), totals.end());
        for (double t : totals) f.mean += t / static_cast<double>(totals.size());
        const std::size_t n = totals.size();
        f.median = n % 2 ? totals[n / 2] : (totals[n / 2 - 1] + totals[n / 2]) / 2;
        f.low = totals.front();
        f.high = totals.back();
    }
    for (const auto& [key, who] : failed_by) f.failing.emplace_back(key, static_cast<int>(who.size()));
    std::stable_sort(f.failing.begin(), f.failing.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (f.failing.size() > 10) f.failing.resize(10);
    return f;
}

// The rung table's heading and rows, for the Markdown and the HTML summary alike. Each rate says
// what it is out of: those who handed the rung in, or the whole class.
const std::vector<std::string> kRungColumns = {"Rung", "Submitted", "Correct", "Fast enough", "Correct, of those who submitted",
                                               "Correct, of the class", "Mean points, of those who submitted"};
const char* const kRungNote =
    "Correct: it ran and no case failed. Fast enough: every speed point, where speed was timed (a GPU); "
    "\"not timed\" without one. The class: every student graded.";

std::vector<std::vector<std::string>> rung_rows(const ClassFigures& f)
{
    std::vector<std::vector<std::string>> rows;
    for (const std::string& id : f.rungs) {
        const ClassFigures::Rung& r = f.per_rung.at(id);
        rows.push_back({id, std::to_string(r.submitted), std::to_string(r.passed),
                        r.timed == 0 ? "not timed" : std::to_string(r.fast) + " of " + std::to_string(r.timed) + " timed",
                        r.submitted > 0 ? percent(r.passed, r.submitted) : "-",
                        percent(r.passed, static_cast<double>(f.graded.size())),
                        r.submitted > 0 ? points(r.points / r.submitted) + " / " + points(r.max) : "-"});
    }
    return rows;
}

// The rows of "What the class got wrong": rung, students, what it points to (the rung's own words
// from rungs.json's "diagnoses" where it has them: the TODO), an example and its replay. Most
// students first within a rung.
std::vector<std::vector<std::string>> cause_rows(const ClassFigures& f)
{
    std::vector<std::vector<std::string>> rows;
    for (const std::string& id : f.rungs) {
        if (!f.causes.count(id)) continue;
        std::vector<std::pair<std::string, const ClassFigures::Cause*>> sorted;
        for (const auto& [key, cause] : f.causes.at(id)) sorted.emplace_back(key, &cause);
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto& a, const auto& b) { return a.second->students.size() > b.second->students.size(); });
        const lab::RungInfo* rung = lab::Registry::kit().find(id);
        for (const auto& [key, cause] : sorted) {
            std::string what = key;
            if (rung && rung->diagnoses.count(key)) what += ": " + rung->diagnoses.at(key);
            else if (const std::string summary = lab::diagnosis_summary(key); !summary.empty()) what += ": " + summary;
            rows.push_back({id, std::to_string(cause->students.size()), what, cause->example, cause->replay});
        }
    }
    return rows;
}

std::string bin_label(int bin)
{
    return std::to_string(bin * 10) + (bin == 9 ? "-100%" : "-" + std::to_string(bin * 10 + 9) + "%");
}


const std::vector<RungState> kStates = {{"correct", "\u2713", "correct"},
                                        {"failed", "\u2717", "a case failed"},
                                        {"unrun", "\u25cb", "handed in, not run"},
                                        {"missing", "\u2013", "not handed in"}};

const RungState& state_of(const json& rung)
{
    if (!rung.at("submitted").get<bool>()) return kStates[3];
    if (!rung.at("unrun").get<std::string>().empty()) return kStates[2];
    return rung_passes(rung) ? kStates[0] : kStates[1];
}

// A rung's short name in the student table: its number ("07" of "07_coarsening").
std::string short_id(const std::string& id) { return id.substr(0, id.find('_')); }

// A student's folder name as a relative URL: every byte but the unreserved ones percent-encoded,
// so that spaces, '#', '?' and non-ASCII names link to the folder they name.
std::string url_part(const std::string& text)
{
    static const char* const hex = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += static_cast<char>(c);
        else out += {'%', hex[c >> 4], hex[c & 15]};
    }
    return out;
}

std::string rung_list(const std::vector<std::string>& ids) { return ids.empty() ? "none" : lab::joined(ids); }

}  // namespace summary

using namespace summary;

json history_entry(const json& grade, int generation)
{
    json rungs = json::object();
    for (const json& r : grade.at("rungs"))
        rungs[r.at("id").get<std::string>()] = {{"score", r.at("score")}, {"submitted", r.at("submitted")},
                                                {"correct", rung_passes(r)}};
    return {{"graded_at", grade.value("graded_at", std::string())}, {"generation", generation}, {"score", grade.at("score")},
            {"max", grade.at("max")}, {"rungs", rungs}};
}

Progress progress_of(const json& history)
{
    Progress p;
    if (!history.is_array()) return p;
    p.gradings = static_cast<int>(history.size());
    if (history.size() < 2) return p;
    const json& now = history.at(history.size() - 1);
    const json& before = history.at(history.size() - 2);
    p.since = before.value("graded_at", std::string());
    const auto correct = [](const json& entry, const std::string& id) {
        return entry.at("rungs").contains(id) && entry.at("rungs").at(id).value("correct", false);
    };
    std::set<std::string> ids;
    for (const auto& [id, rung] : now.at("rungs").items()) ids.insert(id);
    for (const auto& [id, rung] : before.at("rungs").items()) ids.insert(id);
    for (const std::string& id : ids) {
        if (correct(now, id) && !correct(before, id)) p.gained.push_back(id);
        if (!correct(now, id) && correct(before, id)) p.lost.push_back(id);
    }
    return p;
}

std::string gradebook_csv(const std::vector<Outcome>& outcomes)
{
    const std::vector<std::string> rungs = rung_ids(outcomes);
    std::string text = "student,status,total,max";
    for (const std::string& id : rungs) text += "," + id;
    for (const std::string& c : kCategories) text += "," + c;
    text += ",held,late_penalty,seed,host,device\n";
    std::string max;  // the rubric's, the same for every student
    for (const Outcome& o : outcomes)
        if (o.graded && max.empty()) max = points(o.grade.at("max").get<double>());
    for (const Outcome& o : outcomes) {
        text += lab::csv_field(o.id);
        if (o.no_submission) {
            text += ",no submission,0.00," + max + std::string(rungs.size() + kCategories.size() + 5, ',') + "\n";
            continue;
        }
        if (!o.graded) {
            text += "," + lab::csv_field("not graded: " + o.why_not) + ",,";
            text += std::string(rungs.size() + kCategories.size() + 5, ',') + "\n";
            continue;
        }
        const json& g = o.grade;
        text += ",graded," + points(g.at("score").get<double>()) + "," + points(g.at("max").get<double>());
        std::map<std::string, double> by_rung;
        for (const json& r : g.at("rungs")) by_rung[r.at("id")] = r.at("score").get<double>();
        for (const std::string& id : rungs) text += "," + (by_rung.count(id) ? points(by_rung.at(id)) : std::string());
        for (const std::string& c : kCategories) text += "," + category_cell(g, c);
        // The points not graded on this machine, which stay in the maximum for a re-grade to earn.
        text += "," + points(g.value("held", 0.0));
        // The fraction of the points earned that the late policy took off; empty where none applies.
        const json late = g.value("late", json::object());
        text += "," + (late.value("policy", false) && !late.value("submitted_at", std::string()).empty()
                           ? points(late.value("penalty", 0.0))
                           : std::string());
        text += "," + g.at("seed").get<std::string>() + "," + lab::csv_field(o.host) + "," +
                lab::csv_field(g.at("device").get<std::string>()) + "\n";
    }
    return text;
}

std::string class_summary_markdown(const std::vector<Outcome>& outcomes, const std::string& title)
{
    const ClassFigures f = figures(outcomes);
    std::ostringstream out;
    out << "# " << title << "\n\n"
        << graded_count(outcomes, f);
    if (!f.graded.empty())
        out << "; out of " << points(f.max) << " points: mean " << points(f.mean) << ", median " << points(f.median)
            << ", lowest " << points(f.low) << ", highest " << points(f.high);
    out << ".\n\nSubmissions alike beyond the kit's own code, pair by pair: similarity.md (evidence for a person to read, "
           "never a verdict).\n\n## Scores\n\n| Share of the points | Students | |\n|---|---:|---|\n";
    for (int bin = 9; bin >= 0; --bin)
        out << "| " << bin_label(bin) << " | " << f.histogram[bin] << " | " << std::string(f.histogram[bin], '#') << " |\n";
    out << "\n## Rungs\n\n" << kRungNote << "\n\n|";
    for (const std::string& c : kRungColumns) out << " " << c << " |";
    out << "\n|---|";
    for (std::size_t i = 1; i < kRungColumns.size(); ++i) out << "---:|";
    out << "\n";
    for (const auto& row : rung_rows(f)) {
        out << "|";
        for (const std::string& cell : row) out << " " << cell << " |";
        out << "\n";
    }
    out << "\n## What the class got wrong\n\nBy rung, what its failures point to: the pattern the kit's diagnosis "
           "recognised (and the TODO, in the rung's words), or the kind of failure where none fits; a student counts "
           "once per cause.\n\n";
    const auto causes = cause_rows(f);
    if (causes.empty()) out << "Nothing failed.\n";
    else {
        out << "| Rung | Students | What it points to | For example | Replay |\n|---|---:|---|---|---|\n";
        for (const auto& row : causes) {
            out << "|";
            for (std::size_t i = 0; i < row.size(); ++i) {
                std::string cell = row[i];
                for (char& ch : cell)
                    if (ch == '|' || ch == '\n') ch = ' ';
                out << " " << (i == 4 && !cell.empty() ? "`" + cell + "`" : cell) << " |";
            }
            out << "\n";
        }
    }
    out << "\n## The cases most students failed\n\n";
    if (f.failing.empty()) out << "No graded case failed.\n";
    else {
        out << "| Case | Students |\n|---|---:|\n";
        for (const auto& [key, count] : f.failing) out << "| " << key << " | " << count << " |\n";
    }
    out << "\n## Progress over resubmissions\n\nStudents graded more than once (each time their submission changed): "
           "the rungs their latest grading has correct that the one before had not, and the other way round.\n\n";
    bool resubmitted = false;
    for (const Outcome* o : f.graded) {
        const Progress p = progress_of(o->history);
        if (p.gradings < 2) continue;
        if (!resubmitted) out << "| Student | Gradings | Since | Gained | Lost |\n|---|---:|---|---|---|\n";
        resubmitted = true;
        out << "| " << o->id << " | " << p.gradings << " | " << p.since << " | " << rung_list(p.gained) << " | "
            << rung_list(p.lost) << " |\n";
    }
    if (!resubmitted) out << "Every graded student was graded once.\n";
    if (!f.not_graded.empty()) {
        out << "\n## Not graded\n\nNothing was scored for these; `grade-all` tries them again when it is run again.\n\n";
        for (const Outcome* o : f.not_graded) out << "- " << o->id << ": " << o->why_not << "\n";
    }
    return out.str();
}

std::string rungs_nobody_started(const std::vector<Outcome>& all)
{
    std::map<std::string, bool> started;
    std::vector<std::string> order;
    int graded = 0;
    for (const Outcome& o : all) {
        if (!o.graded || !o.grade.contains("rungs")) continue;
        ++graded;
        for (const nlohmann::json& r : o.grade.at("rungs")) {
            const std::string id = r.value("id", "");
            if (!started.count(id)) order.push_back(id);
            const std::string unrun = r.value("unrun", "");
            // Not handed in, or handed in with its TODO lines left (the grader's "unfinished ...").
            started[id] = started[id] || (r.value("submitted", false) && unrun.rfind("unfinished", 0) != 0);
        }
    }
    std::string list;
    if (graded < 2) return list;
    for (const std::string& id : order)
        if (!started[id]) list += (list.empty() ? "" : ", ") + id.substr(0, 2);
    return list;
}

}  // namespace lab::batch
