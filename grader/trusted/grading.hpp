// TRUSTED SIDE. One grading as its phases see it (pipeline.hpp): what was asked, what each phase
// found so far, and the grading categories (category.hpp) that turn a built rung into points.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "builder.hpp"
#include "cpu_backend_build.hpp"
#include "gpu_lock.hpp"
#include "intake.hpp"
#include "integrity.hpp"
#include "judge.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

// What `lab-grade grade` is asked (its command line, lab_grade.cpp).
struct GradeRequest {
    std::string submission, rubric_path, out_dir = "grade-report", seed_text;
    int jobs = 1;
    bool skip_integrity = false;
    std::string reuse_dir, submitted_at, student;
};

class Category;

// The state the phases hand on, in the order they fill it.
struct Grading {
    GradeRequest request;
    std::chrono::steady_clock::time_point started;
    bool gpu = false;  // the kernels run on a GPU (else on the CPU backend)
    Rubric rubric;
    std::string rubric_text;
    Grade g;
    // intake: the files taken, every rung's cases (planned before any submitted code runs)
    Intake intake;
    std::map<std::string, std::vector<PlannedCase>> planned;
    // screen: each taken file built, unfinished (TODO lines left) or refused (why); the rungs an
    // earlier grading's results stand for (--reuse)
    std::map<std::string, std::string> to_build, unfinished, refused;
    std::map<std::string, RungResult> reused;
    // build and integrity. The runners build while the cases of those already linked run (a
    // pipeline, unless LAB_GRADE_PIPELINE=0): `building` until the build ends, and ready(k) waits until rung k's runner is
    // linked (or the build has ended), checks its integrity and fills g.rungs[k]; each map below then
    // has a key for every rung built (an empty runner, log or findings where there are none), so
    // that each rung's entries are written by the one thread that settles it.
    Built built;
    std::unique_ptr<RunnersBuilding> building;
    std::function<void(std::size_t)> ready;
    std::unique_ptr<CpuBackendBuild> cpu_build;  // on a GPU, where a category asks for one
    std::map<std::string, std::vector<Finding>> findings;
    // the runners' limits and work folder
    Limits limits;
    std::string work;
    int rungs_at_once = 1;  // rungs whose cases run side by side (the cases category's choice)
    // every rung's share of the GPU while its cases and tools run (gpu_lock.hpp)
    std::unique_ptr<GpuShare> share;
    // The key under which rung `id` graded here may be reused (reuse.hpp).
    std::function<std::string(const std::string&)> key_of;
    // The categories, in the order of their parts in every report (categories.hpp).
    std::vector<std::unique_ptr<Category>> categories;

    const RungInfo& rung(std::size_t k) const;  // the registry's k-th rung, as g.rungs[k]
};

// The device graded on, as reports name it.
std::string device_name();

// below_the_gpu_work(): cpu_backend_build.hpp, whose build runs below that work.

}  // namespace lab::grading
