// TRUSTED SIDE. How gradings share a GPU (grade-all's workers share each GPU three by three, and any
// lab-grade started by hand joins them): a grading's cases and its sanitizer's tools share the GPU
// with other gradings' cases and tools; its speed has the GPU to itself, with no other student's
// kernel on it while a sample is timed. So a grading holds the GPU's lock shared from its first case
// to its tools' end, then alone for its speed.
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
// ends, however it ends. A grading that waits to have the GPU alone goes first: one that asks to
// share it after that waits behind (a second file, the queue, taken in turn by every request). A
// third file counts who came to share it, so that a grading can tell whether it shared the GPU.
#pragma once

#include <cstdint>
#include <string>

namespace lab::grading {

class GpuLock {
public:
    enum class Use { shared, alone };
    // Waits until this process holds the lock at `path` (gpu_lock_path(): the GPU it uses) for `use`,
    // saying so once when it must wait. "" holds nothing (the CPU backend).
    GpuLock(const std::string& path, Use use);
    ~GpuLock();
    GpuLock(const GpuLock&) = delete;
    GpuLock& operator=(const GpuLock&) = delete;
    double waited() const { return waited_; }  // seconds
    const std::string& path() const { return path_; }
    // Held shared: whether another grading shared the GPU meanwhile, so far (it held the lock when
    // this one took it, or came to share it since). false when held alone.
    bool shared_with_another() const;

private:
    int fd_ = -1;
    double waited_ = 0;
    bool alone_at_first_ = true;
    std::uint64_t arrivals_ = 0;  // the count of arrivals to share, this one's included
    std::string path_;
};

// The lock file of the GPU this process uses ("" on the CPU backend or when CUDA cannot say).
std::string gpu_lock_path();

}  // namespace lab::grading
