// TRUSTED SIDE. The facts every report of a grading gives, in words, so that each format (the
// HTML page, the Markdown summary, Gradescope's, PrairieLearn's and Autolab's results, JUnit, the
// console) says the same: per rung and per group of cases the points and the arithmetic behind
// them, how cases failed, and for a failing visible case its likely cause, the replay line and
// the next hint. What a reader may see depends on who reads (Reader): a student sees a hidden
// case only as a count and a kind of failure, unless the rubric's [hidden].details says otherwise.
#pragma once

#include <string>
#include <vector>

#include "result.hpp"

namespace lab::grading {

enum class Reader { student, instructor };

// Whether `reader` may see case `c`'s parameters (n, block, input, seed, replay line, message);
// hidden_shown: whether it may see a hidden case's.
bool shown_in_full(const Grade& g, const CaseResult& c, Reader reader);
bool hidden_shown(const Grade& g, Reader reader);

// How a failed case failed, in one of four words a hidden case is reported by: "wrong value"
// (the kernel ended and its answer is wrong), "crash" (the kernel or its runner failed: no answer),
// "time limit" (stopped at the rubric's limit, or not run after three such stops), "sanitizer"
// (the checks caught an access outside an array, or an answer that depends on the thread order).
std::string failure_kind(const CaseResult& c);

// "%.2f".
std::string points_text(double points);

// "visible cases", "hidden cases", "speed", "sanitizer", "technique".
std::string part_title(const Part& p);

// A part's arithmetic: "15 of 158 cases passed → 0.17 of 5.00"; for a part not graded here, why,
// with its points in the maximum; for speed, sanitizer and technique, their points and their note.
std::string part_arithmetic(const RungResult& r, const Part& p);

// A group's: "edges: 15 of 150 cases → 0.17 of 1.67; failed: 135 wrong value; 4 cases not run
// here (graded on a GPU only: ...)". The same words for a visible group and a hidden one. Its
// pieces, for a table: the cases ("15 of 150 cases", or how many were not run here), the points
// ("0.17 of 1.67", or no share), the notes (how the others failed, what was not run here).
std::string group_arithmetic(const RungResult& r, const Part& p, const GroupScore& group);
std::string group_cases(const GroupScore& group);
std::string group_points(const GroupScore& group);
std::string group_notes(const RungResult& r, const Part& p, const GroupScore& group);

// One case's parameters and what came back: "sum int_n2_b64 (n = 2, block 64, grid 1): expected
// -1038, got -471, first wrong block 0".
std::string case_line(const CaseResult& c);

// The likely causes the kit's diagnosis gave a failed case (lab/diagnosis.hpp: the pattern, and the
// TODO it points to in the rung's words), or the thread orders' advice; "" when it knows none.
std::string likely_cause(const CaseResult& c);

// The failed cases of a rung `reader` sees in full, in the order they ran.
std::vector<const CaseResult*> failures_in_full(const Grade& g, const RungResult& r, Reader reader);

// "./lab hint 03": one more of the rung's hints each time (the way there, never the code at once).
std::string hint_command(const RungResult& r);

// Where and how it was graded, in one paragraph: for a student, the device, the seed and what it
// replays, the rubric's name (never a path of the grading machine); for the instructor, also the
// rubric's path, the hidden cases' seed and the sandbox.
std::string about_the_grading(const Grade& g, Reader reader);

// "0.17 / 9.00", and where points are not graded here, how many and why they are still in it.
std::string total_text(const Grade& g);
// "" when every part was graded here; else a sentence on the points held in the maximum.
std::string held_text(const Grade& g);

// The console's table, the same numbers as every report: a line per rung and part.
std::string console_table(const Grade& g);

// How the lessons' numbers were measured, one sentence for the reports' table of them: at 2^20
// elements, but for a measured rung whose lesson is measured elsewhere (rungs.json "lessons_at").
std::string lessons_measured_how(const Grade& g);

}  // namespace lab::grading
