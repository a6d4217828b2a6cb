// INSTRUCTOR SIDE. `lab-grade grade-all`: a whole class, one submission at a time on this machine
// or as a Slurm array job, each graded by a `lab-grade grade` of its own (see README.md).
#pragma once

#include <string>
#include <vector>

#include "batch_options.hpp"

namespace lab::batch {

// How many workers the options ask for (--workers N, or gpus: per_gpu a visible GPU); throws, saying
// why, when they cannot be had here: none, more than 64, gpus without a GPU, or more than per_gpu a
// GPU.
int worker_count(const BatchOptions& options);

// Returns 0 when every student of the roster is graded, 1 when some are not (each says why in the
// gradebook), 130 when interrupted (what finished is kept and written to the gradebook).
int grade_all(const BatchOptions& options);

// The gradebook and class summary of OUT written again from the grades it holds (no grading).
int class_report(const std::string& out);

struct SimilarityOptions;
// `lab-grade similarity OUT`: the same, with the options given (and the class lock held).
int similarity_report(const std::string& out, const SimilarityOptions& options);

struct LmsExport;
// The assignment's name OUT's class was graded under (--assignment, kept in class.json).
std::string class_assignment(const std::string& out);

// What export_lms wrote and warned of, on stdout.
void print_lms_export(const LmsExport& done);

// One Slurm array task: grades the task'th share of the round file's students into OUT.
int grade_task(const std::string& out, const std::string& round_file, int task, int per_task, const std::string& grader,
               int jobs);

}  // namespace lab::batch
