// TRUSTED SIDE. One grading at a time on a GPU: a grading's cases, its sanitizer's tools and its
// speed hold the GPU to themselves, whichever process or build tree the other gradings run from
// (grade-all's workers share a GPU two by two: one builds, or ends its CPU-only passes, while the
// other runs). The lock is a
// file per GPU, named by the GPU's UUID (whatever CUDA_VISIBLE_DEVICES calls it), in the machine's
// temporary folder, held with flock(2): the kernel lets it go when its holder ends, however it ends.
#pragma once

#include <string>

namespace lab::grading {

class GpuLock {
public:
    // Waits until this process holds the lock at `path` (gpu_lock_path(): the GPU it uses), saying
    // so once when another holds it. "" holds nothing (the CPU backend).
    explicit GpuLock(const std::string& path);
    ~GpuLock();
    GpuLock(const GpuLock&) = delete;
    GpuLock& operator=(const GpuLock&) = delete;
    double waited() const { return waited_; }  // seconds
    const std::string& path() const { return path_; }

private:
    int fd_ = -1;
    double waited_ = 0;
    std::string path_;
};

// The lock file of the GPU this process uses ("" on the CPU backend or when CUDA cannot say).
std::string gpu_lock_path();

}  // namespace lab::grading
