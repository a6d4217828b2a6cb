// A student's own state, kept in .lab/ at the kit's root (git ignores it; $LAB_STATE moves it): the last verdict of each
// rung (./lab check writes it, ./lab status reads it) and the hint levels seen per TODO (./lab hint, which
// also keeps them in a file the student commits). Nothing here is a grade: the grader decides in its own
// process, from scratch, and reads the hints' record as a submission's untrusted input.
#pragma once

#include <string>
#include <vector>

#include "kit.hpp"
#include "lab/hints.hpp"
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
    std::string detail;  // the TODOs left, the failing case, where a correct kernel misses the lesson
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
// With `log`, its report goes there instead of this terminal (./lab status). With `sample` (a seed as
// ./lab run prints it), the CPU backend runs one larger case of each shape, as ./lab run does.
int check_rung(const Kit& kit, const RungInfo& rung, const std::string& case_name, const std::string& log,
               const std::string& sample = "");
// Whether nvcc also compiles the kernels of build/PRESET (its nvcc_check.txt says "on:"): then a
// student's rung has a target of its own for it, rung_ID_nvcc (CMakeLists.txt).
bool nvcc_checks(const Kit& kit, const std::string& preset);
// Where the student's kernel, measured on the CPU backend (./lab explain, explain.cpp), falls short
// of the rung's reference: idle lanes, bank conflicts, scattered loads, more warps or bytes; a line
// each. None where the kit has no solutions/ (a student release) or TODOs are left.
std::vector<std::string> lesson_gaps(const Kit& kit, const RungInfo& rung);
// Whether the kit has the rung's reference to measure beside the student's (not a student release).
bool has_reference(const Kit& kit, const RungInfo& rung);

// The hint levels seen, per TODO (./lab hint): the deeper of what .lab/progress/hints.json and the
// tracked record, exercises/hints_used.json (lab/hints.hpp), say; a malformed file counts as none.
HintLevels hint_levels(const Kit& kit);
// Writes `levels` to both; returns whether the tracked record was made anew (it did not exist, or was
// not a record).
bool set_hint_levels(const Kit& kit, const HintLevels& levels);

}  // namespace lab::cli
