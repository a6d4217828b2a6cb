// ./lab check [NN] [--case NAME] [--seed S] [--all-cases] (and ./lab test NN, every case): the
// student's loop. Builds one rung of the student's exercises, quietly, and runs the loop on its
// suites program (loop.cpp): the small cases first, and what matters: the first failing case with
// its likely cause and the command that runs it alone, or, once everything passes, the larger
// cases (on the CPU backend one of each shape, drawn by a seed it prints) and the next rung. Its
// verdict goes to .lab/progress/ for ./lab status (not with LAB_CASES_SEED set: a grading's
// inputs). On the CPU backend a correct kernel is also measured beside the reference (./lab
// explain), and check says where it misses the rung's lesson.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "batch.hpp"
#include "kit.hpp"
#include "lab/cases.hpp"
#include "loop.hpp"
#include "progress.hpp"

namespace lab::cli {

bool nvcc_checks(const Kit& kit, const std::string& preset)
{
    std::string line;
    std::getline(std::ifstream(kit.tree(preset) + "/nvcc_check.txt"), line);
    return line.rfind("on:", 0) == 0;
}

int check_rung(const Kit& kit, const RungInfo& rung, const std::string& case_name, const std::string& log,
               const std::string& sample)
{
    const std::string preset = kit.preset_for("exercises");
    const std::string program = suites_program(rung);
    kit.build_quietly(preset, {program}, kit.tree(preset) + "/build-" + rung.id + ".log");
    std::filesystem::create_directories(std::filesystem::path(progress_file(kit, rung)).parent_path());
    Loop loop;
    loop.rung = &rung;
    loop.program = kit.program(preset, program);
    loop.cpu = kit.is_cpu(preset);
    loop.log = kit.tree(preset) + "/check-" + rung.id + ".log";
    loop.case_name = case_name;
    if (loop.cpu && case_name.empty()) loop.sample = sample;
    // Where nvcc checks the kernel (a CPU tree on a machine with nvcc), that check is built apart, once
    // the small cases pass and beside the larger ones: nvcc's seconds come after the first verdict,
    // and before the rung is correct.
    if (loop.cpu && nvcc_checks(kit, preset))
        loop.beside_larger = [&kit, &rung, preset] {
            kit.build_quietly(preset, {"rung_" + rung.id + "_nvcc"}, kit.tree(preset) + "/build-" + rung.id + "-nvcc.log", true);
        };
    // A correct kernel on the CPU backend (whose build tree explain shares): measured beside the
    // reference, and a word where it misses what the rung teaches. Never changes the verdict.
    if (loop.cpu && case_name.empty() && log.empty() && has_reference(kit, rung))
        loop.lesson_gaps = [&kit, &rung] { return lesson_gaps(kit, rung); };
    if (case_name.empty() && cases_seed_from_environment()) {
        // A grading's inputs (its report's seed): a check for finding what the grading found, not
        // one that ./lab status counts.
        say(std::string("(the visible cases' inputs drawn from LAB_CASES_SEED=") + std::getenv("LAB_CASES_SEED") +
            ", as the grading with that seed drew them: ./lab status does not count this check)");
        loop.sample.clear();  // every case, as the grading ran them
    } else if (case_name.empty()) {
        loop.progress = progress_file(kit, rung);
        loop.stamp = stamp_of(exercise_file(kit, rung));
    }
    if (log.empty()) return student_loop(loop, std::cout);
    std::ofstream out(log);
    return student_loop(loop, out);
}

int check(const Kit& kit, const std::string& key, const std::string& case_name, const std::string& seed, bool all_cases)
{
    const RungInfo* rung = key.empty() ? current_rung(kit) : &Registry::kit().get(key);
    if (!rung) {
        say("Every rung is done: ./lab status shows the ladder.");
        return 0;
    }
    if (key.empty()) say("rung " + rung->id + " (the first one not done; ./lab check NN picks another)");
    kit.require_toolchain();
    if (kit.is_cpu(kit.preset_for("exercises"))) {
        static bool said = false;
        if (!said) say("(no GPU here: your kernel runs on the kit's CPU backend)");
        said = true;
    }
    const bool sampled = !all_cases && case_name.empty() && kit.is_cpu(kit.preset_for("exercises"));
    return check_rung(kit, *rung, case_name, "", sampled ? sample_seed(seed) : "");
}

}  // namespace lab::cli
