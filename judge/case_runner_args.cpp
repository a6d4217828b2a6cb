// Kit tool (lab-case): its command line (case_runner.hpp's parse_options), through CLI11. A file of
// its own, built without optimisation: CLI11's templates took 33 s of optimised compiling on one
// core, more than the rest of lab-case, on the front door's path.
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "case_runner.hpp"

namespace case_runner {

namespace {

const char* const kUsage =
    "usage: lab-case run|batch|catch|ctest|check --rung ID --exe PROGRAM --backend cpu|cuda [options]\n"
    "  run:   --test NAME [--sanitizer PATH] [--timeout S]\n"
    "  batch: [--sanitizer PATH] [--timeout S] [--junit FILE] [--sample SEED] [--filter F] [--progress-lines]\n"
    "  catch: --filter GTEST_FILTER --expect REGEX --name NAME --mistake TEXT [--racecheck SANITIZER]\n"
    "  ctest: --out FILE [--sanitizer PATH] [--timeout S]\n"
    "  check: [--case NAME] [--progress FILE --stamp TEXT] [--timeout S]\n";

}  // namespace

[[noreturn]] void usage(const std::string& problem)
{
    std::cerr << "lab-case: " << problem << "\n" << kUsage;
    std::exit(2);
}

// The modes are CLI11 subcommands, each taking every option (a mode ignores those it has no use
// for, as the callers in CMake, ./lab and the CI scripts rely on); a bad command line exits 2.
Options parse_options(int argc, char** argv)
{
    Options o;
    CLI::App app{"lab-case: runs one rung's test program case by case, in child processes, and judges each case"};
    app.footer(kUsage);
    app.require_subcommand(1, 1);
    const std::vector<std::pair<const char*, const char*>> modes{
        {"run", "one case (--test), as ctest runs it"},
        {"batch", "every case of the rung in one process, a JUnit report with --junit"},
        {"catch", "a planted mistake: the suite must fail it as --expect says"},
        {"ctest", "write the ctest file that declares the rung's cases (--out)"},
        {"check", "the student's loop (./lab check NN)"}};
    for (const auto& [mode, about] : modes) {
        CLI::App* sub = app.add_subcommand(mode, about);
        sub->add_option("--rung", o.rung, "the rung's id (rungs.json)")->required();
        sub->add_option("--exe", o.exe, "the rung's test program")->required();
        sub->add_option("--backend", o.backend, "what the program runs on")->check(CLI::IsMember({"cpu", "cuda"}));
        sub->add_option("--test", o.test, "run: the case");
        sub->add_option("--sanitizer", o.sanitizer, "compute-sanitizer, to run the racecheck cases with");
        sub->add_option_function<std::string>(
            "--racecheck", [&o](const std::string& tool) { o.sanitizer = tool, o.racecheck_tool = true; },
            "catch: compute-sanitizer, whose racecheck must report the mistake");
        sub->add_option("--junit", o.junit, "batch: the JUnit report");
        sub->add_option("--out", o.out, "ctest: the file to write");
        sub->add_option("--filter", o.filter, "catch: the GoogleTest filter; batch: the cases to run");
        sub->add_option("--expect", o.expect, "catch: what the failure must say (a regular expression)");
        sub->add_option("--name", o.name, "catch: the mistake's name");
        sub->add_option("--mistake", o.mistake, "catch: the mistake, in words");
        sub->add_option("--case", o.case_name, "check: that case alone, with all it printed");
        sub->add_option("--progress", o.progress, "check: the verdict as JSON, for ./lab status");
        sub->add_option("--stamp", o.stamp, "check: the exercise file's fingerprint, written with --progress");
        sub->add_option("--sample", o.sample, "batch: a seed to sample the cases with (the CPU backend)");
        sub->add_option("--timeout", o.timeout, "seconds a case may take (300)");
        sub->add_flag("--progress-lines", o.progress_lines, "batch: a progress line after every case");
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        std::exit(app.exit(e));
    } catch (const CLI::ParseError& e) {
        usage(e.what());
    }
    o.mode = app.get_subcommands().front()->get_name();
    if (o.backend.empty()) usage("--backend must be cpu or cuda");
    if (o.timeout < 1) o.timeout = 300;
    return o;
}

}  // namespace case_runner
