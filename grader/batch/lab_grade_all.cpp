// INSTRUCTOR SIDE. lab-grade-all: a class graded, one `lab-grade grade` child a student (the trusted
// grader beside this program in the build tree), and the commands on a graded class (README.md):
//   lab-grade-all grade-all SOURCE [--out DIR] [--rubric FILE] [--seed S] [--force] [--workers N|gpus] [--slurm ...]
//   lab-grade-all class-report OUT | similarity OUT | lms-export OUT --roster R | grade-task OUT ... (Slurm's tasks)
// ./lab grade-all, class-report, similarity and lms-export hand their arguments here.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "batch_options.hpp"
#include "grade_all.hpp"
#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/process.hpp"
#include "lms.hpp"
#include "similarity.hpp"

namespace {

namespace fs = std::filesystem;

// The GPUs this process may use, as CUDA_VISIBLE_DEVICES names them (or 0..count-1); none on the
// CPU backend. grade-all gives each of its workers one.
std::vector<std::string> visible_gpus()
{
    if (lab::device_status().emulated || !lab::device_status().usable) return {};
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    std::vector<std::string> gpus;
    if (const char* listed = std::getenv("CUDA_VISIBLE_DEVICES"); listed && *listed) {
        std::stringstream in(listed);
        for (std::string id; std::getline(in, id, ',') && static_cast<int>(gpus.size()) < count;) gpus.push_back(id);
    } else {
        for (int i = 0; i < count; ++i) gpus.push_back(std::to_string(i));
    }
    return gpus;
}

// The trusted grader every student is graded by: lab-grade, beside this program.
std::string grader_beside_this_program()
{
    std::error_code error;
    return (fs::read_symlink("/proc/self/exe", error).parent_path() / "lab-grade").string();
}

}  // namespace

int main(int argc, char** argv)
{
    // This process's CUDA context (it counts the GPUs) with one work queue, as lab-grade's.
    const auto [queues, count] = lab::process::cuda_work_queues();
    ::setenv(queues.c_str(), count.c_str(), 1);
    // Named as it was called: ./lab hands its commands here (LAB_COMMAND_NAME), and a usage should
    // say `./lab grade-all`, never the build tree's program.
    const char* called = std::getenv("LAB_COMMAND_NAME");
    CLI::App app{"lab-grade-all: grades a class of CUDA reduction submissions (grader/batch/README.md)",
                 called && *called ? called : "lab-grade-all"};
    app.require_subcommand(1);
    int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    lab::batch::BatchOptions batch;
    batch.jobs = jobs;
    auto* all_cmd = app.add_subcommand(
        "grade-all", "grade a class: a folder with one submission per student (a folder, a git checkout, a .zip or a "
                     ".tar.gz), or a CSV of student,path; see grader/batch/README.md");
    all_cmd->add_option("source", batch.source, "the class's folder, or a CSV file of student,path rows")->required();
    all_cmd->add_option("--out", batch.out, "where the gradebook, the class summary and every student's reports go")
        ->capture_default_str();
    all_cmd->add_option("--rubric", batch.rubric, "the course's rubric (default: grader/rubric.toml)");
    all_cmd->add_option("--seed", batch.seed, "the class's seed (each student's is drawn from it and the student's id); "
                                              "default: the one OUT was graded with, else a fresh one");
    all_cmd->add_option("--jobs", batch.jobs, "build parallelism of each grading")->capture_default_str();
    all_cmd->add_flag("--force", batch.force, "grade everyone again (a new seed unless --seed is given)");
    all_cmd->add_option("--lms-roster", batch.lms_roster,
                        "a roster CSV of LMS ids (student, and canvas_id / sis_user_id / sis_login_id, email / idnumber): "
                        "writes OUT/canvas.csv and OUT/moodle.csv for the LMS's grade import");
    all_cmd->add_option("--assignment", batch.lms_assignment,
                        "the assignment's name: the class page's title and the LMS export's column (kept in OUT; first "
                        "default: CUDA reduction lab)");
    std::string report_out;
    auto* report_cmd = app.add_subcommand("class-report", "write a graded class's gradebook and summary again from its grades");
    report_cmd->add_option("out", report_out, "grade-all's output folder")->required();
    std::string similarity_out;
    lab::batch::SimilarityOptions similarity;
    auto* similarity_cmd = app.add_subcommand(
        "similarity", "pairs of a graded class's submissions alike beyond the kit's own code (OUT/similarity.html, .md)");
    similarity_cmd->add_option("out", similarity_out, "grade-all's output folder")->required();
    similarity_cmd->add_option("--threshold", similarity.threshold, "the least score listed (shared fingerprints over the fewer)")
        ->capture_default_str()->check(CLI::Range(0.0, 1.0));
    similarity_cmd->add_option("--min-shared", similarity.min_shared, "the fewest shared fingerprints listed")
        ->capture_default_str()->check(CLI::Range(1, 100000));
    std::string lms_out, lms_roster, lms_assignment;
    auto* lms_cmd = app.add_subcommand("lms-export", "a graded class's totals for Canvas and Moodle (OUT/canvas.csv, OUT/moodle.csv)");
    lms_cmd->add_option("out", lms_out, "grade-all's output folder")->required();
    lms_cmd->add_option("--roster", lms_roster, "the roster CSV of LMS ids (grader/batch/README.md)")->required();
    lms_cmd->add_option("--assignment", lms_assignment, "the assignment's name in the LMS (default: the one OUT was graded with)");
    std::string workers = "1";
    all_cmd->add_option("--workers", workers,
                        "gradings at once: a number, or gpus (--per-gpu on each visible GPU); each worker after the first "
                        "has a build tree of its own")
        ->capture_default_str();
    all_cmd->add_option("--per-gpu", batch.per_gpu,
                        "workers sharing one GPU, with --workers gpus, and the most a number of workers may put on one: "
                        "their cases and sanitizer tools share it, each speed is timed with it alone")
        ->check(CLI::Range(1, 8))
        ->capture_default_str();
    all_cmd->add_flag("--no-reuse", batch.no_reuse,
                      "grade every rung of a changed submission again (by default a rung whose file did not change keeps "
                      "its grade)");
    all_cmd->add_flag("--slurm", batch.slurm.on, "grade as one Slurm array job (sbatch) instead of on this machine");
    all_cmd->add_option("--partition", batch.slurm.partition, "Slurm: the partition");
    all_cmd->add_option("--gres", batch.slurm.gres, "Slurm: each task's generic resources (gpu:1 on a GPU cluster)");
    all_cmd->add_option("--time", batch.slurm.time, "Slurm: each task's time limit");
    all_cmd->add_option("--account", batch.slurm.account, "Slurm: the account");
    all_cmd->add_option("--sbatch-arg", batch.slurm.sbatch_args, "Slurm: one more #SBATCH line's option (repeatable)");
    all_cmd->add_option("--per-task", batch.slurm.per_task, "Slurm: submissions per array task")
        ->capture_default_str()->check(CLI::Range(1, 100000));
    all_cmd->add_option("--max-running", batch.slurm.max_running, "Slurm: tasks running at once (the array's %N; 0: no limit)")
        ->check(CLI::NonNegativeNumber);
    all_cmd->add_option("--retries", batch.slurm.retries, "Slurm: rounds again for what a round left ungraded")
        ->capture_default_str()->check(CLI::Range(0, 10));
    all_cmd->add_option("--node-tree", batch.slurm.node_tree,
                        "Slurm: grade in a build tree of the kit on each node's own disk, under this prefix "
                        "(configured and built the first time; default: this tree, on the shared file system)");
    all_cmd->add_option("--poll", batch.slurm.poll_seconds, "Slurm: seconds between looks at the queue")
        ->capture_default_str()->check(CLI::PositiveNumber);
    std::string task_out, round;
    int task = 0, per_task = 1;
    auto* task_cmd = app.add_subcommand("grade-task", "one task of grade-all --slurm's array job (the job script runs it)");
    task_cmd->add_option("out", task_out, "grade-all's --out")->required();
    task_cmd->add_option("--round", round, "the round's list of students")->required();
    task_cmd->add_option("--task", task, "the array task's index")->required();
    task_cmd->add_option("--per-task", per_task, "students per task")->capture_default_str();
    task_cmd->add_option("--jobs", jobs, "build parallelism")->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        app.exit(e);  // (its words, or the help)
        return e.get_exit_code() == 0 ? 0 : 2;  // a usage error is 2, as lab-grade's own checks give
    }
    try {
        const std::string grader = grader_beside_this_program();
        if (*all_cmd) {
            batch.grader = grader;
            batch.gpus = visible_gpus();
            if (workers == "gpus") {
                batch.workers_per_gpu = true;
            } else {
                std::size_t used = 0;
                try {
                    batch.workers = std::stoi(workers, &used);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (used == 0 || used != workers.size()) {
                    std::cerr << "lab-grade-all: --workers " << workers << ": give a number, or gpus\n";
                    return 2;
                }
            }
            return lab::batch::grade_all(batch);
        }
        if (*report_cmd) return lab::batch::class_report(report_out);
        if (*similarity_cmd) return lab::batch::similarity_report(similarity_out, similarity);
        if (*lms_cmd) {
            const lab::batch::LmsExport done = lab::batch::export_lms(
                lms_out, lms_roster, lms_assignment.empty() ? lab::batch::class_assignment(lms_out) : lms_assignment);
            lab::batch::print_lms_export(done);
            return 0;
        }
        if (*task_cmd) return lab::batch::grade_task(task_out, round, task, per_task, grader, jobs);
        return 2;  // (a subcommand is required)
    } catch (const std::exception& e) {
        std::cerr << "lab-grade-all: " << e.what() << '\n';
        return 2;
    }
}
