// TRUSTED SIDE. lab-grade: grades one submission out of process (pipeline.hpp; grader/DEVELOPING.md).
//   lab-grade grade SUBMISSION [--rubric FILE] [--out DIR] [--seed S] [--jobs N] [--reuse EARLIER_OUT] ...
//   lab-grade replay RUNG --op OP --input KIND --n N --block B --seed S [--grid G] [--offset O] [--scheme S] [--file F]
//   lab-grade sandbox | device
// A class is grade-all's (grader/batch/lab_grade_all.cpp), a program of its own around this one.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "lab/device.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "pipeline.hpp"
#include "replay.hpp"
#include "rubric.hpp"
#include "sandbox.hpp"

namespace {

using namespace lab::grading;

// `lab-grade device`: what this process finds, on one line (run inside the sandbox by grade).
int print_device()
{
    const lab::DeviceStatus& d = lab::device_status();
    std::cout << (d.emulated ? std::string("the CPU backend") : d.usable ? d.name : "not usable: " + d.reason) << '\n';
    return d.usable ? 0 : 1;
}

// `lab-grade sandbox`: how submissions would be confined here, and whether CUDA starts inside.
int print_sandbox()
{
    const IsolationChoice& c = isolation();
    if (!c.error.empty()) {
        std::cout << "no sandbox: " << c.error << '\n';
        return 2;
    }
    std::cout << "isolation: " << c.name << (c.fallback.empty() ? "" : " (" + c.fallback + ")") << '\n'
              << isolation_summary(limits_of(load_rubric(lab::kit_path("grader/rubric.toml"))).runner) << '\n';
    std::string seen;
    const std::string wrong = check_device_in_sandbox(seen);
    std::cout << "device inside: " << seen << '\n';
    if (!wrong.empty()) std::cout << "problem: " << wrong << '\n';
    return wrong.empty() ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv)
{
    // lab-grade's own CUDA context (the ceiling, the kit's baselines) with one work queue, as the
    // sandbox gives every runner and tool (sandbox.cpp, passed_environment, says why).
    const auto [queues, count] = lab::process::cuda_work_queues();
    ::setenv(queues.c_str(), count.c_str(), 1);
    // Named as it was called: ./lab hands its commands here (LAB_COMMAND_NAME), and a usage should
    // say `./lab grade`, never the build tree's program.
    const char* called = std::getenv("LAB_COMMAND_NAME");
    CLI::App app{"lab-grade: grades CUDA reduction submissions out of process (grader/README.md)",
                 called && *called ? called : "lab-grade"};
    app.require_subcommand(1);
    std::string submission, rubric, out = "grade-report", seed;
    int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    auto* grade_cmd = app.add_subcommand("grade", "grade a submission: a directory, a git checkout, a .zip or a .tar.gz");
    grade_cmd->add_option("submission", submission, "the submission")->required();
    grade_cmd->add_option("--rubric", rubric, "the course's rubric (default: grader/rubric.toml)");
    grade_cmd->add_option("--out", out, "where the reports go")->capture_default_str();
    grade_cmd->add_option("--seed", seed, "replay a grading run exactly: the seed its report gives");
    grade_cmd->add_option("--jobs", jobs, "build parallelism")->capture_default_str();
    std::string submitted_at, student;
    grade_cmd->add_option("--submitted-at", submitted_at,
                          "when it was handed in (ISO 8601, 2026-12-01T23:59:00Z), as the LMS or CI platform recorded it: "
                          "the rubric's [late] policy applies to it");
    grade_cmd->add_option("--student", student, "the student's id, for the late policy's extensions");
    std::string reuse;
    grade_cmd->add_option("--reuse", reuse,
                          "an earlier grading's report folder (its grade.json and graded/): a rung whose file is byte for "
                          "byte the same, graded with the same kit, rubric, seed and device, keeps its result there");
    bool skip_integrity = false;
    grade_cmd->add_flag("--skip-integrity", skip_integrity,
                        "run what the integrity checks would refuse (to test the sandbox alone); every report says so");

    std::string rung, op = "sum", input, replay_seed, file, scheme;
    std::uint64_t n = 0, offset = 0, rows = 0, cols = 0;
    unsigned block = 0, grid = 0;
    auto* replay_cmd = app.add_subcommand("replay", "run one case, as a grading report gives it, on your own kernel");
    replay_cmd->add_option("rung", rung, "the rung: 07 or 07_coarsening")->required();
    replay_cmd->add_option("--op", op, "sum, max, min, product; the row rung's dot, softmax, softmax_online, layer_norm")
        ->capture_default_str();
    replay_cmd->add_option("--input", input, "the input kind (float, int, float_spike, ...)")->required();
    auto* n_option = replay_cmd->add_option("--n", n, "elements (a rung that reduces an array)");
    replay_cmd->add_option("--rows", rows, "rows of the matrix (the row rung)");
    replay_cmd->add_option("--cols", cols, "row length (the row rung)");
    replay_cmd->add_option("--block", block, "threads per block")->required();
    replay_cmd->add_option("--seed", replay_seed, "the case's seed, as the report gives it")->required();
    replay_cmd->add_option("--grid", grid, "blocks (grid-stride rungs)");
    replay_cmd->add_option("--offset", offset, "elements the input starts into its buffer");
    std::string schemes = "rungs.json's \"variants\"";
    try {  // the help names them; a registry that does not load is reported by the command that needs it
        schemes.clear();
        for (const auto& rung : lab::Registry::kit().rungs())
            if (!rung.variants.empty()) schemes += (schemes.empty() ? "" : "; ") + rung.number + ": " + rung.describe_variants();
    } catch (const std::exception&) {
        schemes = "rungs.json's \"variants\"";
    }
    replay_cmd->add_option("--scheme", scheme, "a driver rung's scheme (" + schemes + ")");
    replay_cmd->add_option("--file", file, "the kernel file (default: the kit's exercises/NN_name.cu)");
    auto* device_cmd = app.add_subcommand("device", "print the device this process finds (the sandbox check runs it)");
    auto* sandbox_cmd =
        app.add_subcommand("sandbox", "say how submissions are confined here, and whether CUDA starts inside");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        app.exit(e);  // (its words, or the help)
        return e.get_exit_code() == 0 ? 0 : 2;  // a usage error is 2, as lab-grade's own checks give
    }
    try {
        if (*device_cmd) return print_device();
        if (*sandbox_cmd) return print_sandbox();
        if (*grade_cmd) {
            GradeRequest request;
            request.submission = submission;
            request.rubric_path = rubric;
            request.out_dir = out;
            request.seed_text = seed;
            request.jobs = jobs;
            request.skip_integrity = skip_integrity;
            request.reuse_dir = reuse;
            request.submitted_at = submitted_at;
            request.student = student;
            return grade(request);
        }
        return replay(rung, op, input, n, block, replay_seed, grid, offset, scheme, file, n_option->count() > 0, rows,
                      cols);
    } catch (const std::exception& e) {
        std::cerr << "lab-grade: " << e.what() << '\n';
        return 2;
    }
}
