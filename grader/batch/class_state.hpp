// INSTRUCTOR SIDE. Internal to grade-all (grade_all.cpp, slurm.cpp): the class's state in OUT
// (class.json: its seed, rubric, generation and roster), where each student's grading lies
// (students/ID, not-graded/ID), which are graded already, the class's reports, and the progress
// line. See README.md for OUT's layout.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batch_options.hpp"
#include "gradebook.hpp"
#include "roster.hpp"

namespace lab::batch {

// Set by Ctrl-C (or Slurm's SIGTERM; grade_all.cpp): nothing new starts.
extern std::atomic<bool> stop_requested;

// Written whole, then renamed: a reader (or an interrupted run) never sees half a file.
void write_text(const std::string& path, const std::string& text);
std::string host_name();
std::string hex(std::uint64_t value);
std::uint64_t parse_seed(const std::string& text);
// What the submission holds (every file's path and bytes; a checkout's .git left out): a change
// to it grades it again on a rerun.
std::string fingerprint(const std::string& path);

// The folders of OUT.
std::string graded_dir(const std::string& out, const std::string& id);
// The instructor's record of a grading in a student's folder (the file lab-grade writes as
// OUT/instructor/grade.json: every case, the hidden ones too); its grade.json is the student's copy.
inline std::string record_in(const std::string& dir) { return dir + "/instructor/grade.json"; }
// The assignment's name when none was ever given (--assignment).
inline const char* const kDefaultAssignment = "CUDA reduction lab";
std::string failed_dir(const std::string& out, const std::string& id);

// The class's own state in OUT (class.json): its seed and rubric, kept between runs, and the
// roster of the latest run, which Slurm's tasks read.
struct ClassState {
    std::uint64_t seed = 0;
    std::string rubric, rubric_hash;  // the rubric's absolute path ("" for the kit's) and what it held
    int generation = 1;               // one more at each --force: a grade of an earlier one no longer counts
    // A changed submission's unchanged rungs keep their grade (lab-grade grade --reuse) within a
    // generation; --no-reuse (this run's, kept for its Slurm tasks) grades every rung again.
    bool reuse = true;
    std::vector<Student> students;
    std::string assignment = kDefaultAssignment;  // its name: the class page's title, the LMS export's column
    // The LMS roster's students (--lms-roster), kept between runs: those without a submission are
    // named in the summary and the gradebook ("no submission").
    std::vector<std::string> lms_students;
    // Each submission's fingerprint, read once per run (Slurm's watch asks for it at every look).
    mutable std::map<std::string, std::string> prints;
    const std::string& print_of(const Student& s) const
    {
        auto at = prints.find(s.id);
        // A new time of hand-in (the late policy's) grades it again, as new files do.
        if (at == prints.end())
            at = prints.emplace(s.id, fingerprint(s.path) + (s.submitted_at.empty() ? "" : " handed in " + s.submitted_at)).first;
        return at->second;
    }
};

nlohmann::json to_json(const ClassState& state);
ClassState read_state(const std::string& out);
std::uint64_t student_seed(std::uint64_t class_seed, const std::string& id);
// Graded in this generation, from the submission as it is now.
bool is_graded(const std::string& out, const ClassState& state, const Student& s);
// The last line of a file that is not blank.
std::string last_line(const std::string& path);
// Why the student's last grading failed, from not-graded/ID: what lab-grade's exit said, its log's
// last line, and where the log is.
std::string why_not_graded(const std::string& out, const std::string& id);

// One grading's outcome, as grade-all prints it.
struct Graded {
    bool ok = false, stopped = false;
    double seconds = 0, score = 0, max = 0;
    std::string why;
};

std::string describe(const Graded& g);
std::string duration(double seconds);

// Shows where a batch is: on a terminal one line rewritten in place, else a plain line each time.
class ProgressLine {
public:
    explicit ProgressLine(std::size_t total) : total_(total), terminal_(isatty(STDOUT_FILENO) == 1) {}
    void starting(std::size_t done, const std::string& what)
    {
        const std::string line = "[" + std::to_string(done) + "/" + std::to_string(total_) + "] " + what + eta(done);
        if (terminal_) std::printf("\r\033[K%s", line.c_str());
        else std::printf("grade-all: %s\n", line.c_str());
        std::fflush(stdout);
    }
    void finished(std::size_t done, const std::string& line, double seconds)
    {
        spent_ += seconds;
        ++timed_;
        if (terminal_) std::printf("\r\033[K");
        std::printf("grade-all: [%zu/%zu] %s\n", done, total_, line.c_str());
        std::fflush(stdout);
    }

private:
    std::string eta(std::size_t done) const
    {
        if (timed_ == 0 || done >= total_) return "";
        return " (about " + duration(spent_ / timed_ * static_cast<double>(total_ - done)) + " left)";
    }
    std::size_t total_, timed_ = 0;
    double spent_ = 0;
    bool terminal_;
};

// The class's state for this run: OUT's seed and rubric kept (a different --seed or rubric needs
// --force, so that one gradebook never mixes two), the roster as the source gives it now.
ClassState prepare(const BatchOptions& options, std::vector<Student> students);
// What is left of gradings that never finished (a killed run): removed, never read.
void remove_leftovers(const std::string& out);
// The students not graded yet in this generation (or changed since); `already` counts the others.
std::vector<Student> to_grade(const BatchOptions& options, const ClassState& state, std::size_t& already);
// Every student's outcome as OUT holds it now (`why_not`: what this run knows of those not graded).
std::vector<Outcome> outcomes(const std::string& out, const ClassState& state, const std::map<std::string, std::string>& why_not = {});
std::vector<std::string> graded_ids(const std::vector<Outcome>& all);
// The gradebook, the class summary and the similarity report, from the outcomes.
void write_class_reports(const std::string& out, const std::vector<Outcome>& all, const std::string& assignment);
struct SimilarityOptions;
// OUT/similarity.md and .html: the graded students' files compared rung by rung (similarity.hpp);
// returns how many pairs were listed. grade-all and class-report write them with the defaults.
int write_similarity_reports(const std::string& out, const std::vector<std::string>& students, const SimilarityOptions& options);
// The reports written; 130 when stopped, 1 when someone is not graded, else 0.
int finish(const std::string& out, const ClassState& state, const std::map<std::string, std::string>& why_not = {});

// The class as a Slurm array job (slurm.cpp).
int grade_on_slurm(const BatchOptions& options, const ClassState& state);

}  // namespace lab::batch
