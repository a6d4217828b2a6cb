// TRUSTED SIDE. See reports.hpp.
#include "reports.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "builder.hpp"
#include "categories.hpp"
#include "lab/json_text.hpp"
#include "lab/lesson_numbers.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "plan.hpp"
#include "report_facts.hpp"
#include "report_page.hpp"

namespace lab::grading {

namespace {

using nlohmann::json;
constexpr int kFailuresShown = 5;  // per rung, in a report's list of failing cases

double rounded(double v) { return std::round(v * 1000.0) / 1000.0; }

// The failing cases of one part (visible or hidden) as a report lists them: what came back, the
// likely cause and the TODO it points to, and the replay line; then the next hint. Only cases the
// reader may see in full: a hidden group's line says how its cases failed.
std::string failure_text(const Grade& g, const RungResult& r, Reader reader, bool hidden)
{
    std::vector<const CaseResult*> failed;
    for (const CaseResult* c : failures_in_full(g, r, reader))
        if (c->hidden == hidden) failed.push_back(c);
    std::string text;
    for (std::size_t k = 0; k < failed.size() && k < kFailuresShown; ++k) {
        const CaseResult& c = *failed[k];
        const std::string cause = likely_cause(c);
        text += "- " + case_line(c) + "\n  likely cause: " +
                (cause.empty() ? "none the kit recognises (compare expected and got, and replay it)" : cause) +
                "\n  replay: " + c.replay + "\n";
    }
    if (failed.size() > kFailuresShown)
        text += "- ... and " + std::to_string(failed.size() - kFailuresShown) + " more failing cases (`./lab check " +
                r.id.substr(0, 2) + "` shows them one by one)\n";
    if (!failed.empty() && !hidden) text += "\nStuck? `" + hint_command(r) + "` shows the next hint, one more each time.\n";
    return text;
}

// What a part's test says on a platform (Gradescope, PrairieLearn): its arithmetic, each group's,
// and for the visible part the failing cases.
std::string part_output(const Grade& g, const RungResult& r, const Part& p, Reader reader)
{
    if (!r.submitted) return "Not submitted: no exercises/" + r.id + ".cu in the submission.";
    if (!r.built) return "exercises/" + r.id + ".cu: " + r.unrun + ":\n" + r.build_log;
    std::string text = part_title(p) + ": " + part_arithmetic(r, p) + "\n";
    for (const GroupScore& grp : p.groups) text += "  " + group_arithmetic(r, p, grp) + "\n";
    if (p.name == "sanitizer" || p.name == "technique") {
        const auto rest = p.note.find('\n');
        if (rest != std::string::npos) text += p.note.substr(rest + 1) + "\n";
    }
    if (p.name == "visible" || p.name == "hidden") text += failure_text(g, r, reader, p.name == "hidden");
    return text;
}

json gradescope(const Grade& g, Reader reader)
{
    json tests = json::array();
    json leaderboard = json::array();
    int number = 0;
    for (const RungResult& r : g.rungs) {
        ++number;
        int sub = 0;
        for (const Part& p : r.parts) {
            // A hidden part's test appears once grades are published, so that a resubmission is no
            // quick oracle of which hidden group it now passes.
            const std::string visibility = p.name == "hidden" && !g.hidden_details ? "after_published" : "visible";
            json test = {{"name", r.id + " " + part_title(p)},
                         {"number", std::to_string(number) + "." + std::to_string(++sub)},
                         // A penalty (the sanitizer's) shows as 0 here; the top-level score takes it off.
                         {"score", rounded(std::max(0.0, p.score))},
                         {"max_score", rounded(p.max)},
                         {"output", part_output(g, r, p, reader)},
                         {"tags", {r.id, p.name}},
                         {"visibility", visibility}};
            // A part not graded here is neither passed nor failed: its output says why.
            if (p.graded)
                test["status"] = p.score >= p.max && (p.name != "sanitizer" || r.sanitizer.findings.empty()) ? "passed" : "failed";
            tests.push_back(std::move(test));
        }
        if (r.gbps > 0) leaderboard.push_back({{"name", r.id + " GB/s"}, {"value", rounded(r.gbps)}, {"order", "desc"}});
    }
    std::string output = total_text(g) + " points. " + about_the_grading(g, reader);
    if (const std::string held = held_text(g); !held.empty()) output += " " + held;
    if (!g.late.note.empty()) output += " Late policy: " + g.late.note + ".";
    json doc = {{"score", rounded(g.score())},
                {"execution_time", static_cast<int>(std::ceil(g.seconds))},
                {"output", output},
                {"output_format", "text"},
                {"visibility", "visible"},
                {"stdout_visibility", "hidden"},
                {"extra_data", {{"seed", g.seed_text()}, {"backend", g.backend}, {"device", g.device},
                                {"max_score", rounded(g.max())}}},
                {"tests", tests}};
    if (!leaderboard.empty()) doc["leaderboard"] = leaderboard;
    return doc;
}

json prairielearn(const Grade& g, Reader reader)
{
    json tests = json::array();
    for (const RungResult& r : g.rungs)
        for (const Part& p : r.parts)
            tests.push_back({{"name", r.id + " " + part_title(p)},
                             {"points", rounded(std::max(0.0, p.score))},
                             {"max_points", rounded(p.max)},
                             {"message", part_arithmetic(r, p)},
                             {"output", part_output(g, r, p, reader)}});
    const double max = g.max();
    std::string message = about_the_grading(g, reader);
    if (const std::string held = held_text(g); !held.empty()) message += " " + held;
    return {{"gradable", true},
            {"score", max > 0 ? std::min(1.0, std::max(0.0, g.score() / max)) : 0.0},
            {"message", message},
            {"output", points_text(g.score()) + " of " + points_text(max) + " points"},
            {"tests", tests}};
}

// The whole result, for tools (the corpus check, an instructor's scripts).
json internal(const Grade& g)
{
    const auto categories = grading_categories();
    json rungs = json::array();
    for (const RungResult& r : g.rungs) {
        json parts = json::array();
        for (const Part& p : r.parts) {
            json groups = json::array();
            for (const GroupScore& grp : p.groups)
                groups.push_back({{"name", grp.name}, {"score", grp.score}, {"max", grp.max}, {"passed", grp.passed},
                                  {"failed", grp.failed}, {"skipped", grp.skipped}});
            parts.push_back({{"name", p.name}, {"score", p.score}, {"max", p.max}, {"graded", p.graded},
                             {"note", p.note}, {"groups", groups}});
        }
        json rung = {{"id", r.id}, {"submitted", r.submitted}, {"built", r.built}, {"unrun", r.unrun},
                     {"build_log", r.build_log}, {"findings", r.findings}, {"score", r.score()}, {"max", r.max()},
                     {"seconds", r.seconds}, {"phases", r.phases}, {"reuse_key", r.reuse_key}, {"graded_at", r.graded_at},
                     {"reused", r.reused}, {"parts", parts}};
        // Each category's own fields (its schema fragment: grader/schemas/categories/).
        for (const auto& category : categories) category->report(r, rung);
        rungs.push_back(std::move(rung));
    }
    return {{"submission", g.submission}, {"backend", g.backend}, {"device", g.device}, {"seed", g.seed_text()},
            {"hidden_seed", lab::seed_text(g.hidden_seed)}, {"hidden_details", g.hidden_details}, {"left_out", g.left_out},
            {"partial", g.proportional ? "proportional" : "all_or_nothing"},
            {"held", g.held()}, {"graded_at", g.graded_at},
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
    r.seconds = j.at("seconds").get<double>();
    r.phases = j.at("phases").get<std::map<std::string, double>>();
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
    for (const auto& category : grading_categories()) category->read(j, r);
    return r;
}

namespace {

std::string autolab(const Grade& g, Reader reader)
{
    std::string text = total_text(g) + " points. " + about_the_grading(g, reader) + "\n";
    if (const std::string held = held_text(g); !held.empty()) text += held + "\n";
    json scores = json::object();
    for (const RungResult& r : g.rungs) {
        text += r.id + ": " + points_text(r.score()) + " / " + points_text(r.max()) + "\n";
        for (const Part& p : r.parts) {
            text += "  " + part_title(p) + ": " + part_arithmetic(r, p) + "\n";
            for (const GroupScore& grp : p.groups) text += "    " + group_arithmetic(r, p, grp) + "\n";
        }
        scores[r.id] = rounded(r.score());
    }
    return text + lab::json_text(json{{"scores", scores}}) + "\n";
}

// A test case per visible case; per hidden group one (its name says nothing of its cases' sizes),
// failed when any of its cases failed, with how many and how, unless the reader sees them in full.
std::string junit(const Grade& g, Reader reader)
{
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"lab-grade\">\n";
    for (const RungResult& r : g.rungs) {
        std::vector<std::string> cases;
        int failures = 0, skipped = 0;
        const auto testcase = [&](const std::string& classname, const std::string& name, const std::string& failure,
                                  const std::string& detail, bool skip) {
            std::string text = "    <testcase classname=\"" + lab::xml_escape(classname) + "\" name=\"" + lab::xml_escape(name) + "\">";
            if (!failure.empty()) {
                text += "<failure message=\"" + lab::xml_escape(failure) + "\">" + lab::xml_escape(detail) + "</failure>";
                ++failures;
            } else if (skip) {
                text += "<skipped message=\"" + lab::xml_escape(detail) + "\"/>";
                ++skipped;
            }
            cases.push_back(text + "</testcase>\n");
        };
        if (!r.built) testcase(r.id, "build", r.unrun, r.build_log, false);
        if (r.sanitizer.ran()) {
            std::string text;
            for (const std::string& f : r.sanitizer.findings) text += f + "\n";
            testcase(r.id + ".sanitizer", "sanitizer", r.sanitizer.findings.empty() ? "" : r.sanitizer.findings.front(), text, false);
        }
        for (const Part& p : r.parts)
            if (!p.graded) testcase(r.id + "." + p.name, p.name, "", part_arithmetic(r, p), true);
        for (const CaseResult& c : r.cases) {
            if (!shown_in_full(g, c, reader)) continue;
            const std::string cause = likely_cause(c);
            testcase(r.id + (c.hidden ? ".hidden." : ".visible.") + c.group, c.op + "/" + c.name, c.status == "failed" ? case_line(c) : "",
                     c.status == "failed" ? c.message + (cause.empty() ? "" : "\nlikely cause: " + cause) + "\nreplay: " + c.replay +
                                                "\nnext hint: " + hint_command(r)
                                          : c.message,
                     c.status == "skipped");
        }
        if (const Part* hidden = r.part("hidden"); hidden && !hidden_shown(g, reader))
            for (const GroupScore& grp : hidden->groups)
                testcase(r.id + ".hidden", grp.name, grp.failed ? group_arithmetic(r, *hidden, grp) : "",
                         group_arithmetic(r, *hidden, grp), grp.passed + grp.failed == 0);
        out << "  <testsuite name=\"" << lab::xml_escape(r.id) << "\" tests=\"" << cases.size() << "\" failures=\"" << failures
            << "\" skipped=\"" << skipped << "\" time=\"" << r.seconds << "\">\n";
        for (const std::string& c : cases) out << c;
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
    out << "\n### The lessons, measured\n\n" << lessons_measured_how(g) << "\n\n| Rung |";
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

// The Markdown summary (a CI job's summary page): the same facts as the HTML page.
std::string markdown(const Grade& g, Reader reader)
{
    std::ostringstream out;
    out << "## Grade: " << total_text(g) << "\n\n" << about_the_grading(g, reader) << "\n";
    if (const std::string held = held_text(g); !held.empty()) out << "\n" << held << "\n";
    if (!g.late.note.empty())
        out << "\n**Late policy:** " << g.late.note
            << (g.late.fraction > 0 ? " (" + points_text(g.earned()) + " points earned, " + points_text(g.score()) + " counted)" : "") << ".\n";
    out << "\n| Rung | Points | What |\n|---|---|---|\n";
    for (const RungResult& r : g.rungs) {
        std::string what;
        if (!r.built && !r.reused) what = r.unrun;
        else
            for (const Part& p : r.parts)
                what += (what.empty() ? "" : "; ") + part_title(p) + " " +
                        (p.graded ? points_text(p.score) + " of " + points_text(p.max) : "not graded here");
        out << "| " << r.id << " | " << points_text(r.score()) << " / " << points_text(r.max()) << " | " << what << " |\n";
    }
    out << lessons_table(g);
    std::string reused;
    for (const RungResult& r : g.rungs)
        if (r.reused) reused += (reused.empty() ? "" : ", ") + r.id + " (graded " + r.graded_at + ")";
    if (!reused.empty())
        out << "\nReused from the earlier grading, their files and everything else their verdict depends on being "
               "unchanged: "
            << reused << ".\n";
    for (const RungResult& r : g.rungs) {
        if (!r.submitted && !r.reused) continue;
        out << "\n### " << r.id << ": " << points_text(r.score()) << " / " << points_text(r.max()) << "\n\n";
        if (r.submitted && !r.built && !r.reused) {
            out << r.unrun << ":\n\n```\n" << r.build_log << "\n```\n";
            continue;
        }
        for (const Part& p : r.parts) {
            out << "- " << part_title(p) << ": " << part_arithmetic(r, p) << "\n";
            for (const GroupScore& grp : p.groups) out << "  - " << group_arithmetic(r, p, grp) << "\n";
            if (p.name == "sanitizer" || p.name == "technique") {
                std::istringstream lines(p.note);
                std::string line;
                std::getline(lines, line);  // (the first line is in the arithmetic)
                while (std::getline(lines, line)) out << "  - " << (line.rfind("- ", 0) == 0 ? line.substr(2) : line) << "\n";
            }
        }
        for (const bool hidden : {false, true}) {
            const std::string failing = failure_text(g, r, reader, hidden);
            if (failing.empty()) continue;
            out << "\n" << (hidden ? "Failing hidden cases" : "Failing visible cases") << ":\n\n";
            std::istringstream lines(failing);
            for (std::string line; std::getline(lines, line);) {
                if (line.rfind("  replay: ", 0) == 0) line = "  replay: `" + line.substr(10) + "`";
                out << line << "\n";
            }
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
    row = lab::csv_field(std::filesystem::path(g.submission).filename().string()) + "," + g.seed_text() + "," +
          points_text(g.score()) + "," + points_text(g.max());
    for (const RungResult& r : g.rungs) {
        head += "," + r.id;
        row += "," + points_text(r.score());
    }
    return head + "\n" + row + "\n";
}

// The grade.json a student may see: the instructor's record less what it holds of the hidden
// cases (each one's parameters, seed, message and replay line, and the hidden inputs' seed) and
// the grading machine's paths; in their place, each hidden group's failures by kind. With the
// rubric's [hidden].details, the hidden cases stay, as the other reports show them.
json student_copy(json record, const Grade& g)
{
    record.erase("hidden_seed");
    record.erase("sandbox");
    record["rubric"] = g.rubric_name;
    record["submission"] = std::filesystem::path(g.submission).filename().string();
    if (g.hidden_details) return record;
    for (json& rung : record["rungs"]) {
        std::map<std::string, std::map<std::string, int>> kinds;  // by hidden group
        json cases = json::array();
        for (json& c : rung["cases"]) {
            if (!c["hidden"].get<bool>()) {
                cases.push_back(std::move(c));
                continue;
            }
            if (c["status"] == "failed") ++kinds[c["group"].get<std::string>()][c["kind"].get<std::string>()];
        }
        rung["cases"] = std::move(cases);
        for (json& part : rung["parts"])
            if (part["name"] == "hidden")
                for (json& group : part["groups"]) group["failures"] = kinds[group["name"].get<std::string>()];
    }
    return record;
}

void write(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
}

void replace_all(std::string& text, const std::string& from, const std::string& to)
{
    if (from.empty()) return;
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
}

}  // namespace

std::string without_machine_paths(std::string text, const Grade& g, const std::string& out_dir)
{
    // Longest first: the build tree lies inside the kit, a report folder may too.
    // (A Grade made by hand, as the kit's tests make one, has no submission.)
    if (!g.submission.empty())
        replace_all(text, std::filesystem::absolute(g.submission).lexically_normal().string(),
                    std::filesystem::path(g.submission).filename().string());
    // A path inside one of these loses its prefix; the folder itself, as a build command names it
    // ("cmake_transform_depfile Ninja gccdepfile KIT grader ..."), becomes ".".
    std::string out = std::filesystem::absolute(out_dir).lexically_normal().string();
    if (out.size() > 1 && out.back() == '/') out.pop_back();
    const std::string folders[] = {out, grading_build_dir(), lab::kit_root()};
    for (const std::string& folder : folders) replace_all(text, folder + "/", "");
    for (const std::string& folder : folders) replace_all(text, folder, ".");
    return text;
}

void write_reports(const Grade& grade, const std::string& dir)
{
    std::filesystem::create_directories(dir + "/instructor");
    const json record = internal(grade);
    // The instructor's copy: everything, the hidden cases too.
    write(dir + "/instructor/grade.json", lab::json_text(record, 1) + "\n");
    write(dir + "/instructor/report.html", report_page(grade, Reader::instructor));
    // What a student may see (every other file here): no hidden case's parameters or seed, unless
    // the rubric says so, and no path of the grading machine.
    const auto student = [&](const std::string& name, const std::string& text) {
        write(dir + "/" + name, without_machine_paths(text, grade, dir));
    };
    student("grade.json", lab::json_text(student_copy(record, grade), 1) + "\n");
    student("results.json", lab::json_text(gradescope(grade, Reader::student), 2) + "\n");
    student("prairielearn.json", lab::json_text(prairielearn(grade, Reader::student), 2) + "\n");
    student("autolab.txt", lab::valid_utf8(autolab(grade, Reader::student)));
    student("junit.xml", junit(grade, Reader::student));
    student("summary.md", lab::valid_utf8(markdown(grade, Reader::student)));
    student("gradebook.csv", lab::valid_utf8(gradebook(grade)));
    student("report.html", report_page(grade, Reader::student));
}

}  // namespace lab::grading
