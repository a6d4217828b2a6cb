// The grader's tests' scratch folders.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

// An empty folder of its own under the temporary folder, named `prefix` and this process's id.
inline std::string fresh_folder(const std::string& prefix)
{
    namespace fs = std::filesystem;
    const std::string dir = fs::temp_directory_path() / (prefix + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}
