// TRUSTED SIDE. The lessons: each rung's kernel measured as ./lab explain measures it, beside the
// reference's (lab/lesson_numbers.hpp: idle lanes, bank conflicts, sectors per request, elements per
// thread, barriers, launches). The file is built again for the CPU backend with every load and store
// counted (its explain program, in the same sandboxed build as the runners; on a GPU machine in the
// CPU-backend tree beside this one) and run once, in a sandbox, at the teaching size (2^20
// elements, blocks of 256); the reference's program runs the same way. The numbers go into every
// report as information, and into the technique part where the rubric grades it
// ([[lessons.technique]], plan.hpp's score_technique).
//
// The measurement runs in the submission's process, as its cases do: a kernel could be written to
// change the counts rather than to reduce. What stands in its way: the screen and the integrity
// checks refuse host code and the kit's internals in a kernel file; the counts must be ones a
// measurement can make (lab/lesson_numbers.hpp refuses the rest); and technique earns nothing
// unless every visible case passes, graded from the runner built without the counting.
#pragma once

#include <map>
#include <string>

#include "judge.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// `explainers`: rung id -> the submission's explain program (builder.hpp's Built::explainers);
// `tree`: the CPU-backend build tree they were built in ("" with `missing` when there is none). Fills
// each built rung's `lessons`, and scores its technique part.
void grade_lessons(Grade& g, const Rubric& rubric, const std::map<std::string, std::string>& explainers,
                   const std::string& tree, const std::string& missing, const Limits& limits, int jobs,
                   const std::string& work);

}  // namespace lab::grading
