// TRUSTED SIDE. A grading's report as one HTML page (report.html): the total and how it was
// graded, a table of the rungs, then per rung its parts and groups with the points and the
// arithmetic, each failing case the reader may see with its likely cause and replay line, and the
// next hint; the lessons' numbers and the speed chart where measured. One file, no script, no
// style or font from elsewhere: it opens offline. The facts and their words are report_facts.hpp's.
#pragma once

#include <string>

#include "report_facts.hpp"
#include "result.hpp"

namespace lab::grading {

std::string report_page(const Grade& g, Reader reader);

}  // namespace lab::grading
