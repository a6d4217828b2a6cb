// A student's own state, kept in .lab/ at the kit's root (git ignores it; $LAB_STATE moves it): the last verdict of each
// rung (./lab check writes it, ./lab status reads it) and how many of each rung's hints have been
// shown (./lab hint). Nothing here is a grade: the grader decides in its own process, from scratch.
#pragma once

#include <string>
#include <vector>

#include "kit.hpp"
#include "lab/registry.hpp"

namespace lab::cli {

struct RungState {
    enum class Kind {
        not_started,  // the exercise is what ./lab generate wrote
        todos,        // TODO lines are left
        unchecked,    // finished, edited since its last check (or never checked)
        failing,      // its last check failed
        correct,      // its last check passed (on a GPU, with no speed verdict)
        fast,         // correct, and its speed test passed (GPU)
        slow,         // correct, but its speed test failed (GPU)
    };
    Kind kind = Kind::not_started;
    std::string detail;  // the TODOs left, the failing case
    bool done() const { return kind == Kind::correct || kind == Kind::fast || kind == Kind::slow; }
};

std::string exercise_file(const Kit& kit, const RungInfo& rung);  // exercises/NN_name.cu
// What ./lab check records a verdict against: the file's bytes (FNV-1a 64, hex).
std::string stamp_of(const std::string& path);
std::string progress_file(const Kit& kit, const RungInfo& rung);  // .lab/progress/NN_name.json
RungState rung_state(const Kit& kit, const RungInfo& rung);
std::string describe(const RungState& state);  // "failing: Ex03/Sum.MatchesReference/int_n33_b64"

// The first rung not done, in ladder order; nullptr when every one is.
const RungInfo* current_rung(const Kit& kit);

// Builds the student's rung quietly and runs the student's loop on it (cli/check.cpp); its exit status.
// With `log`, its report goes there instead of this terminal (./lab status).
int check_rung(const Kit& kit, const RungInfo& rung, const std::string& case_name, const std::string& log);
// Where the student's kernel, measured on the CPU backend (./lab explain, explain.cpp), falls short
// of the rung's reference: idle lanes, bank conflicts, scattered loads, more warps or bytes; a line
// each. None where the kit has no solutions/ (a student release) or TODOs are left.
std::vector<std::string> lesson_gaps(const Kit& kit, const RungInfo& rung);

// How many of a rung's hints have been shown; set after showing more.
int hints_shown(const Kit& kit, const RungInfo& rung);
void set_hints_shown(const Kit& kit, const RungInfo& rung, int count);

}  // namespace lab::cli
