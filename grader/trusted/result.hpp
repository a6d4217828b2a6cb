// TRUSTED SIDE. One grading run's result, as the grader decides it: every report
// (grader/trusted/reports.cpp) is written from this one structure.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "case_result.hpp"

namespace lab::grading {

// One case's result, as the judge's checker decides it (judge/case_result.hpp).
using judge::CaseResult;

// One group of cases of a part: it earns its share of the part's points (the rubric's "partial").
struct GroupScore {
    std::string name;
    double score = 0, max = 0;
    int passed = 0, failed = 0, skipped = 0;
};

struct Part {
    std::string name;  // "visible", "hidden", "speed"
    double score = 0, max = 0;
    std::vector<GroupScore> groups;
    // false: not graded here (speed without a GPU; a part none of whose cases runs here): no points
    // earned, its max still in the rung's (the rubric's maximum is the same on every machine).
    bool graded = true;
    std::string note;
};

// The sanitizer category's pass over one rung (grader/trusted/sanitizer.hpp).
struct SanitizerResult {
    std::vector<std::string> checks;    // what ran: "memcheck", "racecheck", "synccheck", "thread orders"
    std::vector<std::string> findings;  // each: where (file:line), the check, what it saw
    std::string note;                   // what did not run, and why
    // What another grading sharing the GPU could have changed (gpu_lock.hpp's run_again_alone): a
    // tool's log said the GPU's memory ran out; racecheck or synccheck found a hazard, by which a
    // case's answer may depend on how the GPU's time fell. Not in the reports.
    bool memory_refused = false, timing_hazard = false;
    bool ran() const { return !checks.empty(); }
};

// The lesson numbers of one rung (lab/lesson_numbers.hpp), measured as ./lab explain measures them:
// the submission's kernel and the reference's, each run once at the teaching size on the CPU
// backend (grader/trusted/lessons.hpp). Information in every report; points only where the rubric
// grades technique ([[lessons.technique]]).
struct LessonResult {
    std::map<std::string, double> yours, reference;  // by number's name; empty when not measured
    std::string note;                                // what was measured, or why not
    bool measured() const { return !yours.empty(); }
};

struct RungResult {
    std::string id, title;
    bool submitted = false, built = false;
    std::string unrun;      // why its cases did not run: "not submitted", "did not build", "unfinished"
    std::string build_log;  // what the compiler said when it did not build, or the TODO lines left
    std::vector<std::string> findings;  // the integrity checks' findings: where, the rule, what
    SanitizerResult sanitizer;
    LessonResult lessons;
    std::vector<CaseResult> cases;
    std::vector<Part> parts;
    double seconds = 0;
    // Where the rung's time went, in seconds (grade.json's "phases"; grader/README.md says what each
    // is): preparing, runner_start, visible_cases, hidden_cases, checking, which make `seconds`;
    // large_cases (n >= 2^24, also counted in visible and hidden); sanitizer and speed, which come
    // after. A phase that did not happen is absent.
    std::map<std::string, double> phases;
    double gbps = 0;  // the speed case's bandwidth, when measured
    // Grading a student again (lab-grade grade --reuse): what the rung's verdict depends on besides
    // its file (main.cpp, reuse_key), set where its cases ran; and whether this result is an earlier
    // grading's, taken over because the file and all of that are unchanged. graded_at: when its
    // cases ran (UTC), carried over with it.
    std::string reuse_key, graded_at;
    bool reused = false;
    double score() const;
    double max() const;   // every part's, graded here or not: the rubric's rung_max
    double held() const;  // the points of the parts not graded here
    int count(const std::string& status, int hidden = -1) const;  // hidden: -1 any, 0 visible, 1 hidden
    const Part* part(const std::string& name) const;              // nullptr when it has no such part
};

// The late policy's verdict on one submission (the rubric's [late]).
struct LateResult {
    bool policy = false;          // the rubric has one
    std::string submitted_at;     // as given (--submitted-at), in UTC; "" when none was given
    std::string due;              // the due time that held (UTC)
    bool extended = false;        // an extension's due time
    int days = 0;                 // days (or parts of one) late, past the grace period
    double fraction = 0;          // of the points earned, taken off
    std::string note;             // what was applied, or why nothing was
};

// The record of the hints the student saw, as the submission carries it (exercises/hints_used.json,
// lab/hints.hpp), read as untrusted input, and what the rubric's [hints] takes off for it.
struct HintsResult {
    bool recorded = false;                       // false: no record, or one that is malformed
    std::map<std::string, int> levels;           // TODO -> the deepest level seen (1-3)
    std::map<std::string, double> points_off;    // rung id -> points taken off (at most the rung's score)
    std::string note;                            // where the record came from, or why there is none
    double total_off() const;
};

// The hints' verdict, once every rung is graded: `record` as the submission carries it (malformed is
// "no record", never an error); `cost(level)` the points the rubric takes off a rung for each of its
// TODOs seen to that level, at most the rung's score.
HintsResult hints_verdict(const std::optional<std::string>& record, const std::vector<RungResult>& rungs,
                          const std::function<double(int)>& cost);

struct Grade {
    std::string submission;  // as given on the command line
    std::string backend;     // "cuda" or "cpu"
    std::string device;      // the GPU's name, or "CPU backend (no GPU)"
    std::uint64_t seed = 0;         // every report's: the visible inputs' (LAB_CASES_SEED replays them)
    std::uint64_t hidden_seed = 0;  // the hidden inputs' (plan.hpp): the instructor's record only
    bool hidden_details = false;    // the rubric's [hidden].details: students see the hidden cases as visible ones
    bool proportional = true;       // the rubric's [points].partial: a group earns its share by its passing cases, else all or none
    std::string rubric;      // the rubric file, and the course it names
    std::string rubric_name; // the same without the grading machine's folders: what a student's reports give
    std::vector<std::string> left_out;  // the catalogues' groups the rubric leaves out on this machine
    std::string sandbox;     // how the runners were confined ("bubblewrap: ...", or why they were not)
    std::vector<std::string> taken, ignored, refused;  // intake: files used, left alone, refused (with why)
    std::vector<RungResult> rungs;
    double seconds = 0;
    // The whole grading's phases, in seconds: intake (taking the files in, the screen, the device
    // seen from inside the sandbox), build, integrity, cases (every rung's, side by side on a GPU),
    // sanitizer (of which sanitizer_cpu_build, on a GPU), speed.
    std::map<std::string, double> phases;
    // Where the grading's cores went, in seconds of a core (cpu_of_this_grading): lab-grade's own
    // ("grader": its checks, its inputs' totals, its reports) and its children's by the part of
    // the grading that started them (lab/process.hpp's accounts: build, cases, speed, ...). Beside
    // the wall-clock phases, this is what bounds a class on a machine of few cores.
    std::map<std::string, double> cpu;
    std::string graded_at;  // when (UTC, 2026-11-26T06:40:00Z)
    LateResult late;
    HintsResult hints;
    double earned() const;  // the rungs' points, before any hints' or late penalty
    double score() const;   // what counts: earned() less what hints cost, less the late penalty
    double max() const;     // the rubric's maximum (Rubric::max), whatever ran here
    double held() const;    // of it, the points of parts not graded here
    std::string seed_text() const;  // 0x...
};

// This process's CPU seconds so far: its own ("grader") and its reaped children's by account.
std::map<std::string, double> cpu_of_this_grading();

// Seconds from `start` to now: a phase's time (RungResult::phases, Grade::phases).
double seconds_since(std::chrono::steady_clock::time_point start);

}  // namespace lab::grading
