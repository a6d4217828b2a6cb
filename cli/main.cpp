// The `./lab` program: the kit's commands for students, instructors and CI. ./lab (a bash
// bootstrap) installs or names what is missing, builds this program and hands it the command.
// This file is the command line (CLI11, the one file that includes it); each command's work is
// in a file of its own, and kit.hpp holds what they share.
#include <CLI/CLI.hpp>
#include <iostream>
#include <regex>

#include "kit.hpp"
#include "lab/cases.hpp"
#include "lab/registry.hpp"
#include "lab/usage_error.hpp"

namespace {

using namespace lab::cli;

// A command in the list: its one-line summary there, and the longer text of `./lab CMD --help`.
CLI::App* command(CLI::App& app, const std::string& name, const std::string& group, const std::string& summary,
                  const std::string& details = "")
{
    CLI::App* sub = app.add_subcommand(name, summary);
    sub->group(group);
    if (!details.empty()) sub->footer(details);
    return sub;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app("The CUDA reduction kit: ./lab COMMAND. ./lab COMMAND --help says more about one.", "./lab");
    app.require_subcommand(1);
    int status = 0;
    try {
        const Kit kit;
        const std::string everyone = "For everyone", students = "For students", report = "For students, with a grading report",
                          instructors = "For instructors";

        static bool all_cases = false;
        static std::string sample_seed;
        CLI::App* run_command =
            command(app, "run", everyone, "the main job: build the reference solutions, run every rung's tests, print a table",
                    "Builds the reference solutions, runs every rung's cases on them, one process per rung, and prints a\n"
                    "table per rung: cases passed and, on a GPU, the bandwidth reached. Without a GPU the kernels run on the\n"
                    "kit's CPU backend, which runs every small case and, of the larger ones, one of each shape and of the\n"
                    "largest one per scheme (picked by a seed it prints; --all-cases runs them all). The kit's\n"
                    "own tests are ./lab selftest's.");
        run_command->add_flag("--all-cases", all_cases, "on the CPU backend too, every larger case (minutes more)");
        run_command->add_option("--seed", sample_seed, "the CPU backend's sample of larger cases, as a run printed it");
        run_command->callback([&] { kit.require_instructor_kit("run"); status = run(kit, all_cases, sample_seed); });

        static std::string only;
        CLI::App* selftest_command =
            command(app, "selftest", everyone, "the kit's own test suite",
                    "Every solution passes, every untouched exercise fails with its to-do list, exercises/ matches what\n"
                    "solutions/ generates, the CPU backend catches planted bugs; under CUDA too where nvcc is installed.\n"
                    "The grader's corpus: the reference and a few of each kind (alternative, cheat, hostile, mistake);\n"
                    "--all grades every entry and runs the long tests too (grade-all, Slurm, the CI templates, the\n"
                    "release), some 15 minutes more on 2 cores. CI runs both.");
        static std::string selftest_seed;
        static bool selftest_all = false;
        selftest_command->add_option("--only", only, "one backend")->check(CLI::IsMember({"cpu", "cuda"}));
        selftest_command->add_option("--seed", selftest_seed, "the CPU backend's sample of larger cases, as a run printed it");
        selftest_command->add_flag("--all", selftest_all, "every kit test: the whole corpus and the long tests too");
        selftest_command->callback([&] {
            kit.require_instructor_kit("selftest");
            status = selftest(kit, only, selftest_seed, selftest_all);
        });

        command(app, "doctor", everyone, "check what the kit needs; as root, install the missing Debian packages")
            ->callback([&] { status = doctor(kit); });
        app.add_subcommand("help", "this list")->group(everyone);

        static std::string rung, case_name;
        CLI::App* status_command = command(app, "status", students, "how far up the ladder you are: a line per rung",
                                           "A line per rung: not started, TODOs left, failing (which case), correct, and on a\n"
                                           "GPU whether it is fast enough. A finished rung changed since its last check is\n"
                                           "checked again first (--no-run only says so).");
        static bool no_run = false;
        status_command->add_flag("--no-run", no_run, "check nothing: report the last verdicts, and which rungs changed since");
        status_command->callback([&] { status = lab::cli::status(kit, !no_run); });

        CLI::App* check_command = command(app, "check", students, "[NN] build rung NN and check it: small cases first, what to fix",
                                          "Builds your exercises/NN_name.cu and runs its small cases first, in a few seconds; at the\n"
                                          "first failures it shows the first failing case (expected and got, which blocks, the\n"
                                          "likely cause and TODO, the command that runs it alone) and stops; once they pass, the\n"
                                          "larger cases, then on a GPU the speed test. Without a GPU (the CPU backend) it runs a\n"
                                          "sample of the larger cases (one of each shape, and of the largest one per operation and\n"
                                          "scheme), drawn by a seed it prints, as ./lab run does; --seed runs the\n"
                                          "same ones again, --all-cases (or ./lab test NN) every one. Without NN: the first rung not done.");
        static std::string check_seed;
        static bool check_all = false;
        check_command->add_option("NN", rung, "the rung: 03, 3 or 03_sequential");
        check_command->add_option("--case", case_name, "one case alone, as a failure names it (int_n1856_b256)");
        check_command->add_option("--seed", check_seed, "the CPU backend's sample of larger cases, as a check printed it");
        check_command->add_flag("--all-cases", check_all, "on the CPU backend too, every larger case");
        check_command->callback([&] { status = check(kit, rung, case_name, check_seed, check_all); });

        CLI::App* test_command = command(app, "test", students,
                                         "[NN] test rung NN (as check does, every case); without NN every rung, a process per case");
        test_command->add_option("NN", rung, "the rung: 03, 3 or 03_sequential");
        test_command->callback([&] { status = test(kit, rung); });

        static bool all_hints = false;
        static int hint_level = 0;
        CLI::App* hint_command = command(app, "hint", students, "[NN] the next hint, level by level, for the TODO you are on",
                                         "Each TODO has three hints: 1 the concept, 2 the shape (the steps in words), 3 the code.\n"
                                         "Each call shows the next level for the first TODO still open in exercises/NN_name.cu,\n"
                                         "then for the next one; NN-name (./lab hint 05-warp-unroll) picks a TODO. The levels you\n"
                                         "have seen are recorded per TODO, in .lab/progress and in exercises/hints_used.json, which\n"
                                         "you commit with your work: your instructor sees it. Without NN: the first rung not done.");
        hint_command->add_option("NN", rung, "the rung (03, 3 or 03_sequential) or one of its TODOs (03-loop)");
        hint_command->add_option("--level", hint_level, "this level (1 the concept, 2 the shape, 3 the code) instead of the next");
        hint_command->add_flag("--all", all_hints, "every hint of the rung you have seen so far, again");
        hint_command->callback([&] { status = hint(kit, rung, hint_level, all_hints); });

        static std::string explain_n, explain_block, explain_op, explain_json, explain_html;
        CLI::App* explain_command = command(
            app, "explain", students, "[NN] why rung NN is slow: idle lanes, bank conflicts, scattered loads, measured",
            "Runs your exercises/NN_name.cu once on the CPU backend (n = 2^20, blocks of 256 unless given) with every load\n"
            "and store measured, beside the rung's reference and the previous rung's: active lanes per warp instruction,\n"
            "shared-memory wavefronts per request (bank conflicts), device-memory sectors per request and bytes, step by\n"
            "step, the lines that cost the most, and what the numbers say. Without NN: the first rung not done.");
        explain_command->add_option("NN", rung, "the rung: 03, 3 or 03_sequential");
        explain_command->add_option("--n", explain_n, "elements (default 2^20)");
        explain_command->add_option("--block", explain_block, "threads per block (default 256)");
        explain_command->add_option("--op", explain_op, "the operator (the rung's first unless given: sum, max, dot, softmax, ...)");
        explain_command->add_option("--json", explain_json, "write every number (yours and the references') to this file");
        explain_command->add_option("--html", explain_html,
                                    "write a page of pictures (block 0's threads and banks, step by step) to this file");
        explain_command->callback([&] { status = explain(kit, rung, explain_n, explain_block, explain_op, explain_json, explain_html); });

        static bool poll = false, manual = false;
        CLI::App* watch_command = command(app, "watch", students, "[NN] check again every time you save (--poll, --manual)",
                                          "Checks rung NN now and again on every save of its file. Without NN it follows the\n"
                                          "ladder, moving on when a rung is done. Where file events do not arrive (WSL, network\n"
                                          "file systems) it looks at the file twice a second; --poll makes it do that anyway,\n"
                                          "--manual checks each time you press Enter instead.");
        watch_command->add_option("NN", rung, "the rung: 03, 3 or 03_sequential");
        watch_command->add_flag("--poll", poll, "look at the file twice a second instead of waiting for file events");
        watch_command->add_flag("--manual", manual, "check when Enter is pressed");
        watch_command->callback([&] {
            if (poll && manual) throw Failure("--poll and --manual are two ways of waiting: pick one", 2);
            status = watch(kit, rung, poll ? "poll" : manual ? "manual" : "");
        });

        static std::string handouts_dir;
        CLI::App* handouts_command = command(app, "handouts", everyone, "[OUT] the handouts as HTML, figures drawn afresh (pandoc, matplotlib)",
                                             "Draws every rung's figure (handouts/figures/make_figures.py) and renders each page of\n"
                                             "handouts/ to a self-contained HTML file in OUT (default build/handouts); OUT/index.html\n"
                                             "is the overview. The Markdown reads as it is on GitHub too.");
        handouts_command->add_option("OUT", handouts_dir, "where the HTML goes");
        handouts_command->callback([&] { status = handouts(kit, handouts_dir); });

        static bool ids = false;
        CLI::App* list_command = command(app, "list", students, "the rungs, in order");
        list_command->add_flag("--ids", ids, "their full names only, one a line (for scripts)");
        list_command->callback([&] { status = list(kit, ids); });

        // grade and replay hand every argument, --help included, to lab-grade, which parses them.
        CLI::App* replay_command =
            command(app, "replay", report, "NN --op OP --input KIND --n N (or --rows R --cols C) --block B --seed S [--grid G] [--offset O] [--scheme S]",
                    "Runs one case exactly as the report's replay line gives it, on your exercises/NN_name.cu.");
        replay_command->prefix_command()->set_help_flag();
        replay_command->callback([&] { status = replay(kit, replay_command->remaining()); });

        CLI::App* grade_command = command(app, "grade", instructors, "SUBMISSION [--rubric FILE] [--out DIR] [--seed S]: grade it, write its reports");
        grade_command->prefix_command()->set_help_flag();
        grade_command->callback([&] { kit.require_instructor_kit("grade"); status = grade(kit, grade_command->remaining()); });

        CLI::App* grade_all_command = command(
            app, "grade-all", instructors,
            "CLASS [--out DIR] [--rubric FILE] [--seed S] [--force] [--slurm ...]: grade a class, write its gradebook",
            "CLASS: a folder with one submission per student (a folder, a git checkout, a .zip or a .tar.gz), or a CSV\n"
            "of student,path rows. Resumes where it stopped. grader/batch/README.md says more (Slurm too).");
        grade_all_command->prefix_command()->set_help_flag();
        grade_all_command->callback([&] { kit.require_instructor_kit("grade-all"); status = grade_all(kit, grade_all_command->remaining()); });

        // The commands on a class grade-all graded (its OUT), handed to lab-grade-all as grade-all is.
        const auto on_a_class = [&](const std::string& name, const std::string& summary, const std::string& details,
                                    int (*command_of)(const Kit&, const std::vector<std::string>&)) {
            CLI::App* sub = command(app, name, instructors, summary, details);
            sub->prefix_command()->set_help_flag();
            sub->callback([&kit, &status, sub, name, command_of] {
                kit.require_instructor_kit(name);
                status = command_of(kit, sub->remaining());
            });
        };
        on_a_class("class-report", "OUT: write a graded class's gradebook and class summary again from its grades",
                   "OUT is grade-all's --out. The gradebook, class-summary.md and .html (and the similarity report) written\n"
                   "again from the grades there, without grading anyone.",
                   class_report);
        on_a_class("similarity", "OUT [--threshold F] [--min-shared N]: pairs of a graded class's submissions alike",
                   "OUT/similarity.html and .md again, with other limits: evidence for a person to read, never a verdict.",
                   similarity);
        on_a_class("lms-export", "OUT --roster ROSTER.csv [--assignment NAME]: a graded class's totals for Canvas and Moodle",
                   "OUT/canvas.csv and OUT/moodle.csv from OUT's gradebook and a roster of LMS ids\n"
                   "(grader/batch/README.md, \"Into the LMS\").",
                   lms_export);

        static bool force_generate = false;
        CLI::App* generate_command = command(
            app, "generate", instructors, "rewrite exercises/ and the README's rung table from solutions/ and rungs.json",
            "Never replaces an exercise file that was edited since generate wrote it (exercises/.generated holds what it\n"
            "wrote): it lists such files and writes nothing, unless --force.");
        generate_command->add_flag("--force", force_generate, "replace exercise files even where they were edited");
        generate_command->callback([&] { kit.require_instructor_kit("generate"); status = generate(kit, force_generate); });
        CLI::App* release_command = command(app, "release", instructors, "OUT [--through NN]: write the students' repository of the kit",
                                            "Writes OUT with rungs 01 to NN (every rung without --through): no solutions, hidden cases or\n"
                                            "instructor tools, a README for students, a .ci/run that runs their tests, a fresh git history. Given\n"
                                            "a release through an earlier rung, adds the next rungs as one commit that changes no file students\n"
                                            "edit. Checks that no answer line of a released TODO is in it and that its ./lab test, in a clone\n"
                                            "outside OUT, fails every released rung with its TODO list (--skip-build-check leaves that out).");
        release_command->prefix_command()->set_help_flag();
        release_command->callback([&] {
            kit.require_instructor_kit("release");
            status = release(kit, release_command->remaining());
        });
        command(app, "calibrate", instructors, "time the reference solutions on this GPU and write its thresholds",
                "Runs each reference solution's speed test 10 times on this machine's GPU and adds (or replaces) its\n"
                "calibration in tests/speed.json: thresholds from the measured spread, so that any kernel as fast as the\n"
                "reference passes every time.")
            ->callback([&] { kit.require_instructor_kit("calibrate"); status = calibrate(kit); });
        static std::string dir;
        CLI::App* bench_command =
            command(app, "bench", everyone, "NN: your rung's speed on this GPU; without NN the instructor's benchmark",
                    "./lab bench NN: your exercise's speed test on this machine's GPU: its GB/s against the kit's naive\n"
                    "kernel and the GPU's ceiling, and the thresholds (the CPU backend measures no GPU speed).\n"
                    "./lab bench [DIR] (instructors): every reference rung, CUB and the CPU loop over 2^10 ... 2^28\n"
                    "elements: DIR/results.csv, results.md and gbps.png (default DIR: build/benchmark).");
        bench_command->add_option("NN_or_DIR", dir, "a rung (07, 7, 07_coarsening), or where the benchmark's results go");
        bench_command->callback([&] {
            // A rung's name (07, 7, ex07, 07_coarsening) is a rung, even a wrong one; anything else a folder.
            static const std::regex rung_like("^([eE][xX])?[0-9]{1,2}(_.*)?$");
            if (std::regex_match(dir, rung_like)) {
                status = bench_rung(kit, dir);
                return;
            }
            kit.require_instructor_kit("bench");
            status = bench(kit, dir);
        });

        // Set last: a subcommand made after it would show it too.
        app.footer(
            "Environment: CUDAARCHS picks CUDA architectures (default 75;90, e.g. CUDAARCHS=native); LAB_JOBS sets build\n"
            "and test parallelism (default: all cores); LAB_CPU_WORKERS the threads the CPU backend runs blocks on;\n"
            "LAB_CASES_SEED=<a grading's seed> draws the visible cases' inputs as that grading did (./lab check NN).");
        if (argc < 2) {
            std::cerr << app.help();
            return 2;
        }
        const std::string first = argv[1];
        if (first == "help") {
            std::cout << app.help();
            return 0;
        }
        if (first[0] != '-') {
            try {
                app.get_subcommand(first);
            } catch (const CLI::OptionNotFound&) {
                throw Failure("no command '" + first + "'; ./lab help lists them", 2);
            }
        }
        // A grading's seed for the suites' inputs (lab/cases.hpp): refused here, before any build,
        // when it is not one.
        lab::cases_seed_from_environment();
        app.parse(argc, argv);
        return status;
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        // A mistyped option or a missing argument: what was wrong, then where the usage is.
        std::cerr << "lab: " << e.what() << " (./lab " << (argc > 1 ? std::string(argv[1]) + " " : "") << "--help)\n";
        return 2;
    } catch (const Failure& e) {
        std::cerr << "lab: " << e.what() << "\n";
        return e.code;
    } catch (const lab::UsageError& e) {
        std::cerr << "lab: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "lab: " << e.what() << "\n";
        return 1;
    }
}
