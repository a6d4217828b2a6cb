// INSTRUCTOR SIDE (grade-all). What the class summary's writers share (gradebook.cpp writes the
// gradebook and the Markdown summary, class_page.cpp the HTML page): the class's figures from its
// grade.json files, and the small pieces both formats use. Internal to batch/.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lab::batch {
struct Outcome;  // gradebook.hpp: one student's outcome, which these figures read
}

namespace lab::batch::summary {

std::string points(double value);               // "12.50"
std::string percent(double part, double whole);  // "25%"
// The rungs, in the order the first graded report lists them.
std::vector<std::string> rung_ids(const std::vector<Outcome>& outcomes);
// A rung passes when it ran and no case it ran failed.
bool rung_passes(const nlohmann::json& rung);

struct ClassFigures {
    std::vector<std::string> rungs;
    std::vector<const Outcome*> graded, not_graded;
    double max = 0, mean = 0, median = 0, low = 0, high = 0;
    std::vector<int> histogram = std::vector<int>(10, 0);  // tenths of the maximum; the last holds 100%
    struct Rung {
        int submitted = 0, passed = 0;
        int timed = 0, fast = 0;          // speed graded (a GPU), and every speed point earned
        double points = 0, max = 0;       // over those who submitted it
    };
    std::map<std::string, Rung> per_rung;
    std::vector<std::pair<std::string, int>> failing;  // "rung: case" and how many students failed it
    // What the class got wrong: by rung, each cause its failures point to (a diagnosis pattern, or
    // the kind of failure where none fits), the students, one example case and its replay.
    struct Cause {
        std::set<std::string> students;
        std::string example, replay;
    };
    std::map<std::string, std::map<std::string, Cause>> causes;
};
ClassFigures figures(const std::vector<Outcome>& outcomes);

// The rung table's heading, note and rows; "What the class got wrong"'s rows.
extern const std::vector<std::string> kRungColumns;
extern const char* const kRungNote;
std::vector<std::vector<std::string>> rung_rows(const ClassFigures& f);
std::vector<std::vector<std::string>> cause_rows(const ClassFigures& f);
std::string bin_label(int bin);  // "30-39%"
// "2 of 3 submissions graded", and how many students of the LMS roster handed nothing in.
std::string graded_count(const std::vector<Outcome>& outcomes, const ClassFigures& f);

// A rung's state in a grading, as the student table shows and filters it.
struct RungState {
    const char* key;    // the filter's and the row's data-rNN value
    const char* shown;  // the symbol in the table
    const char* words;  // what it means, for the legend and the filter
};
extern const std::vector<RungState> kStates;
const RungState& state_of(const nlohmann::json& rung);
std::string short_id(const std::string& id);   // "07" of "07_coarsening"
std::string url_part(const std::string& text);  // percent-encoded for a relative URL
std::string rung_list(const std::vector<std::string>& ids);  // "03_sequential, 04_first_add", or "none"

}  // namespace lab::batch::summary
