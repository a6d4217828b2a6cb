// Kit test tool (trusted side): compares a grading run's grade.json with the verdict a corpus
// submission must get (grader/corpus/NAME/expect.json). Exit 0 when every rung's verdict matches;
// else 1, with one line per mismatch.
//   lab-corpus-check EXPECT.json GRADE.json
//
// expect.json's "expect" maps a rung id to:
//   "score":   "full" (every point graded here), "zero" or "partial" (more than zero, less than full)
//   "unrun":   a text the rung's reason for not running must contain ("refused", "unfinished", ...)
//   "failing": a regular expression every failing case's "op/name" must match, and at least one must
//   "passing": a regular expression some passing case's "op/name" must match
//   "speed":   "zero" or "full": the speed part's points, where it was graded (on a GPU)
//   "correctness": "full": every point of the visible and hidden parts
//   "most":    a fraction of the rung's points it may not exceed: for a kernel that hands back 0 or a
//              multiple of the sum, which a case whose random input happens to sum to 0 lets pass
//   "message": a regular expression some failed case's message must match
//   "log":     a regular expression the rung's build log must match (why the screen refused it)
//   "findings": regular expressions each of which some integrity finding must match; a rung
//              without it must have no finding at all
//   "sanitizer_findings": the same for the sanitizer category's findings
//   "sanitizer": "full", "zero" or "penalty": the sanitizer part's points
//   "technique": "full" or "zero": the technique part's points (the part must be there and graded)
//   "lessons": "measured": the rung's lesson numbers and the reference's are all there
// Any of these may instead be an object of values by backend, {"cuda": ..., "cpu": ...}: a GPU's
// tools and the CPU backend's thread orders see different things. A backend it does not name has
// no such expectation.
// A rung not named there must get no points at all. Beside "expect":
//   "max":     the grading's maximum, which is the rubric's on every machine (held points included)
//   "graded":  the rungs the grading holds, and no other (the rungs the rubric assigns) Whatever the entry, the grading's phase times
// must account for its time (see time_accounted below).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lab/json_text.hpp"

int main(int argc, char** argv)
{
    CLI::App app{"lab-corpus-check: a corpus submission's grading (its grade.json) against the verdicts it must get "
                 "(its expect.json)"};
    std::string expect_path, grade_path;
    app.add_option("EXPECT", expect_path, "the entry's expect.json")->required()->check(CLI::ExistingFile);
    app.add_option("GRADE", grade_path, "the grading's grade.json")->required()->check(CLI::ExistingFile);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return e.get_exit_code() == 0 ? 0 : 2;
    }
    nlohmann::json expect, grade;
    try {
        expect = nlohmann::json::parse(std::ifstream(expect_path));
        grade = nlohmann::json::parse(std::ifstream(grade_path));
    } catch (const std::exception& e) {
        std::cerr << "lab-corpus-check: " << e.what() << " (reading " << (expect.is_null() ? expect_path : grade_path) << ")\n";
        return 2;
    }
    const auto& wanted = expect.at("expect");
    int mismatches = 0;
    std::vector<std::string> said;  // said again at the end, where a log cut short to its tail still shows them
    auto mismatch = [&](const std::string& rung, const std::string& what) {
        said.push_back("MISMATCH " + rung + ": " + what);
        std::cout << said.back() << '\n';
        ++mismatches;
    };
    if (expect.contains("max") && std::abs(grade.at("max").get<double>() - expect.at("max").get<double>()) > 1e-9)
        mismatch("(the grading)", "its maximum is " + std::to_string(grade.at("max").get<double>()) + ", the rubric's " +
                                      std::to_string(expect.at("max").get<double>()));
    if (expect.contains("graded")) {
        std::vector<std::string> graded;
        for (const auto& rung : grade.at("rungs")) graded.push_back(rung.at("id").get<std::string>());
        if (graded != expect.at("graded").get<std::vector<std::string>>())
            mismatch("(the grading)", "it graded " + nlohmann::json(graded).dump() + ", not " + expect.at("graded").dump());
    }
    // Every grading's phases (grade.json "phases", grader/DEVELOPING.md) account for its time: their sum is
    // within the whole, and covers most of it; each rung's cases, runner start-up and checking likewise.
    // The spans that run beside others (the CPU backend's build, the runners' build, the
    // sanitizer's and the lessons' passes) are left out, and gpu_wait, which lies within cases and after_cases (every rung's
    // waits together, where two gradings share a GPU): the phases that follow each other are the
    // grading's time (grader/DEVELOPING.md; batch/phase_table.py leaves out the same five).
    auto phase_sum = [](const nlohmann::json& phases, const std::set<std::string>& left_out) {
        double sum = 0;
        for (const auto& [name, seconds] : phases.items())
            if (!left_out.count(name)) sum += seconds.get<double>();
        return sum;
    };
    const auto time_accounted = [&](const std::string& what, double sum, double whole) {
        if (sum > whole + 0.5 || sum < 0.6 * whole - 0.25)
            mismatch(what, "its phases add up to " + std::to_string(sum) + " s of its " + std::to_string(whole) + " s");
    };
    time_accounted("the grading", phase_sum(grade.at("phases"), {"cpu_backend_build", "runners_build", "sanitizer", "lessons", "gpu_wait"}),
                   grade.at("seconds").get<double>());
    // Its cores (grade.json "cpu"): no more than every core for the whole grading, lab-grade's own
    // time counted, and the builds' and the runners' under their parts, where anything was built or run.
    {
        const auto& cpu = grade.at("cpu");
        double sum = 0;
        for (const auto& [account, spent] : cpu.items()) sum += spent.get<double>();
        const double whole = grade.at("seconds").get<double>() * std::max(1u, std::thread::hardware_concurrency());
        if (sum > whole + 1 || cpu.value("grader", 0.0) <= 0)
            mismatch("the grading", "its cores add up to " + std::to_string(sum) + " s of a core, lab-grade's own " +
                                        std::to_string(cpu.value("grader", 0.0)) + " s, in " +
                                        std::to_string(grade.at("seconds").get<double>()) + " s of wall time");
        bool built = false, ran = false;
        for (const auto& rung : grade.at("rungs")) {
            built |= rung.at("built").get<bool>() && !rung.at("reused").get<bool>();
            for (const auto& c : rung.at("cases")) ran |= !rung.at("reused").get<bool>() && c.value("seconds", -1.0) >= 0;
        }
        if (built && cpu.value("build", 0.0) <= 0) mismatch("the grading", "a rung was built, but no build's time was counted");
        if (ran && cpu.value("cases", 0.0) <= 0) mismatch("the grading", "cases ran, but no runner's time was counted");
    }
    for (const auto& rung : grade.at("rungs")) {
        const auto& phases = rung.at("phases");
        double case_seconds = 0;
        bool ran = false;
        for (const auto& c : rung.at("cases"))
            if (c.contains("seconds")) case_seconds += c.at("seconds").get<double>(), ran = true;
        if (ran) {
            const std::string id = rung.at("id");
            const double visible = phases.value("visible_cases", -1.0), hidden = phases.value("hidden_cases", -1.0);
            if (std::abs(visible + hidden - case_seconds) > 1e-6)
                mismatch(id, "its visible and hidden phases (" + std::to_string(visible + hidden) + " s) are not its cases' " +
                                 std::to_string(case_seconds) + " s");
            if (phases.value("large_cases", -1.0) < 0 || phases.value("large_cases", 0.0) > visible + hidden + 1e-6)
                mismatch(id, "its large cases' phase is missing or more than all its cases'");
            // A rung's phases are contiguous spans of its time (grader/DEVELOPING.md): they cover it to
            // within a scheduler's hiccup, and a span of work left out of them shows here.
            const double whole = rung.at("seconds").get<double>();
            const double sum = phases.value("preparing", -1.0) + phases.value("runner_start", -1.0) + visible + hidden +
                               phases.value("checking", -1.0);
            if (std::abs(sum - whole) > 0.1 + 0.02 * whole) {
                std::string parts;
                for (const char* name : {"preparing", "runner_start", "visible_cases", "hidden_cases", "checking"})
                    parts += std::string(parts.empty() ? "" : ", ") + name + " " + std::to_string(phases.value(name, -1.0));
                mismatch(id, "its phases add up to " + std::to_string(sum) + " s of its " + std::to_string(whole) + " s (" +
                                 parts + ")");
            }
        }
    }
    for (const auto& rung : grade.at("rungs")) {
        const std::string id = rung.at("id");
        const double score = rung.at("score");
        // The points graded here: the rung's maximum less its parts not graded here (speed without
        // a GPU), which stay in the maximum for a re-grade (grader/rubric.toml).
        double max = 0;
        for (const auto& part : rung.at("parts"))
            if (part.at("graded").get<bool>()) max += part.at("max").get<double>();
        const std::string unrun = rung.at("unrun");
        std::cout << id << ": " << score << " / " << rung.at("max").get<double>() << " (" << max << " graded here)"
                  << (unrun.empty() ? "" : " (" + unrun + ")") << '\n';
        if (!wanted.contains(id)) {
            if (score != 0) mismatch(id, "not in expect.json, so it must earn nothing; it earned " + std::to_string(score));
            continue;
        }
        // A key whose value is an object of values by backend ("cuda", "cpu") takes this run's value,
        // or none (the key is left out) when the object has none for it.
        nlohmann::json w = nlohmann::json::object();
        for (const auto& [key, value] : wanted.at(id).items()) {
            if (value.is_object() && (value.contains("cuda") || value.contains("cpu"))) {
                if (value.contains(grade.value("backend", ""))) w[key] = value.at(grade.value("backend", ""));
            } else {
                w[key] = value;
            }
        }
        const std::string verdict = w.value("score", "");
        if (verdict == "full" && !(max > 0 && score == max))
            mismatch(id, "expected full marks, got " + std::to_string(score) + " of " + std::to_string(max));
        if (verdict == "zero" && score != 0) mismatch(id, "expected zero, got " + std::to_string(score));
        if (verdict == "partial" && !(score > 0 && score < max))
            mismatch(id, "expected partial credit, got " + std::to_string(score) + " of " + std::to_string(max));
        if (w.contains("most") && score > w.at("most").get<double>() * max)
            mismatch(id, "expected at most " + std::to_string(w.at("most").get<double>() * max) + " points, got " +
                             std::to_string(score));
        if (w.contains("unrun") && unrun.find(w.at("unrun").get<std::string>()) == std::string::npos)
            mismatch(id, "expected it not to run for \"" + w.at("unrun").get<std::string>() + "\", but: \"" + unrun + "\"");
        for (const auto& part : rung.at("parts"))
            if (w.value("correctness", "") == "full" && (part.at("name") == "visible" || part.at("name") == "hidden") &&
                part.at("score").get<double>() != part.at("max").get<double>())
                mismatch(id, "expected every " + part.at("name").get<std::string>() + " point, got " +
                                 std::to_string(part.at("score").get<double>()) + " of " +
                                 std::to_string(part.at("max").get<double>()));
        for (const auto& part : rung.at("parts")) {
            if (part.at("name") != "speed" || !part.at("graded").get<bool>() || !w.contains("speed")) continue;
            const double points = part.at("score"), most = part.at("max");
            if (w.at("speed") == "zero" && points != 0)
                mismatch(id, "expected no speed points, got " + std::to_string(points) + ": " + part.at("note").get<std::string>());
            if (w.at("speed") == "full" && points != most)
                mismatch(id, "expected every speed point, got " + std::to_string(points) + ": " + part.at("note").get<std::string>());
        }
        int failing = 0, passing_matched = 0;
        const std::regex failing_pattern(w.value("failing", ".*")), passing_pattern(w.value("passing", ".*"));
        for (const auto& c : rung.at("cases")) {
            const std::string name = c.at("op").get<std::string>() + "/" + c.at("name").get<std::string>();
            if (c.at("status") == "failed") {
                ++failing;
                if (!std::regex_search(name, failing_pattern))
                    mismatch(id, "case " + name + " failed, but only cases matching " + w.value("failing", "") +
                                     " should: " + c.at("message").get<std::string>().substr(0, 400));
            }
            if (c.at("status") == "passed" && std::regex_search(name, passing_pattern)) ++passing_matched;
        }
        // "message": why the cases failed, as a pattern some failed case's message must match.
        if (w.contains("message")) {
            const std::regex why(w.at("message").get<std::string>());
            bool said = false;
            for (const auto& c : rung.at("cases"))
                said |= c.at("status") == "failed" && std::regex_search(c.at("message").get<std::string>(), why);
            if (!said) mismatch(id, "no failed case says why as expected (" + w.at("message").get<std::string>() + ")");
        }
        if (w.contains("log") && !std::regex_search(rung.value("build_log", ""), std::regex(w.at("log").get<std::string>())))
            mismatch(id, "its build log does not say " + w.at("log").get<std::string>() + ": " + rung.value("build_log", "").substr(0, 400));
        // "findings": patterns each of which some integrity finding must match; without it, none may be found.
        const auto& found = rung.at("findings");
        if (w.contains("findings")) {
            for (const auto& pattern : w.at("findings")) {
                const std::regex wanted(pattern.get<std::string>());
                bool matched = false;
                for (const auto& f : found) matched |= std::regex_search(f.get<std::string>(), wanted);
                if (!matched) mismatch(id, "no integrity finding matches " + pattern.get<std::string>() + " (found: " + lab::json_text(found) + ")");
            }
        } else if (!found.empty()) {
            mismatch(id, "the integrity checks found what no one planted: " + lab::json_text(found));
        }
        // "sanitizer_findings": patterns each of which some finding of the sanitizer category must match
        // (a list, or an object of lists by backend: "cuda", "cpu"); without it, none may be found.
        const auto& pass = rung.at("sanitizer");
        const auto& sanitized = pass.at("findings");
        const nlohmann::json* patterns = w.contains("sanitizer_findings") ? &w.at("sanitizer_findings") : nullptr;
        if (patterns && !patterns->empty()) {
            for (const auto& pattern : *patterns) {
                const std::regex wanted(pattern.get<std::string>());
                bool matched = false;
                for (const auto& f : sanitized) matched |= std::regex_search(f.get<std::string>(), wanted);
                if (!matched)
                    mismatch(id, "no sanitizer finding matches " + pattern.get<std::string>() + " (found: " + lab::json_text(sanitized) +
                                     (pass.at("note").get<std::string>().empty() ? "" : "; note: " + pass.at("note").get<std::string>()) + ")");
            }
        } else if (!sanitized.empty()) {
            mismatch(id, "the sanitizer category found what no one planted: " + lab::json_text(sanitized));
        }
        if (w.contains("technique")) {
            const nlohmann::json* technique = nullptr;
            for (const auto& part : rung.at("parts"))
                if (part.at("name") == "technique") technique = &part;
            const std::string wanted_points = w.at("technique");
            if (!technique || !technique->at("graded").get<bool>()) {
                mismatch(id, "expected a graded technique part, found none");
            } else {
                const double points = technique->at("score"), most = technique->at("max");
                if ((wanted_points == "full" && !(most > 0 && points == most)) || (wanted_points == "zero" && points != 0))
                    mismatch(id, "expected " + wanted_points + " technique points, got " + std::to_string(points) + " of " +
                                     std::to_string(most) + ": " + technique->at("note").get<std::string>());
            }
        }
        if (w.value("lessons", "") == "measured") {
            const auto& lessons = rung.at("lessons");
            if (lessons.at("yours").size() < 9 || lessons.at("reference").size() < 9)
                mismatch(id, "expected its lesson numbers and the reference's, got " + lab::json_text(lessons));
        }
        // "sanitizer": "full", "zero" or "penalty" (below zero): the sanitizer part's points, where graded
        // (a text, or an object of texts by backend).
        if (w.contains("sanitizer")) {
            const std::string wanted_points = w.at("sanitizer");
            for (const auto& part : rung.at("parts")) {
                if (part.at("name") != "sanitizer" || wanted_points.empty()) continue;
                const double points = part.at("score"), most = part.at("max");
                const bool ok = wanted_points == "full" ? points == most && most > 0
                                : wanted_points == "zero" ? points == 0
                                                          : points < 0;
                if (!ok)
                    mismatch(id, "expected the sanitizer part to be " + wanted_points + ", got " + std::to_string(points) +
                                     " of " + std::to_string(most) + ": " + part.at("note").get<std::string>());
            }
        }
        if (w.contains("failing") && failing == 0) mismatch(id, "no case failed; expected some matching " + w.value("failing", ""));
        if (w.contains("passing") && passing_matched == 0)
            mismatch(id, "no case matching " + w.value("passing", "") + " passed");
    }
    if (mismatches) {
        std::cout << "corpus verdict: MISMATCH (" << mismatches << "):\n";
        for (const auto& line : said) std::cout << "  " << line << '\n';
    } else {
        std::cout << "corpus verdict: as expected\n";
    }
    return mismatches ? 1 : 0;
}
