// TRUSTED SIDE. How gradings share a GPU (grade-all's three workers a GPU, and any lab-grade started
// by hand): each rung's cases and sanitizer tools hold it shared while they run (GpuShare), so that
// a grading waiting to have it alone for its speed (GpuLock) waits only for the rungs running then.
// Why a verdict made while it was shared can stand, and which run again alone: grader/DEVELOPING.md,
// "Where the time went" (`again`). The lock is a file per GPU, named by its UUID, in the temporary folder, held
// with flock(2), so that it goes with its holder however that ends; a second file, the queue, taken
// in turn by every request, puts a hold asked for after a wait to have the GPU alone behind it; a
// third counts the holds taken, so that a grading can tell whether another held one beside its own;
// a folder beside them has a file for each hold held, with when it began, locked by its holder (a
// waiter for the GPU alone reads their ages, and takes away a file whose holder has gone); a last
// file lines up the gradings that wait for the GPU alone, so that only one at a time holds the queue.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "result.hpp"

namespace lab::grading {

// How long a hold to share the GPU may have run before a grading that waits for the GPU alone stops
// holding up the others' rungs behind it (GpuLock): a rung's cases or tools on the GPU take seconds,
// and one that runs for longer is most likely a kernel that never ends, held to its case limit (a
// rubric's [gpu] case_seconds, 15 s, for each of three cases: the hang rule).
inline constexpr double kHoldPatience = 20;

// The GPU alone: held from construction to destruction.
class GpuLock {
public:
    // Waits until this process holds the lock at `path` (gpu_lock_path(): the GPU it uses) alone,
    // saying so once when it must wait. "" holds nothing (the CPU backend). The process must hold
    // no share of it (GpuShare) meanwhile: it would wait for itself.
    //
    // While it waits, no grading takes a new hold to share the GPU (the queue), so that the holds
    // running end and it has the GPU soon; but once one of them has run for longer than `patience`
    // seconds (a kernel that never ends, likely), it lets the queue go: the other gradings' rungs run
    // beside that one meanwhile, rather than wait for it too. It takes the queue again once none of
    // the holds held when it let go is that old (those begun since do not count: the wait ends), or
    // has the GPU the moment no hold is held; each time it let go, its patience doubles: however
    // long the rungs' holds are, it has the GPU in the end. One grading at a time waits so; the
    // others wait behind it without holding the queue. The holds' files only tell it when to let
    // others in: where they cannot be made or read, a hold stands without one and the waiter waits
    // for it, as though it were young.
    explicit GpuLock(const std::string& path, double patience = kHoldPatience);
    ~GpuLock();
    GpuLock(const GpuLock&) = delete;
    GpuLock& operator=(const GpuLock&) = delete;
    double waited() const { return waited_; }  // seconds
    int let_others_in() const { return let_others_in_; }  // the times it let the queue go

private:
    int fd_ = -1;
    double waited_ = 0;
    int let_others_in_ = 0;
};

// The age in seconds of the oldest hold to share the GPU of the lock at `path` now (0: none), taking
// away the files of holders that have gone.
double oldest_hold(const std::string& path);

// A grading's share of the GPU, held a rung at a time by the threads that run its cases and its
// sanitizer's tools, side by side. It knows whether another grading held a share while one of its
// own was held.
class GpuShare {
public:
    explicit GpuShare(std::string path) : path_(std::move(path)) {}  // "" holds nothing
    GpuShare(const GpuShare&) = delete;
    GpuShare& operator=(const GpuShare&) = delete;

    // One hold, let go when it goes. Empty where the share holds nothing.
    class Hold {
    public:
        Hold() = default;
        Hold(Hold&& other) noexcept;
        Hold& operator=(Hold&&) = delete;
        ~Hold();

    private:
        friend class GpuShare;
        Hold(GpuShare* share, int fd, int since, std::string since_name)
            : share_(share), fd_(fd), since_(since), since_name_(std::move(since_name)) {}
        GpuShare* share_ = nullptr;
        int fd_ = -1;
        int since_ = -1;          // its file in the holds' folder (when it began), locked
        std::string since_name_;  // that file's name
    };

    // Waits (saying so once a grading) until the GPU can be shared: while another grading has it
    // alone, or waits to have it, this one waits. Nothing while the grading has it alone
    // (`set_alone`), or on the CPU backend. Nothing that holds one may wait for another hold (a
    // thread asking for a second, or waiting for a thread that asks): behind a grading that waits for
    // the GPU alone, it would wait for itself. (Found on the H200: a hold kept over the whole cases,
    // to time the old way, stopped a class of three gradings at once.)
    Hold hold();
    // While this grading holds the GPU alone (a GpuLock it took once every hold went), hold() takes
    // nothing: the rungs run again then are this grading's alone.
    void set_alone(bool alone);
    // Whether another grading held a share of the GPU while one of this grading's was held, so far.
    bool shared_with_another() const;
    double waited() const;  // seconds, every hold's together
    const std::string& path() const { return path_; }

private:
    void let_go(int fd, int since, const std::string& since_name);

    std::string path_;
    mutable std::mutex mutex_;
    int held_ = 0;             // this grading's holds now
    bool shared_ = false;      // another's hold was seen beside one of this grading's
    bool alone_ = false;
    bool said_ = false;        // it said that it waits
    std::uint64_t arrivals_ = 0;  // the count of holds taken (every grading's), as of this grading's last
    double waited_ = 0;
};

// The lock file of the GPU this process uses ("" on the CPU backend or when CUDA cannot say).
std::string gpu_lock_path();

// Whether a rung whose cases (`cases`) and sanitizer tools (`tools`) ran while another grading
// shared the GPU runs again with the GPU alone, the second run's verdicts replacing the first's.
// Only where sharing could have changed a verdict: another grading's kernels can take the GPU's
// memory (a case failed with CaseResult::memory_refused, or a tool's log said the memory ran out),
// and they change how the GPU's time falls, which matters to a kernel with a race (a failed case
// beside a racecheck or synccheck hazard). They slow a case too, but a case stopped at its limit
// (CaseResult::at_limit), or a tool at its own, is not run again: the limit is a thousand times a
// case's time and more, and a kernel that never ends would hold the GPU alone for minutes. A wrong
// answer, a fault or a tool's finding of any other kind is the kernel's own, whoever shared the
// GPU: the grader once ran every such rung again, its tools and cases twice over for any student
// with a mistake.
bool run_again_alone(const std::vector<CaseResult>& cases, const SanitizerResult& tools);

}  // namespace lab::grading
