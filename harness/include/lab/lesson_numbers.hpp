// The numbers a rung's lesson is measured by (idle lanes, bank conflicts, scattered loads, work per
// thread, barriers, launches, a cluster's exchange), from one run of a rung's explain program (harness/explain/explain.cpp:
// the kernel built for the CPU backend with every load and store counted). The grader reports them
// for every rung beside the reference's, and a rubric may give points for them
// (grader/DEVELOPING.md, "categories: the lessons").
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lab {

struct LessonNumber {
    const char* name;  // as a rubric names it
    const char* what;  // as a report says it
    int digits;        // shown with this many decimals
};

// Every number, in the order the reports show them.
const std::vector<LessonNumber>& lesson_numbers();

// The numbers of one measurement (the explain program's JSON), every name of lesson_numbers().
// Throws std::runtime_error, saying what, when the JSON is not what a measurement makes: a key
// missing, nothing instrumented, or counts that cannot be (more lanes than 32 per instruction,
// fewer shared-memory wavefronts than requests, more of the least sectors than sectors).
std::map<std::string, double> measure_lessons(const nlohmann::json& measured);

}  // namespace lab
