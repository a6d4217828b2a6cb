// TRUSTED SIDE. How gradings share a GPU (grade-all's workers share each GPU three by three, and any
// lab-grade started by hand joins them): a grading's cases and its sanitizer's tools share the GPU
// with other gradings' cases and tools; its speed has the GPU to itself, with no other student's
// kernel on it while a sample is timed. So a grading holds the GPU's lock shared a rung at a time,
// while that rung's cases or its tools run (GpuShare), then alone for its speed (GpuLock).
//
// A rung at a time, not from the first case to the tools' end: a grading that asks for the GPU alone
// then waits for the rungs now running on it to end (seconds), not for every other grading's whole
// cases and tools; and the gradings it holds back meanwhile wait that long, not as long again.
//
// Sharing cannot make a kernel pass: each runner has a context of its own, so another grading's
// kernel can only slow it (past a case's time limit) or take the memory it asks for. So a verdict
// made while the GPU was shared stands when it is a pass; a rung with a failed case or a tool's
// finding made then is run again with the GPU alone (main.cpp), and that run's verdict is the one
// given: the same as a grading alone on the GPU would give. Not for a case stopped at its time
// limit: the others' kernels take turns with it, slowing it by their number at most, where the
// limit is a thousand times a case's time; and a kernel that never ends would hold the GPU alone
// for minutes more.
//
// The lock is a file per GPU, named by the GPU's UUID (whatever CUDA_VISIBLE_DEVICES calls it), in
// the machine's temporary folder, held with flock(2), so that the kernel lets it go when its holder
// ends, however it ends. A grading that waits to have the GPU alone goes first: a hold to share it
// asked for after that waits behind (a second file, the queue, taken in turn by every request). A
// third file counts the holds taken to share it, so that a grading can tell whether another shared
// the GPU while it held it.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

namespace lab::grading {

// The GPU alone: held from construction to destruction.
class GpuLock {
public:
    // Waits until this process holds the lock at `path` (gpu_lock_path(): the GPU it uses) alone,
    // saying so once when it must wait. "" holds nothing (the CPU backend). The process must hold
    // no share of it (GpuShare) meanwhile: it would wait for itself.
    explicit GpuLock(const std::string& path);
    ~GpuLock();
    GpuLock(const GpuLock&) = delete;
    GpuLock& operator=(const GpuLock&) = delete;
    double waited() const { return waited_; }  // seconds

private:
    int fd_ = -1;
    double waited_ = 0;
};

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
        Hold(GpuShare* share, int fd) : share_(share), fd_(fd) {}
        GpuShare* share_ = nullptr;
        int fd_ = -1;
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
    void let_go(int fd);

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

}  // namespace lab::grading
