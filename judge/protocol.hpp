// The grader's runner protocol: what the trusted grader (grader/trusted/) asks of a runner
// (judge/untrusted/runner.cpp, linked with one rung's submitted kernel) and what the runner hands
// back. Data only: both sides include it, and nothing in it decides a verdict.
//
//   lab-runner-NN REQUEST OUTDIR FIRST
//
// REQUEST is a JSON file the grader writes (Request below). The runner runs its jobs from index
// FIRST on, in order, in one process (one CUDA context), once per thread order the request names
// (none: the GPU's own). For job i and order o it writes OUTDIR/i.o.out: the whole output buffer
// after the launch, [guard | slots | guard], exactly (slots + 2 * guard_count) * 4 bytes, slots being
// lab::output_count of the job's plan (grid, or a row rung's values); or, when
// the launch or a copy failed, OUTDIR/i.o.err: what the CUDA runtime said. Where a cudaMalloc was
// refused for want of memory meanwhile (the kit's or the kernel's), it first writes
// OUTDIR/i.o.refused (refused_file): on a GPU that other gradings share, the grader runs such a
// case again with the GPU alone (a runner that writes it falsely gets nothing but that second run,
// which the grader may make anyway; one that leaves it out may keep its first verdict). Before job i it appends
// "start i" to OUTDIR/progress, after it "end i". After a sticky CUDA error it exits with status
// kStickyError (lab/exit_status.hpp): the grader starts a fresh runner at the next job. A launch
// stopped at a time limit (its error names kLaunchTimeoutName) ends the job: each later order gets
// an error naming it too, and is not run.
//
// The runner makes each job's input from its seed with the kit's own generator (lab/inputs.hpp), as
// the grader does in its own process to compute the reference; the canary, guard and poison values
// come in the request, so code linked into the runner cannot change what an over-read or a stray
// write looks like. The grader bounds everything it reads back (sizes are known in advance; an
// error text is cut at kErrorBytes) and decides every verdict itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lab/exit_status.hpp"

namespace lab::judge {

using lab::exit_status::kStickyError;
constexpr std::size_t kErrorBytes = 4096;
// A job whose error names it counts as one stopped at the time limit (lab/exit_status.hpp).
using lab::exit_status::kLaunchTimeoutName;

struct Job {
    std::string op;     // "sum", "max", "min", "product"
    std::string input;  // an input kind's name, as in tests/cases.json ("float", "int_extremes", ...)
    std::uint64_t n = 0, seed = 0, offset = 0;
    unsigned grid = 0, block = 0;
    std::uint64_t shared_bytes = 0;
    std::uint32_t canary = 0, guard = 0, poison = 0;  // bit patterns of one element
    std::uint64_t guard_count = 0;  // guards before and after the output's slots
    std::uint64_t tail_count = 0;   // canaries after the input's last element
    std::string variant;  // a driver rung's scheme (lab::LaunchPlan::variant); "" for one kernel
    std::uint64_t cols = 0;  // a row case's row length (lab::LaunchPlan::cols); 0 for an array
};

// The speed job (`lab-runner-NN REQUEST OUTDIR speed`): the rung's full reduction of n floats,
// timed `warmup + samples` times on the kit's two speed inputs in turn (lab::SpeedInputs from
// `seed`, its spike moved before every launch). OUTDIR/speed.out gets one line per launch, in order:
// the milliseconds the runner timed and the bits of the float it got. The grader replays the inputs
// itself and checks every answer; it times the kit's baseline and the ceiling in its own process.
// A row kernel's job (`op` set): `op` over n / cols rows of cols floats, on lab::RowSpeedInputs
// from `seed`, L2 emptied by reading before each launch; speed.out's lines hold the milliseconds
// only, and each timed launch k's whole output goes to OUTDIR/speed-k.out (speed_output_file), raw
// floats, and then k to OUTDIR/speed.progress (speed_progress_file); a warm-up launch's output is
// not handed back (no speed figure reads it).
// With `wait_for_go`, the runner first makes its inputs, loads its kernels and allocates what it
// needs, touching the GPU for nothing else; then creates OUTDIR/speed.ready (speed_ready_file) and
// waits until OUTDIR/speed.go (speed_go_file) exists before its first launch. The grader starts
// every rung's runner so, ahead of its turn, and gives the go to one at a time.
struct SpeedJob {
    std::uint64_t n = 0, seed = 0;
    unsigned block = 0;
    int warmup = 3, samples = 20;
    std::string scheme;  // a driver rung's scheme to time (tests/speed.json); "" for the others
    std::string op;      // a row rung's kernel ("softmax"); "" for a full reduction
    std::uint64_t cols = 0;
    bool wait_for_go = false;
};

struct Request {
    std::string rung;                 // the rung id the runner must have been built for
    std::vector<std::string> orders;  // CPU backend thread orders; empty on a GPU
    std::vector<Job> jobs;
    SpeedJob speed;                   // n = 0: none
};

std::string to_json(const Request& request);
Request parse_request(const std::string& text);  // throws std::runtime_error

std::string output_file(const std::string& dir, std::size_t job, std::size_t order);
std::string speed_output_file(const std::string& dir, int launch);
// A row kernel's runner appends launch k's number here once speed_output_file(dir, k) is written
// whole: the grader checks that output while the runner times the next launches.
std::string speed_progress_file(const std::string& dir);
// A speed job with wait_for_go: the runner's "ready", and the grader's "go" (SpeedJob above).
std::string speed_ready_file(const std::string& dir);
std::string speed_go_file(const std::string& dir);
std::string error_file(const std::string& dir, std::size_t job, std::size_t order);
std::string refused_file(const std::string& dir, std::size_t job, std::size_t order);

}  // namespace lab::judge
