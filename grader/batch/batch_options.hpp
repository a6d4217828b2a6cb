// INSTRUCTOR SIDE. What `lab-grade grade-all` is asked to do (its command line, grade_all.hpp): the
// class, where its grades go, the workers and GPUs, the LMS roster, Slurm. Read by grade_all.cpp,
// class_state.cpp and slurm.cpp.
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

}  // namespace lab::batch
