// TRUSTED SIDE. The rubric: a TOML file per course (grader/rubric.toml is the default) that says
// which rungs the course assigns, how many points each rung's visible cases, hidden cases, speed,
// sanitizer pass and technique are worth, how a group of cases earns partial credit, what students
// see of the hidden cases, the time limits, and what happens without a GPU. The maximum is the
// rubric's alone (Rubric::max), the same on every machine.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lab/text.hpp"

namespace lab::grading {

// One rung's points by category ([points], then [rungs.NN_name]; [course].rungs assigns rungs).
struct RungPoints {
    double visible = 0, hidden = 0, speed = 0;
    double sanitizer = 0;       // [sanitizer].points unless the rung's table sets it
    bool sanitizer_on = true;   // false (sanitizer = 0 in the rung's table): no pass, no points, no penalty
    bool technique_on = true;   // false (technique = 0): its [[lessons.technique]] criteria count for nothing
    bool assigned = true;       // in [course].rungs (every rung when absent)
};

// Where a category cannot be graded here (speed without a GPU), whether its points stay in the
// maximum (held: "not graded here", for a re-grade on a machine that can) or leave it everywhere
// (excluded: the same maximum on every machine, without them). [no_gpu].speed.
enum class NotGradedHere { held, excluded };

// The sanitizer category ([sanitizer]): an untimed pass on a few small visible cases under
// compute-sanitizer's tools (on a GPU) and under every thread order of the CPU backend (everywhere).
struct SanitizerRules {
    double points = 1;   // per rung, earned when the pass finds nothing and every visible case passes
    double penalty = 0;  // per rung, taken off (never below zero) when the pass finds something
    std::vector<std::string> tools{"memcheck", "racecheck", "synccheck"};  // on a GPU
    bool thread_orders = true;  // on a GPU too (a second, CPU-backend build of the file)
    double max_n = 65536;       // the pass's cases are the rung's visible cases up to this size
    double cases = 6;           // at most this many, one per group first
    bool on() const { return points > 0 || penalty > 0; }
};

// One criterion of technique ([[lessons.technique]]): rung `rung`'s lesson number `metric`
// (lab/lesson_numbers.hpp) within a bound, worth `points` once every visible case passes. The bound
// is `at_most` and/or `at_least`, as given, or times the reference's number with `of_reference`.
struct TechniqueCriterion {
    std::string rung, metric, says;
    double at_most = -1, at_least = -1;  // -1: no such bound
    bool of_reference = false;
    double points = 1;
};

// The lessons ([lessons]): every rung measured as ./lab explain measures it, its numbers beside the
// reference's in the reports; points for technique only where criteria are given.
struct LessonRules {
    bool measure = true;
    // CPU time of one rung's measurement, all its threads (the CPU backend uses every core); past it
    // the rung's lessons are not measured. A reference takes a second or two; a kernel that does a
    // thousand times its work (a stride of a block instead of the grid's) took 246 s of a core.
    double cpu_seconds = 30;
    std::vector<TechniqueCriterion> technique;
};

// The late policy ([late]): points taken off a submission handed in after its due time, by the
// day (or part of one) past the grace period, as a fraction of the points it earned.
struct LatePolicy {
    bool on = false;
    long long due = 0;             // seconds since 1970, UTC
    double grace_minutes = 0;
    double per_day = 0;            // the fraction taken off per day late
    double most = 1;               // the most taken off in all
    std::map<std::string, long long> extensions;  // by student id: their own due time
};

// Times as the late policy reads and writes them (lab/text.hpp).
using lab::format_time;
using lab::parse_time;

// How late a submission is, and what it costs, under `policy`, for `student`, handed in at
// `submitted` (seconds since 1970, UTC).
struct Lateness {
    long long due = 0;       // the due time that held for this student (an extension's, or the rubric's)
    bool extended = false;
    int days = 0;            // days (or parts of one) past due and grace; 0 when on time
    double fraction = 0;     // of the points earned, taken off
};
Lateness lateness(const LatePolicy& policy, const std::string& student, long long submitted);

// The hints a student saw ([hints]; exercises/hints_used.json, lab/hints.hpp): points taken off a
// rung for each of its TODOs whose deepest level seen is 1 (the concept), 2 (the shape) or 3 (the
// code), never below zero. None by default: the record is information.
struct HintRules {
    double level_1 = 0, level_2 = 0, level_3 = 0;
    double cost(int level) const { return level == 1 ? level_1 : level == 2 ? level_2 : level == 3 ? level_3 : 0; }
};

// A key a rubric leaves out has the value grader/rubric.toml gives it (Rubric.TheDefaultLoads and
// Rubric.AKeyLeftOutIsTheKitsRubrics hold the two to the same values).
struct Rubric {
    std::string path, course;
    RungPoints points{5, 3, 2};              // the default for every rung
    std::map<std::string, RungPoints> rungs;  // by rung id: every rung of the registry
    bool proportional = true;                // else all_or_nothing
    double case_seconds = 60, rung_seconds = 600;
    // On a GPU, one case's limit ([gpu] case_seconds): a GPU runs the largest case within a second
    // or two, and a kernel that never ends holds the GPU for this long per case, while every other
    // grading's speed measurement waits for the GPU alone. case_seconds_on says which applies.
    double gpu_case_seconds = 15;
    // Per runner: CPU seconds of each of its processes, its memory and its processes and threads
    // at once (the last two through a cgroup, where the machine allows one).
    double cpu_seconds = 3600, memory_mib = 16384, processes = 1024;
    NotGradedHere speed_without_gpu = NotGradedHere::held;
    double cpu_max_n = 262144;               // without a GPU, larger cases are left to the GPU
    std::vector<std::string> cpu_visible_groups, cpu_hidden_groups;  // empty: every group
    std::vector<std::string> gpu_visible_groups, gpu_hidden_groups;
    // What a student's reports say of the hidden cases ([hidden]): by default, per group, how many
    // passed and how the others failed; with details = true, every case as a visible one (its n,
    // block, input, seed and replay line: the students can then tune to them and pass them on).
    bool hidden_details = false;
    // The hidden cases' seed, pinned by the rubric ([hidden].seed): the same hidden inputs in every
    // grading. Unset: drawn from each grading's seed and the hidden catalogue's bytes (plan.hpp,
    // hidden_seed), so that the seed a report prints does not give them away.
    bool hidden_seed_pinned = false;
    std::uint64_t hidden_seed = 0;
    SanitizerRules sanitizer;
    LessonRules lessons;
    LatePolicy late;
    HintRules hints;

    const RungPoints& for_rung(const std::string& id) const;
    // Whether the course grades the rung: assigned, and worth a point in some category.
    bool assigned(const std::string& id) const;
    // One case's time limit where the kernels run on a GPU (`gpu`: the smaller of [limits] and [gpu]
    // case_seconds) or on the CPU backend ([limits] case_seconds).
    double case_seconds_on(bool gpu) const;
    // Whether the rung has a sanitizer part: a pass, its points and its penalty.
    bool sanitizer_on(const std::string& id) const;
    // Whether the rung's speed counts toward the maximum: speed points, a speed case in the kit's
    // speed plan (tests/speed.json), and not excluded ([no_gpu].speed = "excluded").
    bool speed_counts(const std::string& id) const;
    // The technique criteria ([[lessons.technique]]) that count for the rung.
    std::vector<const TechniqueCriterion*> technique_of(const std::string& id) const;
    // The most a rung can earn, and the whole maximum: from the rubric and the kit's catalogues
    // alone, never from what ran, so that "Points Possible" is the same on every machine.
    double rung_max(const std::string& id) const;
    double max() const;
};

// Throws std::runtime_error naming the file, the line and the key of what is wrong.
Rubric load_rubric(const std::string& path);

}  // namespace lab::grading
