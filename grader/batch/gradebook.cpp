// INSTRUCTOR SIDE (grade-all). See gradebook.hpp.
#include "gradebook.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "roster.hpp"

namespace lab::batch {

namespace {

using json = nlohmann::json;
const std::vector<std::string> kCategories = {"visible", "hidden", "speed", "sanitizer"};

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

double category(const json& grade, const std::string& name)
{
    double sum = 0;
    for (const json& r : grade.at("rungs"))
        for (const json& p : r.at("parts"))
            if (p.at("name") == name) sum += p.at("score").get<double>();
    return sum;
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

struct ClassFigures {
    std::vector<std::string> rungs;
    std::vector<const Outcome*> graded, not_graded;
    double max = 0, mean = 0, median = 0, low = 0, high = 0;
    std::vector<int> histogram = std::vector<int>(10, 0);  // tenths of the maximum; the last holds 100%
    struct Rung {
        int submitted = 0, passed = 0;
        int timed = 0, fast = 0;          // speed graded (a GPU), and every speed point earned
        double points = 0, max = 0;       // over those who submitted it
    };
    std::map<std::string, Rung> per_rung;
    std::vector<std::pair<std::string, int>> failing;  // "rung: case" and how many students failed it
    // What the class got wrong: by rung, each cause its failures point to (a diagnosis pattern, or
    // the kind of failure where none fits), the students, one example case and its replay.
    struct Cause {
        std::set<std::string> students;
        std::string example, replay;
    };
    std::map<std::string, std::map<std::string, Cause>> causes;
};

// The causes one failed case points to: the patterns the grader's diagnosis recognised in it, or
// else the kind of failure its message names.
std::vector<std::string> causes_of(const json& c)
{
    if (c.contains("causes") && !c.at("causes").empty()) return c.at("causes").get<std::vector<std::string>>();
    const std::string message = c.at("message").get<std::string>();
    if (message.find("stopped after") != std::string::npos || message.find("not run: ") != std::string::npos ||
        message.find("the runner was stopped") != std::string::npos)
        return {"stopped at a limit (time, memory or processes)"};
    if (message.find("the kernel failed") != std::string::npos) return {"the kernel failed (a CUDA error, an illegal address)"};
    if (message.find("wrote outside its output") != std::string::npos) return {"wrote outside its output"};
    if (message.find("runner was killed") != std::string::npos || message.find("handed back no output") != std::string::npos)
        return {"the runner crashed"};
    return {"wrong results, in no pattern the kit knows"};
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
            rows.push_back({id, std::to_string(cause->students.size()), what, cause->example, cause->replay});
        }
    }
    return rows;
}

std::string bin_label(int bin)
{
    return std::to_string(bin * 10) + (bin == 9 ? "-100%" : "-" + std::to_string(bin * 10 + 9) + "%");
}

// A rung's state in a grading, as the student table shows and filters it.
struct RungState {
    const char* key;    // the filter's and the row's data-rNN value
    const char* shown;  // the symbol in the table
    const char* words;  // what it means, for the legend and the filter
};
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

std::string rung_list(const std::vector<std::string>& ids)
{
    std::string text;
    for (const std::string& id : ids) text += (text.empty() ? "" : ", ") + id;
    return text.empty() ? "none" : text;
}

}  // namespace

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

namespace {

// Sorting the student table by a click on a heading (again: the other way), and from the page's
// address (#sort=COLUMN-asc or -desc, COLUMN as the heading's data-key), so that a sorted view can
// be linked to. The only script on the page: without it the page shows everything, unsorted.
const char* const kSortScript = R"(<script>
(function () {
  var table = document.getElementById('students-table');
  if (!table) return;
  var heads = table.tHead.rows[0].cells;
  function value(cell, kind) {
    var v = cell.getAttribute('data-v');
    if (v === null) v = cell.textContent;
    if (kind === 'num') { v = parseFloat(v); return isNaN(v) ? -Infinity : v; }
    return v.toLowerCase();
  }
  function sortBy(col, dir) {
    var kind = heads[col].getAttribute('data-sort');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a.cells[col], kind), y = value(b.cells[col], kind);
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute('aria-sort');
    heads[col].setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
  }
  function fromAddress() {
    var m = /sort=(\w+)-(asc|desc)/.exec(location.hash);
    if (!m) return;
    for (var i = 0; i < heads.length; i++)
      if (heads[i].getAttribute('data-key') === m[1]) sortBy(i, m[2] === 'asc' ? 1 : -1);
  }
  Array.prototype.forEach.call(heads, function (head, i) {
    if (!head.getAttribute('data-sort')) return;
    head.tabIndex = 0;
    head.title = 'sort by this column';
    head.addEventListener('click', function () {
      var dir = head.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
      history.replaceState(null, '', '#sort=' + head.getAttribute('data-key') + (dir > 0 ? '-asc' : '-desc'));
      sortBy(i, dir);
    });
  });
  fromAddress();
  window.addEventListener('hashchange', fromAddress);
})();
</script>
)";

// The class's students: a row each, with every rung's state and points, the gradings and what the
// latest gained or lost, and a link to the student's report. Above it, a filter by rung and state:
// radio buttons and CSS rules (:has), so that it works with JavaScript off.
std::string student_table(const ClassFigures& f, const std::vector<Outcome>& outcomes)
{
    std::ostringstream out;
    std::map<std::string, std::map<std::string, int>> counts;  // rung -> state -> students
    for (const Outcome* o : f.graded)
        for (const json& r : o->grade.at("rungs")) ++counts[r.at("id")][state_of(r).key];
    out << "<h2 id=\"students\">Students</h2>\n<p>Each rung: ";
    for (const RungState& st : kStates) out << st.shown << " " << st.words << (&st == &kStates.back() ? "" : ", ");
    out << "; its points beside. Choose a rung and a state to list only those students; click a heading to sort "
           "(the sorting needs JavaScript, the rest does not).</p>\n<style>";
    for (const std::string& id : f.rungs)
        for (const RungState& st : kStates)
            out << "body:has(#show-" << short_id(id) << "-" << st.key << ":checked) #students-table tbody tr:not([data-r"
                << short_id(id) << "=\"" << st.key << "\"]){display:none}\n";
    out << "body:has(#show-ungraded:checked) #students-table tbody tr:not([data-graded=\"no\"]){display:none}\n"
        << "#students-table td{white-space:nowrap}#students-table td.correct{color:#161}#students-table td.failed{color:#a11}#students-table td.unrun{color:#a60}"
           "th[data-sort]{cursor:pointer}th[aria-sort=ascending]::after{content:\" \\25b2\"}"
           "th[aria-sort=descending]::after{content:\" \\25bc\"}</style>\n"
        << "<form class=\"filter\" aria-label=\"show only\"><table><tr><th>Show only</th>";
    for (const std::string& id : f.rungs) out << "<th>" << lab::xml_escape(short_id(id)) << "</th>";
    out << "</tr>\n";
    for (const RungState& st : kStates) {
        out << "<tr><th>" << st.shown << " " << st.words << "</th>";
        for (const std::string& id : f.rungs) {
            const int n = counts.count(id) && counts.at(id).count(st.key) ? counts.at(id).at(st.key) : 0;
            out << "<td><label><input type=\"radio\" name=\"show\" id=\"show-" << short_id(id) << "-" << st.key << "\"> "
                << n << "</label></td>";
        }
        out << "</tr>\n";
    }
    out << "</table><label><input type=\"radio\" name=\"show\" id=\"show-everyone\" checked> everyone</label>";
    if (!f.not_graded.empty())
        out << " <label><input type=\"radio\" name=\"show\" id=\"show-ungraded\"> not graded (" << f.not_graded.size()
            << ")</label>";
    out << "</form>\n<table id=\"students-table\"><thead><tr><th data-sort=\"text\" data-key=\"student\">Student</th>"
           "<th data-sort=\"num\" data-key=\"total\">Total</th>";
    for (const std::string& id : f.rungs)
        out << "<th data-sort=\"num\" data-key=\"" << short_id(id) << "\" title=\"" << lab::xml_escape(id) << "\">"
            << short_id(id) << "</th>";
    out << "<th data-sort=\"num\" data-key=\"gradings\">Gradings</th><th data-sort=\"num\" data-key=\"progress\">Since the one "
           "before</th><th>Report</th></tr></thead>\n<tbody>\n";
    for (const Outcome& o : outcomes) {
        std::map<std::string, const json*> by_rung;
        if (o.graded)
            for (const json& r : o.grade.at("rungs")) by_rung[r.at("id")] = &r;
        out << "<tr data-graded=\"" << (o.graded ? "yes" : "no") << "\"";
        for (const std::string& id : f.rungs)
            out << " data-r" << short_id(id) << "=\"" << (by_rung.count(id) ? state_of(*by_rung.at(id)).key : "none") << "\"";
        out << "><td>" << lab::xml_escape(o.id) << "</td>";
        if (!o.graded) {
            out << "<td data-v=\"-1\" title=\"" << lab::xml_escape(o.why_not) << "\">not graded</td>";
            for (std::size_t i = 0; i < f.rungs.size() + 2; ++i) out << "<td data-v=\"-1\"></td>";
            out << "<td></td></tr>\n";
            continue;
        }
        const double score = o.grade.at("score").get<double>();
        out << "<td class=\"n\" data-v=\"" << points(score) << "\">" << points(score) << " / "
            << points(o.grade.at("max").get<double>()) << "</td>";
        for (const std::string& id : f.rungs) {
            if (!by_rung.count(id)) {
                out << "<td data-v=\"-1\"></td>";
                continue;
            }
            const json& r = *by_rung.at(id);
            const RungState& st = state_of(r);
            const double rung_score = r.at("score").get<double>();
            const bool handed_in = r.at("submitted").get<bool>();
            out << "<td class=\"" << st.key << "\" data-v=\"" << (handed_in ? points(rung_score) : "-1") << "\" title=\""
                << lab::xml_escape(id + ": " + st.words) << "\">" << st.shown
                << (handed_in ? " " + points(rung_score) : std::string()) << "</td>";
        }
        const Progress p = progress_of(o.history);
        std::string change;
        for (const std::string& id : p.gained) change += (change.empty() ? "+" : " +") + short_id(id);
        for (const std::string& id : p.lost) change += (change.empty() ? "\u2212" : " \u2212") + short_id(id);
        if (p.gradings >= 2 && change.empty()) change = "no rung changed";
        out << "<td class=\"n\" data-v=\"" << std::max(1, p.gradings) << "\">" << std::max(1, p.gradings) << "</td><td data-v=\""
            << static_cast<int>(p.gained.size()) - static_cast<int>(p.lost.size()) << "\""
            << (p.since.empty() ? std::string() : " title=\"since " + lab::xml_escape(p.since) + "\"") << ">" << change
            << "</td><td><a href=\"students/" << url_part(o.id) << "/report.html\">report</a></td></tr>\n";
    }
    out << "</tbody></table>\n";
    return out.str();
}

// Each rung's speed over the class, where it was timed (a GPU): a dot per student at its GB/s,
// green where it earned every speed point and red where not, so that where the threshold falls
// shows between them; the title of a dot names the student.
std::string speed_plot_html(const ClassFigures& f)
{
    struct Dot {
        std::string student;
        double gbps;
        int fast;  // 1: every speed point earned, 0: not, -1: the rubric gives the rung no speed points
    };
    std::vector<std::pair<std::string, std::vector<Dot>>> rows;
    double top = 0;
    for (const std::string& id : f.rungs) {
        std::vector<Dot> dots;
        for (const Outcome* o : f.graded)
            for (const json& r : o->grade.at("rungs")) {
                if (r.at("id") != id || r.value("gbps", 0.0) <= 0) continue;
                int fast = -1;
                for (const json& p : r.at("parts"))
                    if (p.at("name") == "speed" && p.at("graded").get<bool>() && p.at("max").get<double>() > 0)
                        fast = p.at("score").get<double>() >= p.at("max").get<double>();
                dots.push_back({o->id, r.at("gbps").get<double>(), fast});
                top = std::max(top, r.at("gbps").get<double>());
            }
        if (!dots.empty()) rows.emplace_back(id, std::move(dots));
    }
    std::ostringstream out;
    out << "<h2>Speed</h2>\n";
    if (rows.empty()) {
        out << "<p>Not timed: the class was graded without a GPU, so there is no speed to show.</p>\n";
        return out.str();
    }
    // The axis: 0 to a round number of GB/s above the fastest.
    double step = 1;
    while (top / step > 5) step *= top / step > 25 ? 10 : 2;
    const double axis = step * std::ceil(top / step + 1e-9);
    const int left = 150, width = 540, row_height = 26, height = 40 + row_height * static_cast<int>(rows.size());
    out << "<p>Each student's GB/s on the rung's speed case: green where every speed point was earned, red where not, "
           "grey where the rubric gives the rung none (the threshold is a ratio to the kit's baseline, timed in each grading). Hover a dot for the student.</p>\n"
        << "<svg width=\"" << left + width + 30 << "\" height=\"" << height << "\" role=\"img\" aria-label=\"GB/s per rung\">\n";
    for (int tick = 0; tick * step <= axis + 1e-9; ++tick) {
        const double x = left + width * tick * step / axis;
        out << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"10\" y2=\"" << height - 25
            << "\" stroke=\"#ddd\"/><text x=\"" << x << "\" y=\"" << height - 10 << "\" font-size=\"11\" text-anchor=\"middle\">"
            << tick * step << "</text>\n";
    }
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const int y = 25 + row_height * static_cast<int>(k);
        out << "<text x=\"" << left - 8 << "\" y=\"" << y + 4 << "\" font-size=\"12\" text-anchor=\"end\">"
            << lab::xml_escape(rows[k].first) << "</text>\n";
        for (const Dot& d : rows[k].second)
            out << "<circle cx=\"" << left + width * d.gbps / axis << "\" cy=\"" << y << "\" r=\"5\" fill=\""
                << (d.fast == 1 ? "#2a2" : d.fast == 0 ? "#c33" : "#888") << "\" fill-opacity=\"0.7\"><title>"
                << lab::xml_escape(d.student) << ": " << points(d.gbps) << " GB/s"
                << (d.fast == 1 ? ", fast enough" : d.fast == 0 ? ", not fast enough" : ", no speed points in the rubric")
                << "</title></circle>\n";
    }
    out << "<text x=\"" << left + width / 2 << "\" y=\"" << height << "\" font-size=\"12\" text-anchor=\"middle\">GB/s</text>\n</svg>\n";
    return out.str();
}

// Progress over resubmissions, for the HTML page: as the Markdown's.
std::string progress_html(const ClassFigures& f)
{
    std::ostringstream out;
    out << "<h2>Progress over resubmissions</h2>\n<p>Students graded more than once (each time their submission changed): "
           "the rungs their latest grading has correct that the one before had not, and the other way round.</p>\n";
    bool any = false;
    for (const Outcome* o : f.graded) {
        const Progress p = progress_of(o->history);
        if (p.gradings < 2) continue;
        if (!any) out << "<table><tr><th>Student</th><th>Gradings</th><th>Since</th><th>Gained</th><th>Lost</th></tr>\n";
        any = true;
        out << "<tr><td>" << lab::xml_escape(o->id) << "</td><td class=\"n\">" << p.gradings << "</td><td>"
            << lab::xml_escape(p.since) << "</td><td>" << rung_list(p.gained) << "</td><td>" << rung_list(p.lost) << "</td></tr>\n";
    }
    out << (any ? "</table>\n" : "<p>Every graded student was graded once.</p>\n");
    return out.str();
}

}  // namespace

std::string gradebook_csv(const std::vector<Outcome>& outcomes)
{
    const std::vector<std::string> rungs = rung_ids(outcomes);
    std::string text = "student,status,total,max";
    for (const std::string& id : rungs) text += "," + id;
    for (const std::string& c : kCategories) text += "," + c;
    text += ",late_penalty,seed,host,device\n";
    for (const Outcome& o : outcomes) {
        text += lab::csv_field(o.id);
        if (!o.graded) {
            text += "," + lab::csv_field("not graded: " + o.why_not) + ",,";
            text += std::string(rungs.size() + kCategories.size() + 4, ',') + "\n";
            continue;
        }
        const json& g = o.grade;
        text += ",graded," + points(g.at("score").get<double>()) + "," + points(g.at("max").get<double>());
        std::map<std::string, double> by_rung;
        for (const json& r : g.at("rungs")) by_rung[r.at("id")] = r.at("score").get<double>();
        for (const std::string& id : rungs) text += "," + (by_rung.count(id) ? points(by_rung.at(id)) : std::string());
        for (const std::string& c : kCategories) text += "," + points(category(g, c));
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
        << f.graded.size() << " of " << outcomes.size() << " submissions graded";
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

std::string class_summary_html(const std::vector<Outcome>& outcomes, const std::string& title)
{
    const ClassFigures f = figures(outcomes);
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << lab::xml_escape(title)
        << "</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:.3em .6em}td.n{text-align:right}</style></head><body>\n<h1>"
        << lab::xml_escape(title) << "</h1>\n<p>" << f.graded.size() << " of " << outcomes.size() << " submissions graded";
    if (!f.graded.empty())
        out << "; out of " << points(f.max) << " points: mean " << points(f.mean) << ", median " << points(f.median)
            << ", lowest " << points(f.low) << ", highest " << points(f.high);
    out << ".</p>\n<p>Submissions alike beyond the kit's own code, pair by pair: <a href=\"similarity.html\">similarity.html</a> "
           "(evidence for a person to read, never a verdict).</p>\n<h2>Scores</h2>\n";
    const int top = std::max(1, *std::max_element(f.histogram.begin(), f.histogram.end()));
    out << "<svg width=\"640\" height=\"250\" role=\"img\" aria-label=\"students per tenth of the points\">\n";
    for (int bin = 0; bin < 10; ++bin) {
        const int height = 185 * f.histogram[bin] / top, x = 10 + 62 * bin;  // room above the tallest for its count
        out << "<rect x=\"" << x << "\" y=\"" << 210 - height << "\" width=\"54\" height=\"" << height
            << "\" fill=\"#4a7\"/><text x=\"" << x + 27 << "\" y=\"" << 205 - height
            << "\" font-size=\"12\" text-anchor=\"middle\">" << f.histogram[bin] << "</text><text x=\"" << x + 27
            << "\" y=\"228\" font-size=\"11\" text-anchor=\"middle\">" << bin_label(bin) << "</text>\n";
    }
    out << "<text x=\"320\" y=\"246\" font-size=\"12\" text-anchor=\"middle\">share of the points (students per bar)</text>\n"
        << "</svg>\n<h2>Rungs</h2>\n<p>" << lab::xml_escape(kRungNote) << "</p>\n<table><tr>";
    for (const std::string& c : kRungColumns) out << "<th>" << lab::xml_escape(c) << "</th>";
    out << "</tr>\n";
    for (const auto& row : rung_rows(f)) {
        out << "<tr>";
        for (std::size_t i = 0; i < row.size(); ++i)
            out << (i == 0 ? "<td>" : "<td class=\"n\">") << lab::xml_escape(row[i]) << "</td>";
        out << "</tr>\n";
    }
    out << "</table>\n<h2>What the class got wrong</h2>\n<p>By rung, what its failures point to: the pattern the kit's "
           "diagnosis recognised (and the TODO, in the rung's words), or the kind of failure where none fits.</p>\n";
    const auto causes = cause_rows(f);
    if (causes.empty()) out << "<p>Nothing failed.</p>\n";
    else {
        out << "<table><tr><th>Rung</th><th>Students</th><th>What it points to</th><th>For example</th><th>Replay</th></tr>\n";
        for (const auto& row : causes)
            out << "<tr><td>" << lab::xml_escape(row[0]) << "</td><td class=\"n\">" << row[1] << "</td><td>" << lab::xml_escape(row[2])
                << "</td><td>" << lab::xml_escape(row[3]) << "</td><td><code>" << lab::xml_escape(row[4]) << "</code></td></tr>\n";
        out << "</table>\n";
    }
    out << "<h2>The cases most students failed</h2>\n";
    if (f.failing.empty()) out << "<p>No graded case failed.</p>\n";
    else {
        out << "<table><tr><th>Case</th><th>Students</th></tr>\n";
        for (const auto& [key, count] : f.failing)
            out << "<tr><td>" << lab::xml_escape(key) << "</td><td class=\"n\">" << count << "</td></tr>\n";
        out << "</table>\n";
    }
    if (!f.not_graded.empty()) {
        out << "<h2>Not graded</h2>\n<p>Nothing was scored for these; <code>grade-all</code> tries them again when it is "
               "run again.</p>\n<ul>\n";
        for (const Outcome* o : f.not_graded) out << "<li>" << lab::xml_escape(o->id) << ": " << lab::xml_escape(o->why_not) << "</li>\n";
        out << "</ul>\n";
    }
    out << speed_plot_html(f) << progress_html(f) << student_table(f, outcomes);
    out << kSortScript << "</body></html>\n";
    return out.str();
}

}  // namespace lab::batch
