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

// The visible cases a grading on a GPU plans for `rung` (the rubric's [gpu] visible_groups), none
// left out for [no_gpu] max_n, on every machine: the sanitizer's pass chooses its cases from these,
// so that a grading on the CPU backend runs the thread orders on the cases a GPU grading's
// CPU-backend half runs them on. (Cases the CPU backend cannot run at all, gpu_only, stay skipped.)
std::vector<PlannedCase> plan_visible_as_on_a_gpu(const RungInfo& rung, const Rubric& rubric, std::uint64_t seed);

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
