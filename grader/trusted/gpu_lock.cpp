// TRUSTED SIDE. See gpu_lock.hpp.
#include "gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "lab/cuda.hpp"
#include "lab/device.hpp"

namespace lab::grading {

std::string gpu_lock_path()
{
#if defined(LAB_BACKEND_CPU)
    return "";  // (the CPU backend's devices have no UUID, and no other grading to share with)
#else
    if (lab::device_status().emulated) return "";
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "";
    std::string uuid;
    char hex[3];
    for (unsigned char byte : prop.uuid.bytes) {
        std::snprintf(hex, sizeof hex, "%02x", byte);
        uuid += hex;
    }
    return (std::filesystem::temp_directory_path() / ("lab-grade-gpu-" + uuid + ".lock")).string();
#endif
}

GpuLock::GpuLock(const std::string& path) : path_(path)
{
    if (path_.empty()) return;
    // Never through a link; readable by all, so that another user's grading can lock it too.
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open the GPU's lock " + path_ + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    std::cout << "  waiting for the GPU: another grading runs on it (" << path_ << ")\n" << std::flush;
    const auto started = std::chrono::steady_clock::now();
    while (::flock(fd_, LOCK_EX) != 0)
        if (errno != EINTR) throw std::runtime_error("cannot lock the GPU's lock " + path_ + ": " + std::strerror(errno));
    waited_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

GpuLock::~GpuLock()
{
    if (fd_ >= 0) ::close(fd_);  // closing lets the lock go
}

}  // namespace lab::grading
