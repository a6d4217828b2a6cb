// INSTRUCTOR SIDE. `lab-grade grade-all`: a whole class, one submission at a time on this machine
// or as a Slurm array job, each graded by a `lab-grade grade` of its own (see README.md).
#pragma once

#include <string>
#include <vector>

namespace lab::batch {

struct SlurmOptions {
    bool on = false;
    std::string partition, gres, time, account;
    std::vector<std::string> sbatch_args;  // passed to sbatch as they are
    int per_task = 1;                      // submissions per array task
    int max_running = 0;                   // the array's %N throttle; 0: none
    int retries = 1;                       // rounds again for what a round left ungraded
    std::string node_tree;                 // a node-local folder prefix: each task grades in a build tree there
    double poll_seconds = 10;
};

struct BatchOptions {
    std::string source;          // a folder of submissions, or a CSV of student,path
    std::string out = "class-grades";
    std::string rubric;          // "" for grader/rubric.toml
    std::string seed;            // the class's seed; "" keeps OUT's, or draws a fresh one
    int jobs = 1;                // build parallelism of each grading
    bool force = false;          // grade again what is graded already
    int workers = 1;             // gradings at once, each in a build tree of its own (and on a GPU, a GPU of its own)
    bool workers_per_gpu = false;  // --workers gpus: per_gpu workers on each visible GPU
    int per_gpu = 3;             // workers sharing one GPU: their cases and tools share it, each speed has it alone
    std::vector<std::string> gpus;  // the GPUs lab-grade may use, as CUDA_VISIBLE_DEVICES names them; none on the CPU backend
    std::string lms_roster;      // a roster of LMS ids: canvas.csv and moodle.csv are written at the end (lms.hpp)
    std::string lms_assignment;  // the assignment's name: the class page's title and the LMS export's column ("" keeps OUT's)
    bool no_reuse = false;       // grade every rung of a changed submission again (else unchanged rungs keep their grade)
    std::string grader;          // this lab-grade's path
    SlurmOptions slurm;
};

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
// OUT/similarity.md and .html: the graded students' files compared rung by rung (similarity.hpp);
// returns how many pairs were listed. grade-all and class-report write them with the defaults.
int write_similarity_reports(const std::string& out, const std::vector<std::string>& students, const SimilarityOptions& options);

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
