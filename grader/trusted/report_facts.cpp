// TRUSTED SIDE. See report_facts.hpp.
#include "report_facts.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "lab/registry.hpp"
#include "lab/text.hpp"

namespace lab::grading {

namespace {

std::string cases_word(int n) { return n == 1 ? "case" : "cases"; }

// "135 wrong value, 2 crash", over the failed cases of one group (or of every group: "").
std::string kinds_of(const RungResult& r, bool hidden, const std::string& group)
{
    std::map<std::string, int> kinds;
    for (const CaseResult& c : r.cases)
        if (c.hidden == hidden && c.status == "failed" && (group.empty() || c.group == group)) ++kinds[failure_kind(c)];
    std::string text;
    for (const char* kind : {"wrong value", "crash", "time limit", "sanitizer"})
        if (kinds.count(kind)) text += (text.empty() ? "" : ", ") + std::to_string(kinds[kind]) + " " + kind;
    return text;
}

}  // namespace

bool hidden_shown(const Grade& g, Reader reader) { return reader == Reader::instructor || g.hidden_details; }

bool shown_in_full(const Grade& g, const CaseResult& c, Reader reader) { return !c.hidden || hidden_shown(g, reader); }

std::string failure_kind(const CaseResult& c)
{
    if (!c.kind.empty()) return c.kind;
    if (c.at_limit) return "time limit";
    const bool bad_address = c.kernel_error.find("IllegalAddress") != std::string::npos ||
                             c.kernel_error.find("illegal memory access") != std::string::npos ||
                             c.kernel_error.find("MisalignedAddress") != std::string::npos;
    if (c.overran || bad_address || (!c.passed_orders.empty() && !c.failed_orders.empty())) return "sanitizer";
    if (!c.kernel_error.empty() || (c.expected.empty() && c.got.empty())) return "crash";
    return "wrong value";
}

std::string points_text(double points)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", std::abs(points) < 5e-7 ? 0.0 : points);
    return text;
}

std::string part_title(const Part& p)
{
    if (p.name == "visible" || p.name == "hidden") return p.name + " cases";
    return p.name;
}

std::string part_arithmetic(const RungResult& r, const Part& p)
{
    const std::string of = points_text(p.score) + " of " + points_text(p.max);
    if (p.name != "visible" && p.name != "hidden") {
        std::string text = of;
        if (!p.graded) text = "not graded here, " + points_text(p.max) + " points in the maximum";
        if (!p.note.empty()) text += ": " + p.note.substr(0, p.note.find('\n'));
        return text;
    }
    if (!r.built) return of + ": " + r.unrun;
    const bool hidden = p.name == "hidden";
    const int passed = r.count("passed", hidden), failed = r.count("failed", hidden), skipped = r.count("skipped", hidden);
    std::string text;
    if (!p.graded)
        text = "not graded here (none of its " + std::to_string(skipped) + " " + cases_word(skipped) +
               " runs on this machine), " + points_text(p.max) + " points in the maximum";
    else
        text = std::to_string(passed) + " of " + std::to_string(passed + failed) + " " + cases_word(passed + failed) +
               " passed → " + of;
    if (p.graded && skipped) text += "; " + std::to_string(skipped) + " more not run here";
    if (p.graded && failed && hidden) text += "; failed: " + kinds_of(r, hidden, "");
    return text;
}

std::string group_cases(const GroupScore& group)
{
    const int run = group.passed + group.failed;
    if (run == 0) return "none run here";
    return std::to_string(group.passed) + " of " + std::to_string(run) + " " + cases_word(run);
}

std::string group_points(const GroupScore& group)
{
    if (group.passed + group.failed == 0) return "no share here";
    return points_text(group.score) + " of " + points_text(group.max);
}

std::string group_notes(const RungResult& r, const Part& p, const GroupScore& group)
{
    const bool hidden = p.name == "hidden";
    std::string text;
    if (group.failed) text = "failed: " + kinds_of(r, hidden, group.name);
    if (group.skipped) {
        // Why its cases were not run here (the plan's reason: "graded on a GPU only: larger than
        // the rubric's no_gpu.max_n"), the first one's: it says nothing of a case's parameters.
        std::string why;
        for (const CaseResult& c : r.cases)
            if (c.hidden == hidden && c.group == group.name && c.status == "skipped") {
                why = c.message;
                break;
            }
        text += (text.empty() ? "" : "; ") + std::to_string(group.skipped) + " " + cases_word(group.skipped) +
                " not run here" + (why.empty() ? "" : " (" + why + ")");
    }
    return text;
}

std::string group_arithmetic(const RungResult& r, const Part& p, const GroupScore& group)
{
    const std::string notes = group_notes(r, p, group);
    return group.name + ": " + group_cases(group) + " → " + group_points(group) + (notes.empty() ? "" : "; " + notes);
}

std::string case_line(const CaseResult& c)
{
    std::string text = (c.hidden ? "hidden " : "") + c.op + " " + c.name + " (n = " + std::to_string(c.n) + ", block " +
                       std::to_string(c.block) + ", grid " + std::to_string(c.grid) + ")";
    if (!c.expected.empty() || !c.got.empty())
        text += ": expected " + (c.expected.empty() ? std::string("?") : c.expected) + ", got " + c.got;
    if (c.first_wrong_block >= 0) text += ", first wrong block " + std::to_string(c.first_wrong_block);
    return text;
}

std::string likely_cause(const CaseResult& c)
{
    // The judge appends the diagnosis to the message (judge/case_verdict.cpp): each "Likely cause:"
    // from there on, and the thread orders' advice ("The same case passes when ...").
    std::string text;
    for (const std::string marker : {"Likely cause: ", "The same case passes when", "The results also differ"}) {
        const auto at = c.message.find(marker);
        if (at == std::string::npos) continue;
        std::string found = c.message.substr(at);
        if (marker == "Likely cause: ") found = found.substr(marker.size());
        // Several causes come a line each: one paragraph.
        for (std::size_t k; (k = found.find("\n  Likely cause: ")) != std::string::npos;) found.replace(k, 16, " Also: ");
        for (std::size_t k; (k = found.find('\n')) != std::string::npos;) found.replace(k, 1, " ");
        return found;
    }
    return text;
}

std::vector<const CaseResult*> failures_in_full(const Grade& g, const RungResult& r, Reader reader)
{
    std::vector<const CaseResult*> failed;
    for (const CaseResult& c : r.cases)
        if (c.status == "failed" && shown_in_full(g, c, reader)) failed.push_back(&c);
    return failed;
}

std::string hint_command(const RungResult& r) { return "./lab hint " + r.id.substr(0, 2); }

std::string about_the_grading(const Grade& g, Reader reader)
{
    std::string text = "Graded on " + g.device + " with the rubric " +
                       (reader == Reader::instructor ? g.rubric : g.rubric_name) + ", seed " + g.seed_text() +
                       ": `LAB_CASES_SEED=" + g.seed_text() +
                       " ./lab check NN` runs rung NN's visible cases on this grading's inputs.";
    if (g.hidden_details)
        text += " The rubric shows the hidden cases as it shows the visible ones ([hidden] details = true).";
    else if (reader == Reader::student)
        text += " Hidden cases are reported by group: how many passed, and how the others failed.";
    if (reader == Reader::instructor) {
        text += " The hidden inputs' seed (this record only): " + lab::seed_text(g.hidden_seed) +
                "; `lab-grade grade --seed " + g.seed_text() + "` replays the whole grading. Runners: " + g.sandbox + ".";
        for (const std::string& group : g.left_out) text += " Left out here: " + group + ".";
    }
    return text;
}

std::string total_text(const Grade& g) { return points_text(g.score()) + " / " + points_text(g.max()); }

std::string held_text(const Grade& g)
{
    const double held = g.held();
    if (held <= 0) return "";
    return points_text(held) + " of the " + points_text(g.max()) +
           " points were not graded here (each part says why) and stay in the maximum, which is the rubric's on "
           "every machine: a re-grade where they can run (a GPU, for speed) earns them.";
}

std::string console_table(const Grade& g)
{
    std::ostringstream out;
    out << "  points, as every report gives them:\n";
    for (const RungResult& r : g.rungs) {
        char line[96];
        std::snprintf(line, sizeof line, "  %-20s %7s / %6s  ", r.id.c_str(), points_text(r.score()).c_str(), points_text(r.max()).c_str());
        out << line;
        std::string parts;
        for (const Part& p : r.parts)
            parts += (parts.empty() ? "" : ", ") + p.name + " " +
                     (p.graded ? points_text(p.score) + " of " + points_text(p.max) : "not graded here (" + points_text(p.max) + ")");
        out << (r.built || r.reused ? parts : r.unrun) << '\n';
    }
    if (const std::string held = held_text(g); !held.empty()) out << "  " << held << '\n';
    if (!g.late.note.empty()) out << "  late policy: " << g.late.note << '\n';
    return out.str();
}

std::string lessons_measured_how(const Grade& g)
{
    std::string elsewhere;
    for (const RungResult& r : g.rungs) {
        if (!r.lessons.measured()) continue;
        const RungInfo* rung = Registry::kit().find(r.id);
        if (rung && !rung->lessons_at_what.empty())
            elsewhere += (elsewhere.empty() ? "" : "; ") + r.id + ": " + rung->lessons_at_what;
    }
    return "Each kernel run once on the CPU backend at n = 2^20 in blocks of 256" +
           (elsewhere.empty() ? std::string() : " (" + elsewhere + ")") +
           ", every load and store counted as ./lab explain counts them; the reference's number in brackets. "
           "Information: points only where the rubric grades technique.";
}

}  // namespace lab::grading
