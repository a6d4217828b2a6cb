// TRUSTED SIDE. See report_page.hpp.
#include "report_page.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "lab/lesson_numbers.hpp"
#include "lab/text.hpp"
#include "plan.hpp"

namespace lab::grading {

namespace {

constexpr std::size_t kFailuresShown = 5;  // per rung and part; the instructor's page lists every case below

std::string esc(const std::string& text) { return lab::xml_escape(text); }

// Text with `code` spans (as the facts write commands) as <code>.
std::string with_code(const std::string& text)
{
    std::string out;
    bool in_code = false;
    std::size_t from = 0;
    for (std::size_t at; (at = text.find('`', from)) != std::string::npos; from = at + 1) {
        out += esc(text.substr(from, at - from)) + (in_code ? "</code>" : "<code>");
        in_code = !in_code;
    }
    out += esc(text.substr(from));
    if (in_code) out += "</code>";
    return out;
}

const char* const kStyle =
    "body{font-family:system-ui,sans-serif;max-width:62em;margin:2em auto;padding:0 1em;color:#222;line-height:1.4}"
    "h1{margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}"
    ".wide{overflow-x:auto}table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
    "th{background:#f2f2f2}td.num{text-align:right;white-space:nowrap}"
    "tr.part td{background:#fafafa;font-weight:600}tr.group td:first-child{padding-left:1.6em}"
    "tr.held td{color:#666;font-style:italic}"
    ".about{color:#444}.held{background:#fff7e0;padding:.5em;border-left:4px solid #e0b000}"
    ".ok{color:#17692b}.bad{color:#a31515}"
    "ol.failures li{margin-bottom:.8em}.cause{margin:.2em 0}.cause strong{color:#a31515}"
    "code{background:#f4f4f4;padding:0 .2em;word-break:break-all}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}"
    ".hint{background:#eef5ff;padding:.4em .6em;border-left:4px solid #4a7fd0}";

void speed_chart(std::ostringstream& out, const Grade& g)
{
    bool any_speed = false;
    for (const RungResult& r : g.rungs) any_speed |= r.gbps > 0;
    if (!any_speed) return;
    double top = 1;
    for (const RungResult& r : g.rungs) top = std::max(top, r.gbps);
    out << "<h2>GB/s per rung</h2>\n<svg width=\"640\" height=\"" << 24 * g.rungs.size() + 10 << "\" role=\"img\">\n";
    int row = 0;
    for (const RungResult& r : g.rungs) {
        const double width = 440 * r.gbps / top;
        out << "<text x=\"0\" y=\"" << 24 * row + 16 << "\" font-size=\"12\">" << esc(r.id) << "</text><rect x=\"160\" y=\""
            << 24 * row + 4 << "\" width=\"" << width << "\" height=\"16\" fill=\"#4a7\"/><text x=\"" << 165 + width << "\" y=\""
            << 24 * row + 16 << "\" font-size=\"12\">" << static_cast<int>(r.gbps) << "</text>\n";
        ++row;
    }
    out << "</svg>\n";
}

void lessons_table(std::ostringstream& out, const Grade& g)
{
    bool any = false;
    for (const RungResult& r : g.rungs) any |= r.lessons.measured();
    if (!any) return;
    out << "<h2>The lessons, measured</h2>\n<p>" << esc(lessons_measured_how(g))
        << "</p>\n<div class=\"wide\"><table><tr><th>Rung</th>";
    for (const LessonNumber& number : lesson_numbers()) out << "<th>" << esc(number.what) << "</th>";
    out << "</tr>\n";
    for (const RungResult& r : g.rungs) {
        if (!r.lessons.measured()) continue;
        out << "<tr><td>" << esc(r.id) << "</td>";
        for (const LessonNumber& number : lesson_numbers()) {
            const auto yours = r.lessons.yours.find(number.name);
            const auto reference = r.lessons.reference.find(number.name);
            out << "<td class=\"num\">" << (yours == r.lessons.yours.end() ? "-" : lesson_text(number.name, yours->second))
                << (reference == r.lessons.reference.end() ? "" : " (" + lesson_text(number.name, reference->second) + ")")
                << "</td>";
        }
        out << "</tr>\n";
    }
    out << "</table></div>\n";
}

void failures(std::ostringstream& out, const Grade& g, const RungResult& r, Reader reader, bool hidden)
{
    std::vector<const CaseResult*> failed;
    for (const CaseResult* c : failures_in_full(g, r, reader))
        if (c->hidden == hidden) failed.push_back(c);
    if (failed.empty()) return;
    const std::size_t shown = reader == Reader::instructor ? failed.size() : std::min(failed.size(), kFailuresShown);
    out << "<h3>Failing " << (hidden ? "hidden" : "visible") << " cases (" << shown << " of " << failed.size()
        << " shown)</h3>\n<ol class=\"failures\">\n";
    for (std::size_t k = 0; k < shown; ++k) {
        const CaseResult& c = *failed[k];
        const std::string cause = likely_cause(c);
        out << "<li><div>" << esc(case_line(c)) << "</div>\n<p class=\"cause\"><strong>Likely cause:</strong> "
            << (cause.empty() ? "none the kit recognises: compare what was expected with what came back, and replay it."
                              : esc(cause))
            << "</p>\n<div>Replay it on your file: <code>" << esc(c.replay) << "</code></div>\n";
        if (reader == Reader::instructor) out << "<details><summary>the checker's message</summary><pre>" << esc(c.message) << "</pre></details>\n";
        out << "</li>\n";
    }
    out << "</ol>\n";
    if (shown < failed.size())
        out << "<p>... and " << failed.size() - shown << " more: <code>./lab check " << esc(r.id.substr(0, 2))
            << "</code> shows them one by one.</p>\n";
    if (!hidden)
        out << "<p class=\"hint\">Stuck? <code>" << esc(hint_command(r))
            << "</code> shows the rung's next hint, one more each time you run it.</p>\n";
}

void rung_section(std::ostringstream& out, const Grade& g, const RungResult& r, Reader reader)
{
    out << "<section class=\"rung\" id=\"rung-" << esc(r.id) << "\">\n<h2>" << esc(r.id) << (r.title.empty() ? "" : ": " + esc(r.title))
        << " &mdash; " << points_text(r.score()) << " / " << points_text(r.max()) << "</h2>\n";
    if (r.reused) out << "<p>Unchanged since the grading of " << esc(r.graded_at) << ": its result stands.</p>\n";
    if (r.submitted && !r.built && !r.reused) {
        out << "<p class=\"bad\">exercises/" << esc(r.id) << ".cu: " << esc(r.unrun) << ".</p>\n<pre>" << esc(r.build_log) << "</pre>\n";
        return;
    }
    out << "<table class=\"parts\"><thead><tr><th>Part, group</th><th>Cases passed</th><th>Points</th><th>Notes</th></tr></thead><tbody>\n";
    for (const Part& p : r.parts) {
        const bool cases = p.name == "visible" || p.name == "hidden";
        std::string cell = cases ? "" : (p.graded ? "" : "not graded here");
        if (cases && p.graded) {
            const bool hidden = p.name == "hidden";
            const int passed = r.count("passed", hidden), run = passed + r.count("failed", hidden);
            cell = std::to_string(passed) + " of " + std::to_string(run);
        }
        std::string note = p.note;
        if (cases) note = part_arithmetic(r, p);
        else if (!note.empty()) note = note.substr(0, note.find('\n'));
        out << "<tr class=\"part" << (p.graded ? "" : " held") << "\"><td>" << esc(part_title(p)) << "</td><td class=\"num\">"
            << esc(cell) << "</td><td class=\"num\">" << (p.graded ? points_text(p.score) : "0.00") << " of " << points_text(p.max)
            << "</td><td>" << esc(note) << "</td></tr>\n";
        for (const GroupScore& grp : p.groups)
            out << "<tr class=\"group\"><td>" << esc(grp.name) << "</td><td class=\"num\">" << esc(group_cases(grp))
                << "</td><td class=\"num\">" << esc(group_points(grp)) << "</td><td>" << esc(group_notes(r, p, grp)) << "</td></tr>\n";
        if (!cases) {
            std::istringstream lines(p.note);
            std::string line;
            std::getline(lines, line);
            while (std::getline(lines, line))
                out << "<tr class=\"group\"><td colspan=\"4\">" << esc(line.rfind("- ", 0) == 0 ? line.substr(2) : line) << "</td></tr>\n";
        }
    }
    out << "</tbody></table>\n";
    if (r.part("visible") && r.part("visible")->groups.size() > 1)
        out << "<p>A part's points are shared equally by its groups of cases that run here; each group earns its share "
            << (g.proportional ? "in proportion to its cases that pass." : "only when every one of its cases passes.") << "</p>\n";
    failures(out, g, r, reader, false);
    failures(out, g, r, reader, true);
    if (!r.sanitizer.findings.empty()) {
        out << "<h3>What the sanitizer pass found</h3>\n<ul>\n";
        for (const std::string& f : r.sanitizer.findings) out << "<li><code>" << esc(f) << "</code></li>\n";
        out << "</ul>\n";
    }
    out << "</section>\n";
}

}  // namespace

std::string report_page(const Grade& g, Reader reader)
{
    std::ostringstream out;
    const std::string name = std::filesystem::path(g.submission).filename().string();
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>"
        << esc(total_text(g)) << " points: " << esc(name) << (reader == Reader::instructor ? " (instructor's copy)" : "")
        << "</title><style>" << kStyle << "</style></head><body>\n<header>\n<h1>" << esc(total_text(g)) << " points</h1>\n";
    if (reader == Reader::instructor)
        out << "<p><strong>The instructor's copy:</strong> every case, the hidden ones too. The student's report is "
               "<code>../report.html</code>.</p>\n";
    out << "<p class=\"about\">" << with_code(about_the_grading(g, reader)) << "</p>\n";
    if (const std::string held = held_text(g); !held.empty()) out << "<p class=\"held\">" << esc(held) << "</p>\n";
    if (!g.late.note.empty())
        out << "<p><strong>Late policy:</strong> " << esc(g.late.note)
            << (g.late.fraction > 0 ? " (" + points_text(g.earned()) + " points earned, " + points_text(g.score()) + " counted)" : "")
            << ".</p>\n";
    out << "</header>\n<h2>By rung</h2>\n<table class=\"overview\"><thead><tr><th>Rung</th><th>Points</th><th>Parts</th></tr></thead><tbody>\n";
    for (const RungResult& r : g.rungs) {
        std::string parts;
        if (!r.built && !r.reused) parts = r.unrun;
        else
            for (const Part& p : r.parts)
                parts += (parts.empty() ? "" : "; ") + part_title(p) + " " +
                         (p.graded ? points_text(p.score) + " of " + points_text(p.max) : "not graded here");
        // Every point graded here earned: the points of a part not graded here (speed without a GPU)
        // are held, not lost (the page's banner says so).
        const double graded_max = r.max() - r.held();
        const bool full = graded_max > 0 && r.score() >= graded_max - 1e-9;
        out << "<tr><td>" << (r.submitted || r.reused ? "<a href=\"#rung-" + esc(r.id) + "\">" + esc(r.id) + "</a>" : esc(r.id))
            << "</td><td class=\"num " << (full ? "ok" : "bad") << "\">" << points_text(r.score()) << " / " << points_text(r.max())
            << "</td><td>" << esc(parts) << "</td></tr>\n";
    }
    out << "</tbody></table>\n";
    for (const RungResult& r : g.rungs)
        if (r.submitted || r.reused) rung_section(out, g, r, reader);
    speed_chart(out, g);
    lessons_table(out, g);
    if (!g.refused.empty()) {
        out << "<h2>Files refused</h2>\n<ul>\n";
        for (const auto& f : g.refused) out << "<li>" << esc(f) << "</li>\n";
        out << "</ul>\n";
    }
    if (reader == Reader::instructor) {
        out << "<h2>Every case</h2>\n<table><tr><th>Rung</th><th>Case</th><th>Result</th><th>Seed</th><th>Replay</th></tr>\n";
        for (const RungResult& r : g.rungs)
            for (const CaseResult& c : r.cases)
                out << "<tr><td>" << esc(r.id) << "</td><td>" << esc((c.hidden ? "hidden " : "") + c.group + " " + c.op + " " + c.name)
                    << "</td><td>" << esc(c.status) << "</td><td>" << esc(lab::seed_text(c.seed)) << "</td><td><code>"
                    << esc(c.replay) << "</code></td></tr>\n";
        out << "</table>\n";
    }
    out << "</body></html>\n";
    return lab::valid_utf8(out.str());
}

}  // namespace lab::grading
