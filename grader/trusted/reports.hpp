// TRUSTED SIDE. Every report of a grading run, written from the one Grade (result.hpp), into OUT.
// What a student may see (OUT itself) gives the hidden cases by group only, how many passed and
// how the others failed, unless the rubric's [hidden].details says otherwise, and no path of the
// grading machine (report_facts.hpp says what each format gives):
//   report.html         the page: per rung and group the points and the arithmetic, each failing
//                       visible case with its likely cause, replay line and next hint
//   summary.md          the same in Markdown, for a CI job summary
//   results.json        Gradescope's autograder results
//   prairielearn.json   PrairieLearn's external grader results
//   autolab.txt         Autolab: a summary, then {"scores": {...}} as the last line
//   junit.xml           one test case per visible case, one per hidden group
//   gradebook.csv       a header and one row
//   grade.json          the student's copy of the record below, without the hidden cases
// What only the instructor may see (OUT/instructor/):
//   grade.json          the whole result, every case, the hidden inputs' seed: what the kit's tools read
//   report.html         the page with every case, the hidden ones too, and how the runners were confined
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "result.hpp"

namespace lab::grading {

void write_reports(const Grade& grade, const std::string& dir);

// Where an instructor's record of a grading lies in its report folder.
inline std::string instructor_record(const std::string& dir) { return dir + "/instructor/grade.json"; }

// `text` without the grading machine's folders (the kit's, its build tree's, the report folder's,
// the submission's own path but its name): what every file a student may see is written through.
std::string without_machine_paths(std::string text, const Grade& g, const std::string& out_dir);

// One rung of a grade.json read back (its "rungs" entry), for reusing it in a later grading. What
// grade.json does not hold (each case's thread orders) stays empty: the rung's parts carry its
// points already. Throws on an entry that is not one grade.json would hold.
RungResult rung_from_json(const nlohmann::json& rung);

}  // namespace lab::grading
