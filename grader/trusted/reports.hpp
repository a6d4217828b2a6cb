// TRUSTED SIDE. Every report of a grading run, written from the one Grade (result.hpp):
//   results.json        Gradescope's autograder results
//   prairielearn.json   PrairieLearn's external grader results
//   autolab.txt         Autolab: a summary, then {"scores": {...}} as the last line
//   junit.xml           one test case per graded case
//   summary.md          for a CI job summary
//   gradebook.csv       a header and one row
//   report.html         the whole report, with a chart of GB/s per rung where speed was measured
//   grade.json          the whole result, every case, for tools
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "result.hpp"

namespace lab::grading {

void write_reports(const Grade& grade, const std::string& dir);

// One rung of a grade.json read back (its "rungs" entry), for reusing it in a later grading. What
// grade.json does not hold (each case's thread orders) stays empty: the rung's parts carry its
// points already. Throws on an entry that is not one grade.json would hold.
RungResult rung_from_json(const nlohmann::json& rung);

}  // namespace lab::grading
