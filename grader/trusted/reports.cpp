// TRUSTED SIDE. See reports.hpp.
#include "reports.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "lab/json_text.hpp"
#include "lab/lesson_numbers.hpp"
#include "lab/text.hpp"
#include "plan.hpp"

namespace lab::grading {

namespace {

using nlohmann::json;
constexpr int kFailuresShown = 5;  // per group, in a test's output

double rounded(double v) { return std::round(v * 1000.0) / 1000.0; }

std::string points(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", v);
    return text;
}

std::string header(const Grade& g)
{
    return "Graded on " + g.device + ", seed " + g.seed_text() + ", rubric " + g.rubric + "; runners " + g.sandbox +
           ". Replay this run with --seed " + g.seed_text() + ".";
}

std::string case_line(const CaseResult& c)
{
    std::string text = (c.hidden ? "hidden " : "") + c.op + " " + c.name + " (n = " + std::to_string(c.n) +
                       ", block " + std::to_string(c.block) + ", grid " + std::to_string(c.grid) + ")";
    if (!c.expected.empty() || !c.got.empty())
        text += ": expected " + (c.expected.empty() ? std::string("?") : c.expected) + ", got " + c.got;
    if (c.first_wrong_block >= 0) text += ", first wrong block " + std::to_string(c.first_wrong_block);
    return text;
}

std::string failures_of(const RungResult& r, const std::string& part, const std::string& group)
{
    std::string text;
    int shown = 0, more = 0;
    for (const CaseResult& c : r.cases) {
        if (c.status != "failed" || (c.hidden ? "hidden" : "visible") != part || c.group != group) continue;
        if (shown++ >= kFailuresShown) {
            ++more;
            continue;
        }
        text += "- " + case_line(c) + "\n  " + c.message + "\n  replay: " + c.replay + "\n";
    }
    if (more) text += "... and " + std::to_string(more) + " more failing cases in this group\n";
    return text;
}

std::string part_output(const RungResult& r, const Part& p)
{
    if (!r.submitted) return "Not submitted: no exercises/" + r.id + ".cu in the submission.";
    if (!r.built) return "exercises/" + r.id + ".cu: " + r.unrun + ":\n" + r.build_log;
    if (!p.note.empty() && p.groups.empty()) return p.note;
    return "";
}

json gradescope(const Grade& g)
{
    json tests = json::array();
    json leaderboard = json::array();
    int number = 0;
    for (const RungResult& r : g.rungs) {
        ++number;
        int sub = 0;
        for (const Part& p : r.parts) {
            if (!p.graded) continue;
            const std::string visibility = p.name == "hidden" ? "after_published" : "visible";
            if (p.groups.empty()) {
                tests.push_back({{"name", r.id + " " + p.name},
                                 {"number", std::to_string(number) + "." + std::to_string(++sub)},
                                 // A penalty (the sanitizer's) shows as 0 here; the top-level score takes it off.
                                 {"score", rounded(std::max(0.0, p.score))},
                                 {"max_score", rounded(p.max)},
                                 {"status", p.score >= p.max && (p.name != "sanitizer" || r.sanitizer.findings.empty()) ? "passed" : "failed"},
                                 {"output", part_output(r, p)},
                                 {"tags", {r.id, p.name}},
                                 {"visibility", visibility}});
                continue;
            }
            for (const GroupScore& grp : p.groups) {
                std::string output = std::to_string(grp.passed) + " of " + std::to_string(grp.passed + grp.failed) +
                                     " cases passed" +
                                     (grp.skipped ? " (" + std::to_string(grp.skipped) + " not run here)" : "") + ".\n";
                output += failures_of(r, p.name, grp.name);
                tests.push_back({{"name", r.id + " " + p.name + ": " + grp.name},
                                 {"number", std::to_string(number) + "." + std::to_string(++sub)},
                                 {"score", rounded(grp.score)},
                                 {"max_score", rounded(grp.max)},
                                 {"status", grp.failed == 0 ? "passed" : "failed"},
                                 {"output", output},
                                 {"tags", {r.id, p.name, grp.name}},
                                 {"visibility", visibility}});
            }
        }
        if (r.gbps > 0) leaderboard.push_back({{"name", r.id + " GB/s"}, {"value", rounded(r.gbps)}, {"order", "desc"}});
    }
    json doc = {{"score", rounded(g.score())},
                {"execution_time", static_cast<int>(std::ceil(g.seconds))},
                {"output", header(g)},
                {"output_format", "text"},
                {"visibility", "visible"},
                {"stdout_visibility", "hidden"},
                {"extra_data", {{"seed", g.seed_text()}, {"backend", g.backend}, {"device", g.device},
                                {"max_score", rounded(g.max())}}},
                {"tests", tests}};
    if (!leaderboard.empty()) doc["leaderboard"] = leaderboard;
    return doc;
}

json prairielearn(const Grade& g)
{
    json tests = json::array();
    for (const RungResult& r : g.rungs)
        for (const Part& p : r.parts) {
            if (!p.graded) continue;
            std::string output = part_output(r, p);
            for (const GroupScore& grp : p.groups) output += failures_of(r, p.name, grp.name);
            tests.push_back({{"name", r.id + " " + p.name},
                             {"points", rounded(std::max(0.0, p.score))},
                             {"max_points", rounded(p.max)},
                             {"message", p.note},
                             {"output", output}});
        }
    const double max = g.max();
    return {{"gradable", true},
            {"score", max > 0 ? std::min(1.0, std::max(0.0, g.score() / max)) : 0.0},
            {"message", header(g)},
            {"output", points(g.score()) + " of " + points(max) + " points"},
            {"tests", tests}};
}

// The whole result, for tools (the corpus check, an instructor's scripts).
json internal(const Grade& g)
{
    json rungs = json::array();
    for (const RungResult& r : g.rungs) {
        json parts = json::array(), cases = json::array();
        for (const Part& p : r.parts) {
            json groups = json::array();
            for (const GroupScore& grp : p.groups)
                groups.push_back({{"name", grp.name}, {"score", grp.score}, {"max", grp.max}, {"passed", grp.passed},
                                  {"failed", grp.failed}, {"skipped", grp.skipped}});
            parts.push_back({{"name", p.name}, {"score", p.score}, {"max", p.max}, {"graded", p.graded},
                             {"note", p.note}, {"groups", groups}});
        }
        for (const CaseResult& c : r.cases) {
            json one = {{"name", c.name}, {"group", c.group}, {"hidden", c.hidden}, {"op", c.op}, {"input", c.input},
                        {"n", c.n}, {"seed", c.seed}, {"offset", c.offset}, {"block", c.block}, {"grid", c.grid},
                        {"status", c.status}, {"message", c.message}, {"expected", c.expected}, {"got", c.got},
                        {"first_wrong_block", c.first_wrong_block}, {"replay", c.replay}};
            if (c.seconds >= 0) one["seconds"] = c.seconds;
            if (!c.causes.empty()) one["causes"] = c.causes;
            cases.push_back(std::move(one));
        }
        const json sanitizer = {{"ran", r.sanitizer.ran()}, {"checks", r.sanitizer.checks},
                                {"findings", r.sanitizer.findings}, {"note", r.sanitizer.note}};
        const json lessons = {{"yours", r.lessons.yours}, {"reference", r.lessons.reference}, {"note", r.lessons.note}};
        rungs.push_back({{"id", r.id}, {"submitted", r.submitted}, {"built", r.built}, {"unrun", r.unrun},
                         {"build_log", r.build_log}, {"findings", r.findings}, {"sanitizer", sanitizer}, {"lessons", lessons},
                         {"score", r.score()}, {"max", r.max()}, {"seconds", r.seconds}, {"phases", r.phases},
                         {"gbps", r.gbps}, {"reuse_key", r.reuse_key}, {"graded_at", r.graded_at},
                         {"reused", r.reused}, {"parts", parts}, {"cases", cases}});
    }
    return {{"submission", g.submission}, {"backend", g.backend}, {"device", g.device}, {"seed", g.seed_text()},
            {"graded_at", g.graded_at},
            {"late", {{"policy", g.late.policy}, {"submitted_at", g.late.submitted_at}, {"due", g.late.due},
                      {"extended", g.late.extended}, {"days", g.late.days}, {"penalty", g.late.fraction},
                      {"earned", g.earned()}, {"note", g.late.note}}},
            {"hints", {{"recorded", g.hints.recorded}, {"levels", g.hints.levels}, {"points_off", g.hints.points_off},
                       {"note", g.hints.note}}},
            {"rubric", g.rubric}, {"sandbox", g.sandbox}, {"score", g.score()}, {"max", g.max()}, {"seconds", g.seconds},
            {"phases", g.phases}, {"cpu", g.cpu}, {"taken", g.taken}, {"ignored", g.ignored}, {"refused", g.refused}, {"rungs", rungs}};
}

}  // namespace

RungResult rung_from_json(const json& j)
{
    RungResult r;
    r.id = j.at("id").get<std::string>();
    r.submitted = j.at("submitted").get<bool>();
    r.built = j.at("built").get<bool>();
    r.unrun = j.at("unrun").get<std::string>();
    r.build_log = j.at("build_log").get<std::string>();
    r.findings = j.at("findings").get<std::vector<std::string>>();
    const json& sanitizer = j.at("sanitizer");
    r.sanitizer.checks = sanitizer.at("checks").get<std::vector<std::string>>();
    r.sanitizer.findings = sanitizer.at("findings").get<std::vector<std::string>>();
    r.sanitizer.note = sanitizer.at("note").get<std::string>();
    if (j.contains("lessons")) {
        const json& lessons = j.at("lessons");
        r.lessons.yours = lessons.at("yours").get<std::map<std::string, double>>();
        r.lessons.reference = lessons.at("reference").get<std::map<std::string, double>>();
        r.lessons.note = lessons.at("note").get<std::string>();
    }
    r.seconds = j.at("seconds").get<double>();
    r.phases = j.at("phases").get<std::map<std::string, double>>();
    r.gbps = j.at("gbps").get<double>();
    r.reuse_key = j.at("reuse_key").get<std::string>();
    r.graded_at = j.at("graded_at").get<std::string>();
    r.reused = j.at("reused").get<bool>();
    for (const json& p : j.at("parts")) {
        Part part;
        part.name = p.at("name").get<std::string>();
        part.score = p.at("score").get<double>();
        part.max = p.at("max").get<double>();
        part.graded = p.at("graded").get<bool>();
        part.note = p.at("note").get<std::string>();
        for (const json& grp : p.at("groups"))
            part.groups.push_back({grp.at("name").get<std::string>(), grp.at("score").get<double>(), grp.at("max").get<double>(),
                                   grp.at("passed").get<int>(), grp.at("failed").get<int>(), grp.at("skipped").get<int>()});
        r.parts.push_back(std::move(part));
    }
    for (const json& one : j.at("cases")) {
        CaseResult c;
        c.name = one.at("name").get<std::string>();
        c.group = one.at("group").get<std::string>();
        c.hidden = one.at("hidden").get<bool>();
        c.op = one.at("op").get<std::string>();
        c.input = one.at("input").get<std::string>();
        c.n = one.at("n").get<std::uint64_t>();
        c.seed = one.at("seed").get<std::uint64_t>();
        c.offset = one.at("offset").get<std::uint64_t>();
        c.block = one.at("block").get<unsigned>();
        c.grid = one.at("grid").get<unsigned>();
        c.status = one.at("status").get<std::string>();
        c.message = one.at("message").get<std::string>();
        c.expected = one.at("expected").get<std::string>();
        c.got = one.at("got").get<std::string>();
        c.first_wrong_block = one.at("first_wrong_block").get<long>();
        c.replay = one.at("replay").get<std::string>();
        c.seconds = one.value("seconds", -1.0);
        if (one.contains("causes")) c.causes = one.at("causes").get<std::vector<std::string>>();
        r.cases.push_back(std::move(c));
    }
    return r;
}

namespace {

std::string autolab(const Grade& g)
{
    std::string text = header(g) + "\n";
    json scores = json::object();
    for (const RungResult& r : g.rungs) {
        text += r.id + ": " + points(r.score()) + " / " + points(r.max()) + "\n";
        scores[r.id] = rounded(r.score());
    }
    return text + lab::json_text(json{{"scores", scores}}) + "\n";
}

std::string junit(const Grade& g)
{
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"lab-grade\">\n";
    for (const RungResult& r : g.rungs) {
        const int failures = r.count("failed") + (r.submitted && !r.built ? 1 : 0) + (r.sanitizer.findings.empty() ? 0 : 1);
        out << "  <testsuite name=\"" << lab::xml_escape(r.id) << "\" tests=\"" << r.cases.size() + (r.built ? 0 : 1) + (r.sanitizer.ran() ? 1 : 0)
            << "\" failures=\"" << failures << "\" skipped=\"" << r.count("skipped") << "\" time=\"" << r.seconds
            << "\">\n";
        if (!r.built)
            out << "    <testcase classname=\"" << lab::xml_escape(r.id) << "\" name=\"build\"><failure message=\""
                << lab::xml_escape(r.unrun) << "\">" << lab::xml_escape(r.build_log)
                << "</failure></testcase>\n";
        if (r.sanitizer.ran()) {
            out << "    <testcase classname=\"" << lab::xml_escape(r.id + ".sanitizer") << "\" name=\"sanitizer\">";
            if (!r.sanitizer.findings.empty()) {
                std::string text;
                for (const std::string& f : r.sanitizer.findings) text += f + "\n";
                out << "<failure message=\"" << lab::xml_escape(r.sanitizer.findings.front()) << "\">" << lab::xml_escape(text) << "</failure>";
            }
            out << "</testcase>\n";
        }
        for (const CaseResult& c : r.cases) {
            out << "    <testcase classname=\"" << lab::xml_escape(r.id + (c.hidden ? ".hidden" : ".visible")) << "\" name=\""
                << lab::xml_escape(c.op + "/" + c.name) << "\">";
            if (c.status == "failed")
                out << "<failure message=\"" << lab::xml_escape(case_line(c)) << "\">" << lab::xml_escape(c.message + "\nreplay: " + c.replay)
                    << "</failure>";
            else if (c.status == "skipped")
                out << "<skipped message=\"" << lab::xml_escape(c.message) << "\"/>";
            out << "</testcase>\n";
        }
        out << "  </testsuite>\n";
    }
    out << "</testsuites>\n";
    return out.str();
}

// Every measured rung's lesson numbers beside the reference's (lab/lesson_numbers.hpp), as
// information; "" when none was measured.
std::string lessons_table(const Grade& g)
{
    std::ostringstream out;
    std::string notes;
    bool any = false;
    for (const RungResult& r : g.rungs) {
        any |= r.lessons.measured();
        if (r.built && !r.lessons.measured() && !r.lessons.note.empty()) notes += "- " + r.id + ": " + r.lessons.note + "\n";
    }
    if (!any && notes.empty()) return "";
    out << "\n### The lessons, measured\n\nEach kernel run once on the CPU backend at n = 2^20 in blocks of 256, every "
           "load and store counted as `./lab explain` counts them; the reference's number in brackets. Information: "
           "points only where the rubric grades technique.\n\n| Rung |";
    for (const LessonNumber& number : lesson_numbers()) out << " " << number.what << " |";
    out << "\n|---|";
    for (std::size_t k = 0; k < lesson_numbers().size(); ++k) out << "---|";
    out << "\n";
    for (const RungResult& r : g.rungs) {
        if (!r.lessons.measured()) continue;
        out << "| " << r.id << " |";
        for (const LessonNumber& number : lesson_numbers()) {
            const auto yours = r.lessons.yours.find(number.name);
            const auto reference = r.lessons.reference.find(number.name);
            out << " " << (yours == r.lessons.yours.end() ? "-" : lesson_text(number.name, yours->second));
            if (reference != r.lessons.reference.end()) out << " (" << lesson_text(number.name, reference->second) << ")";
            out << " |";
        }
        out << "\n";
    }
    if (!notes.empty()) out << "\nNot measured:\n\n" << notes;
    return out.str();
}

std::string markdown(const Grade& g)
{
    std::ostringstream out;
    out << "## Grade: " << points(g.score()) << " / " << points(g.max()) << "\n\n" << header(g) << "\n\n";
    bool any_sanitizer = false, any_technique = false;
    for (const RungResult& r : g.rungs)
        any_sanitizer |= r.part("sanitizer") != nullptr, any_technique |= r.part("technique") != nullptr;
    std::vector<std::string> columns{"visible", "hidden", "speed"};
    if (any_sanitizer) columns.push_back("sanitizer");
    if (any_technique) columns.push_back("technique");
    out << "| Rung | Visible cases | Hidden cases | Speed " << (any_sanitizer ? "| Sanitizer " : "")
        << (any_technique ? "| Technique " : "") << "| Points |\n|---|---|---|---|" << (any_sanitizer ? "---|" : "")
        << (any_technique ? "---|" : "") << "---|\n";
    for (const RungResult& r : g.rungs) {
        out << "| " << r.id << " ";
        for (const std::string& part : columns) {
            const Part* p = r.part(part);
            if (!p) out << "| - ";
            else if (!r.built) out << "| " << r.unrun << " ";
            else if (!p->graded) out << "| not graded ";
            else if (part == "speed" || part == "technique") out << "| " << points(p->score) << " / " << points(p->max) << " ";
            else if (part == "sanitizer")
                out << "| " << points(p->score) << " / " << points(p->max)
                    << (r.sanitizer.findings.empty() ? "" : " (" + std::to_string(r.sanitizer.findings.size()) + " found)") << " ";
            else
                out << "| " << r.count("passed", part == "hidden") << " of "
                    << r.count("passed", part == "hidden") + r.count("failed", part == "hidden") << " passed ";
        }
        out << "| " << points(r.score()) << " / " << points(r.max()) << " |\n";
    }
    if (!g.late.note.empty())
        out << "\n**Late policy:** " << g.late.note
            << (g.late.fraction > 0 ? " (" + points(g.earned()) + " points earned, " + points(g.score()) + " counted)" : "") << ".\n";
    out << lessons_table(g);
    std::string reused;
    for (const RungResult& r : g.rungs)
        if (r.reused) reused += (reused.empty() ? "" : ", ") + r.id + " (graded " + r.graded_at + ")";
    if (!reused.empty())
        out << "\nReused from the earlier grading, their files and everything else their verdict depends on being "
               "unchanged: "
            << reused << ".\n";
    for (const RungResult& r : g.rungs) {
        int shown = 0;
        for (const CaseResult& c : r.cases) {
            if (c.status != "failed") continue;
            if (shown == 0) out << "\n### " << r.id << ": failing cases\n\n";
            if (shown++ >= kFailuresShown) continue;
            out << "- " << case_line(c) << "\n  `" << c.replay << "`\n";
        }
        if (shown > kFailuresShown) out << "- ... and " << shown - kFailuresShown << " more\n";
        if (r.submitted && !r.built) out << "\n### " << r.id << ": " << r.unrun << "\n\n```\n" << r.build_log << "\n```\n";
        if (!r.sanitizer.findings.empty()) {
            out << "\n### " << r.id << ": sanitizer findings\n\n";
            for (const std::string& f : r.sanitizer.findings) out << "- " << f << "\n";
        }
        if (const Part* p = r.part("technique"); p && r.built) {
            out << "\n### " << r.id << ": technique, " << points(p->score) << " / " << points(p->max) << "\n\n";
            std::istringstream lines(p->note);
            for (std::string line; std::getline(lines, line);) out << "- " << line << "\n";
        }
    }
    if (!g.refused.empty()) {
        out << "\n### Files refused\n\n";
        for (const auto& f : g.refused) out << "- " << f << "\n";
    }
    return out.str();
}

std::string gradebook(const Grade& g)
{
    std::string head = "submission,seed,score,max_score", row;
    row = lab::csv_field(g.submission) + "," + g.seed_text() + "," + points(g.score()) + "," + points(g.max());
    for (const RungResult& r : g.rungs) {
        head += "," + r.id;
        row += "," + points(r.score());
    }
    return head + "\n" + row + "\n";
}

std::string html(const Grade& g, const std::string& md)
{
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Grade: " << lab::xml_escape(g.submission)
        << "</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}pre{background:#f4f4f4;"
           "padding:1em;white-space:pre-wrap}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em}"
           "</style></head><body>\n<h1>"
        << points(g.score()) << " / " << points(g.max()) << "</h1>\n<p>" << lab::xml_escape(header(g)) << "</p>\n";
    bool any_speed = false;
    for (const RungResult& r : g.rungs) any_speed |= r.gbps > 0;
    if (any_speed) {
        double top = 1;
        for (const RungResult& r : g.rungs) top = std::max(top, r.gbps);
        out << "<h2>GB/s per rung</h2>\n<svg width=\"640\" height=\"" << 24 * g.rungs.size() + 10 << "\">\n";
        int row = 0;
        for (const RungResult& r : g.rungs) {
            const double width = 440 * r.gbps / top;
            out << "<text x=\"0\" y=\"" << 24 * row + 16 << "\" font-size=\"12\">" << lab::xml_escape(r.id) << "</text><rect x=\"160\" y=\""
                << 24 * row + 4 << "\" width=\"" << width << "\" height=\"16\" fill=\"#4a7\"/><text x=\"" << 165 + width
                << "\" y=\"" << 24 * row + 16 << "\" font-size=\"12\">" << static_cast<int>(r.gbps) << "</text>\n";
            ++row;
        }
        out << "</svg>\n";
    } else {
        out << "<p>No speed was measured in this run (no GPU, or speed not graded), so there is no chart of GB/s.</p>\n";
    }
    bool any_lessons = false;
    for (const RungResult& r : g.rungs) any_lessons |= r.lessons.measured();
    if (any_lessons) {
        out << "<h2>The lessons, measured</h2>\n<p>Each kernel run once on the CPU backend at n = 2^20 in blocks of 256; "
               "the reference's number in brackets. Information: points only where the rubric grades technique.</p>\n"
               "<table><tr><th>Rung</th>";
        for (const LessonNumber& number : lesson_numbers()) out << "<th>" << lab::xml_escape(number.what) << "</th>";
        out << "</tr>\n";
        for (const RungResult& r : g.rungs) {
            if (!r.lessons.measured()) continue;
            out << "<tr><td>" << lab::xml_escape(r.id) << "</td>";
            for (const LessonNumber& number : lesson_numbers()) {
                const auto yours = r.lessons.yours.find(number.name);
                const auto reference = r.lessons.reference.find(number.name);
                out << "<td>" << (yours == r.lessons.yours.end() ? "-" : lesson_text(number.name, yours->second))
                    << (reference == r.lessons.reference.end() ? "" : " (" + lesson_text(number.name, reference->second) + ")")
                    << "</td>";
            }
            out << "</tr>\n";
        }
        out << "</table>\n";
    }
    out << "<h2>Summary</h2>\n<pre>" << lab::xml_escape(md) << "</pre>\n<h2>Every case</h2>\n<table><tr><th>Rung</th><th>Case</th>"
        << "<th>Result</th><th>Message</th></tr>\n";
    for (const RungResult& r : g.rungs)
        for (const CaseResult& c : r.cases)
            out << "<tr><td>" << lab::xml_escape(r.id) << "</td><td>" << lab::xml_escape((c.hidden ? "hidden " : "") + c.op + " " + c.name)
                << "</td><td>" << c.status << "</td><td><pre>" << lab::xml_escape(c.message) << "</pre></td></tr>\n";
    out << "</table>\n</body></html>\n";
    return out.str();
}

void write(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

void write_reports(const Grade& grade, const std::string& dir)
{
    std::filesystem::create_directories(dir);
    const std::string md = markdown(grade);
    write(dir + "/grade.json", lab::json_text(internal(grade), 1) + "\n");
    write(dir + "/results.json", lab::json_text(gradescope(grade), 2) + "\n");
    write(dir + "/prairielearn.json", lab::json_text(prairielearn(grade), 2) + "\n");
    write(dir + "/autolab.txt", lab::valid_utf8(autolab(grade)));
    write(dir + "/junit.xml", junit(grade));
    write(dir + "/summary.md", lab::valid_utf8(md));
    write(dir + "/gradebook.csv", lab::valid_utf8(gradebook(grade)));
    write(dir + "/report.html", html(grade, md));
}

}  // namespace lab::grading
