// TRUSTED SIDE. One grading, from a submission to its reports, as a list of named phases
// (pipeline.cpp's kPhases): intake, screen, build, integrity, categories, reports. Each phase reads
// what the ones before it left in the Grading (grading.hpp); the categories phase runs every grading
// category (category.hpp) over the built rungs: the cases, and beside or after them the others.
// grader/DEVELOPING.md says what each phase does and what the grader trusts.
#pragma once

#include <string>

#include "grading.hpp"

namespace lab::grading {

// Grades the submission, writes its reports into request.out_dir; 0, or 2 when the machine cannot
// grade (no usable device). Throws on what stops a grading (a malformed rubric, no sandbox).
int grade(const GradeRequest& request);

// The runners' limits, from the rubric's [limits].
Limits limits_of(const Rubric& rubric);

// "" when CUDA starts inside the sandbox as it does outside; else what went wrong. `seen`: the
// device as a sandboxed `lab-grade device` (this very program) names it.
std::string check_device_in_sandbox(std::string& seen);

// This program's own path.
std::string self_path();

}  // namespace lab::grading
