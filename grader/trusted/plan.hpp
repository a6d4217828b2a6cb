// TRUSTED SIDE. Which cases a rung is graded on, with inputs drawn from the run's seed, and how
// their results turn into points under the rubric.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "judge.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// The visible (tests/cases.json) and hidden (grader/hidden_cases.json) cases of `rung`, from the
// groups the rubric names for this machine, each with its launch plan; the visible inputs' seeds
// derived from `seed`, the hidden ones' from `hidden_seed`. None for a rung the rubric does not assign.
std::vector<PlannedCase> plan_cases(const RungInfo& rung, const Rubric& rubric, std::uint64_t seed, std::uint64_t hidden_seed);

// The seed of a grading's hidden inputs: the rubric's ([hidden].seed), or drawn from the grading's
// `seed` and the hidden catalogue's bytes, which a student does not have: the seed every report
// prints replays the visible inputs (LAB_CASES_SEED), never the hidden ones.
std::uint64_t hidden_seed(const Rubric& rubric, std::uint64_t seed);

// The catalogues' groups the rubric leaves out on this machine ("hidden group hidden_x (not in the
// rubric's no_gpu.hidden_groups)"), which a grading names: a group added to a catalogue and not to
// a rubric's list is never left out without a word.
std::vector<std::string> groups_left_out(const Rubric& rubric, bool gpu);

// Throws std::runtime_error naming a group the rubric lists that neither catalogue has: a misspelt
// group would otherwise quietly leave its cases out.
void check_rubric_groups(const Rubric& rubric);

// The speed part's verdict for one rung on a GPU (main.cpp measures it).
struct SpeedVerdict {
    bool passed = false;
    std::string note;  // the figures, the thresholds and where they came from; or why none were taken
};

// Whether the rung has a speed part judged in this grading: the rubric gives it speed points, it
// built and was graded here (not reused), and the kit's speed plan has cases for it.
bool speed_graded_here(const RungResult& rung, const Rubric& rubric);
// ... and its kernels are timed: every visible case passed (speed counts only then).
bool speed_timed(const RungResult& rung, const Rubric& rubric);
// Whether any rung of the grading is timed. Where none is and no rung runs again, the grading needs
// no GPU alone (main.cpp): behind a kernel that holds the GPU to its case limit, it waited minutes
// to time nothing.
bool speed_to_time(const Grade& g, const Rubric& rubric);

// Fills in rung.parts from its case results (nothing earned when it did not build); the speed part
// from `speed` on a GPU (nullptr: not measured yet), by the rubric's no_gpu.speed without one. Every
// part's max is the rubric's (Rubric::rung_max), whatever ran: a part that cannot be graded here is
// there, not graded (`graded` false), its points in the maximum.
void score_rung(RungResult& rung, const Rubric& rubric, bool gpu, const SpeedVerdict* speed = nullptr);

// The sanitizer part (the rubric's [sanitizer]) from rung.sanitizer: its points when the pass found
// nothing and every visible case passes; when it found something, nothing, less the rubric's
// penalty (never below zero for the rung). score_rung calls it too.
void score_sanitizer(RungResult& rung, const Rubric& rubric);

// The rung's technique part (the rubric's [[lessons.technique]] criteria for it; none: no part):
// each criterion's points where its lesson number is within its bound and every visible case
// passes. score_rung calls it too.
void score_technique(RungResult& rung, const Rubric& rubric);

// The late policy's verdict (the rubric's [late]) on a submission handed in at `submitted_at` (as
// given: an LMS's or a CI platform's record, never the submission's own files or commits, whose
// times its author sets) by `student` (for the extensions). Throws on a time it cannot read.
LateResult late_verdict(const Rubric& rubric, const std::string& submitted_at, const std::string& student);

// A lesson number as the reports show it (lab/lesson_numbers.hpp's digits).
std::string lesson_text(const std::string& metric, double value);

// "./lab replay 07 --op sum --input float --n 1025 --block 256 --seed 0x..." for one case (with
// --grid for the rungs whose grid is not fixed by n, and --offset for a misaligned input).
std::string replay_command(const RungInfo& rung, const Case& c, const LaunchPlan& plan);

// A seed as a report gives it (0x...); throws std::runtime_error naming anything else.
std::uint64_t parse_seed(const std::string& text);

// The thread orders a grading runs every case under: the CPU backend's, or none (a GPU's own).
std::vector<std::string> grading_orders();

}  // namespace lab::grading
