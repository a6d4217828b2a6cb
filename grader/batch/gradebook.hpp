// INSTRUCTOR SIDE (grade-all). The class's gradebook and summary, from every student's grade.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lab::batch {

// One student's outcome in a batch: graded (with the grader's grade.json), or not, and why.
struct Outcome {
    std::string id;
    bool graded = false;
    bool no_submission = false;  // on the LMS roster, and nothing handed in (not graded, 0 points)
    std::string why_not;      // when not graded: what went wrong, where its log is
    nlohmann::json grade;     // the instructor's record (instructor/grade.json), when graded
    std::string host;         // the machine that graded it
    double seconds = 0;       // the grading's wall time, build included
    // Every grading of this student that grade-all kept (history.json in its folder), oldest
    // first, the latest included: history_entry()'s records.
    nlohmann::json history = nlohmann::json::array();
};

// What history.json keeps of one grading: when, its generation, total and max, and each rung's
// points, whether it was handed in and whether it was correct (it ran and no case failed).
nlohmann::json history_entry(const nlohmann::json& grade, int generation);

// The rungs one grading of the history has correct and the one before it had not ("gained"), and
// the other way round ("lost"); empty when the history holds fewer than two gradings.
struct Progress {
    int gradings = 0;
    std::string since;  // the earlier grading's time
    std::vector<std::string> gained, lost;
};
Progress progress_of(const nlohmann::json& history);

// gradebook.csv: a row per student (sorted as given): student, status, total, max, the points of
// each rung, of each category (visible, hidden, speed, sanitizer), the seed, host and device.
std::string gradebook_csv(const std::vector<Outcome>& outcomes);

// The class summary: how many were graded, the scores' spread and histogram, each rung's pass
// rate and mean points, the cases failed by the most students, and who was not graded and why.
std::string class_summary_markdown(const std::vector<Outcome>& outcomes, const std::string& title);
std::string class_summary_html(const std::vector<Outcome>& outcomes, const std::string& title);

// The rungs that every graded submission left unfinished or did not hand in ("04, 05"), when at
// least two students were graded: most often rungs the course has not assigned yet, which a rubric
// without [course] rungs grades all the same (grade-all warns).
std::string rungs_nobody_started(const std::vector<Outcome>& all);

}  // namespace lab::batch
