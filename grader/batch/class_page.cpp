// INSTRUCTOR SIDE (grade-all). The class summary as one HTML page (gradebook.hpp,
// class_summary_html): the Markdown summary's sections, the score histogram and the speed plot as
// SVG, and a table of the students that filters with CSS alone and sorts with a few lines of script.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "class_figures.hpp"
#include "gradebook.hpp"
#include "lab/text.hpp"

namespace lab::batch {

using json = nlohmann::json;
using namespace summary;

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

std::string class_summary_html(const std::vector<Outcome>& outcomes, const std::string& title)
{
    const ClassFigures f = figures(outcomes);
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << lab::xml_escape(title)
        << "</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:.3em .6em}td.n{text-align:right}</style></head><body>\n<h1>"
        << lab::xml_escape(title) << "</h1>\n<p>" << lab::xml_escape(graded_count(outcomes, f));
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
