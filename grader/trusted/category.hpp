// TRUSTED SIDE. A grading category: one kind of points a rung earns (its cases, its sanitizer pass,
// its speed, its lessons' technique), behind one interface, as CUB's block reductions are behind
// one enum. The pipeline (pipeline.hpp) calls every category at each step, in the order of
// categories.hpp's list; a category implements the steps it has:
//   plan      at intake, before any submitted code runs: what it will run (the cases, say);
//   needs     what it needs built besides the runners (the CPU backend's runners, the explain programs);
//   run       the cases themselves (When::cases), passes beside the cases (When::beside_cases), or a
//             run of its own once every rung's cases are in, with the GPU alone (When::after_cases);
//   keep      what it found, into each rung's result, once everything has run;
//   score     its part of a rung, from the rung's result alone;
//   report    its fields in grade.json's rung, and read back from it (--reuse); their JSON Schema is
//             grader/schemas/categories/NAME.schema.json.
// A new category is its file under categories/, its table in the rubric, its schema fragment and
// one line in categories.hpp's list (grader/DEVELOPING.md, "Adding a category").
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grading.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// When a category's work runs, beside the rungs' cases.
enum class When {
    cases,         // it is the cases: every rung's, side by side; each rung's end is announced
    beside_cases,  // passes per rung: on a GPU beside the other rungs' cases; on the CPU backend,
                   // whose runners use every core, once every rung's cases are in, a rung at a time
    after_cases,   // a run of its own once every rung's cases and every pass on the GPU are in
};

// One kind of work a beside_cases category does for a rung.
struct Pass {
    std::string account;  // where its processes' cores count (lab/process.hpp; grade.json's "cpu")
    std::string phase;    // the grading phase its span counts to (grade.json's "phases")
    // It uses the GPU, shared with other gradings' cases, and ends before the speed is timed; else
    // the CPU alone, below the GPU work in priority, and it may go on after the GPU is let go.
    bool on_gpu = false;
    // On a GPU, it starts for every rung it wants as soon as the cases begin (it needs none of their
    // verdicts); else once the rung's cases are in.
    bool at_once = false;
    int rungs_at_once = 4;  // on a GPU; one at a time on the CPU backend
    // Rung k's, into the category's own state: nothing in the grading's rungs, whose cases may be
    // being written meanwhile. Called from several threads at once, each with a rung of its own.
    std::function<void(std::size_t k)> run;
};

// What a category needs built besides the runners.
struct BuildNeeds {
    bool cpu_runners = false;  // on a GPU, the files built for the CPU backend too (its thread orders)
    bool explainers = false;   // each file's explain program (the CPU backend, counting every access)
};

class Category {
public:
    virtual ~Category() = default;
    // Its name: its part's (or the first of its parts'), its schema fragment's.
    virtual std::string name() const = 0;
    virtual When when() const = 0;
    virtual void plan(Grading&) {}
    virtual BuildNeeds needs(const Grading&) const { return {}; }
    // Once every rung's result says whether it is built or reused, before any case runs.
    virtual void start(Grading&) {}
    // beside_cases: its passes, and whether rung k gets them (asked once its cases are in, or at
    // once for a pass that starts at once).
    virtual std::vector<Pass> passes() { return {}; }
    virtual bool wanted(const Grading&, std::size_t) const { return false; }
    // cases: every rung's cases, `ended(k)` once rung k's are in; after_cases: its own run.
    virtual void run(Grading&, const std::function<void(std::size_t)>& /*ended*/) {}
    // On a GPU another grading shared: whether rung k's verdicts here could have been changed by the
    // sharing (gpu_lock.hpp, run_again_alone). Such a rung runs again with the GPU alone: each
    // category's again(k), then its GPU passes again.
    virtual bool sharing_could_change(const Grading&, std::size_t) const { return false; }
    virtual void again(Grading&, std::size_t) {}
    // after_cases: whether it needs the GPU alone in this grading (nothing to time: no wait).
    virtual bool needs_gpu_alone(const Grading&) const { return false; }
    // Once every pass has ended: what it found, into rung k's result (and its phases).
    virtual void keep(Grading&, std::size_t) {}
    // Once every rung's result is in: its grading-wide phases.
    virtual void finish(Grading&) {}
    // Its part(s) of the rung, added to r.parts from the rung's result alone (the parts of the
    // categories before it are there: the sanitizer's penalty stops at what they earned).
    virtual void score(const Rubric&, bool gpu, RungResult& r) const = 0;
    // Its fields in grade.json's rung (its schema fragment says what they are), and read back.
    virtual void report(const RungResult&, nlohmann::json& /*rung*/) const {}
    virtual void read(const nlohmann::json& /*rung*/, RungResult&) const {}
};

}  // namespace lab::grading
