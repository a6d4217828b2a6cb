// TRUSTED SIDE. The lessons: each rung's kernel measured as ./lab explain measures it, beside the
// reference's (lab/lesson_numbers.hpp: idle lanes, bank conflicts, sectors per request, elements per
// thread, barriers, launches). The file is built again for the CPU backend with every load and store
// counted (its explain program, in the same sandboxed build as the runners; on a GPU machine in the
// CPU-backend tree beside this one) and run once, in a sandbox, at the teaching size (2^20
// elements, blocks of 256); the reference's program runs the same way, once per build of it
// (reference_numbers). The numbers go into every
// report as information, and into the technique part where the rubric grades it
// ([[lessons.technique]], categories/lessons.cpp's score_technique).
//
// The measurement runs in the submission's process, as its cases do: a kernel could be written to
// change the counts rather than to reduce. What stands in its way: the screen and the integrity
// checks refuse host code and the kit's internals in a kernel file; the counts must be ones a
// measurement can make (lab/lesson_numbers.hpp refuses the rest); and technique earns nothing
// unless every visible case passes, graded from the runner built without the counting.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "judge.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// Where the explain programs are: rung id -> the submission's program (builder.hpp's
// Built::explainers), and the CPU-backend build tree they were built in ("" with `missing` when
// there is none).
struct Explainers {
    std::map<std::string, std::string> programs;
    std::string tree, missing;
};

// The reference's numbers for `rung` from its explain program `program` (run in `dir`), measured once
// per build of the program: they depend on nothing but the program and its arguments (the kit's
// code, a fixed input), and every grading asks for them again (about 20 s of a core per grading
// over the 12 rungs). Kept beside the program, named by a hash of its bytes and its arguments, so
// that a rebuilt program is measured anew; written whole or not at all (a rename), since several
// gradings may share the tree. Empty, with `why`, when the measurement failed (and nothing is kept).
std::map<std::string, double> reference_numbers(const RungInfo& rung, const std::string& program,
                                                const std::string& dir, const Limits& limits, std::string& why);

// The lessons of a grading, a rung at a time (the lessons category, categories/lessons.cpp, runs
// them): on a GPU beside the cases (nothing here is timed, and it runs on the CPU backend).
// measure() may be called from several threads at once, each with a rung of its own, before the
// rung's cases are in.
class Lessons {
public:
    // `built`: the rungs being built (not reused; on a GPU some may still be building, and one may
    // yet fail): the reference's programs are built for each of them, at once, when the rubric
    // measures lessons; `where`: the explain programs, asked for once, by the first rung measured (on
    // a GPU it waits for the CPU backend's build).
    Lessons(const Rubric& rubric, const std::vector<std::string>& built, std::function<Explainers()> where,
            const Limits& limits, int jobs, std::string work);
    // The rubric measures lessons, and the rung was built and is not an earlier grading's.
    bool wanted(const RungResult& r) const;
    // Rung `id` measured into `l`, nothing else written; returns its seconds.
    double measure(const std::string& id, LessonResult& l);

private:
    const Rubric& rubric_;
    std::vector<std::string> ids_;
    std::function<Explainers()> where_;
    Limits limits_;
    int jobs_;
    std::string work_;
    std::once_flag found_;
    Explainers programs_;
    std::map<std::string, std::string> references_;
    std::string reference_why_;
};

}  // namespace lab::grading
