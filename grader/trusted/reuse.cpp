// TRUSTED SIDE. See reuse.hpp.
#include "reuse.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <vector>

#include "builder.hpp"
#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "reports.hpp"

namespace lab::grading {

namespace fs = std::filesystem;

std::string build_configuration(const std::string& cache_text)
{
    static const std::regex wanted("^(CMAKE_(C|CXX|CUDA)_(COMPILER|FLAGS[A-Z_]*|ARCHITECTURES)|CMAKE_BUILD_TYPE|"
                                   "LAB_(BACKEND|TREE|NVCC_CHECK|DRIVER_ONLY|ACTIVE_BACKEND)):[A-Z]+=(.*)$");
    std::istringstream cache(cache_text);
    std::string line, kept;
    std::smatch m;
    while (std::getline(cache, line))
        if (std::regex_match(line, m, wanted) && !m[5].str().empty()) {
            kept += m[1].str() + "=" + m[5].str() + "\n";  // not the type: -D on a command line gives STRING, not FILEPATH
            if (m[3] == "COMPILER") kept += std::to_string(lab::fnv1a(lab::read_file(m[5].str()))) + "\n";
        }
    return kept;
}

// Everything of the kit's that a rung's verdict may depend on, hashed once per grading: the
// sources and data the grader and its runners are built from and plan cases with, and the build
// tree's configuration. A new kit or another compiler grades every rung afresh. Not a student's
// to change: it is all on the grader's side.
std::uint64_t kit_fingerprint()
{
    static const std::uint64_t hash = [] {
        std::vector<std::string> files;
        for (const char* top : {"CMakeLists.txt", "rungs.json", "tests/cases.json", "tests/speed.json"})
            files.push_back(lab::kit_path(top));
        for (const char* dir : {"kit", "harness", "cpu_backend", "judge", "grader", "cmake"}) {
            std::error_code error;
            for (fs::recursive_directory_iterator it(lab::kit_path(dir), error), end; !error && it != end; it.increment(error))
                if (it->is_regular_file(error) && it->path().string().find("__pycache__") == std::string::npos)
                    files.push_back(it->path().string());
        }
        std::sort(files.begin(), files.end());
        std::uint64_t h = lab::fnv1a_mix(lab::fnv1a("lab-grade kit"), build_configuration(lab::read_file(grading_build_dir() + "/CMakeCache.txt")));
        const std::string root = lab::kit_path("");
        for (const std::string& f : files)
            h = lab::fnv1a_mix(lab::fnv1a_mix(h, f.rfind(root, 0) == 0 ? f.substr(root.size()) : f),
                               lab::try_read_file(f).value_or("(absent)"));
        return h;
    }();
    return hash;
}

std::string reuse_key(const Grade& g, const std::string& rubric_text, bool skip_integrity, const std::string& id)
{
    std::uint64_t h = lab::fnv1a_mix(lab::fnv1a("reuse"), std::to_string(kit_fingerprint()));
    for (const std::string& part : {rubric_text, g.seed_text(), g.device, g.backend, std::string(skip_integrity ? "no integrity" : "integrity"), id})
        h = lab::fnv1a_mix(h, part);
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

std::map<std::string, RungResult> reusable_rungs(const std::string& dir, const std::map<std::string, std::string>& files,
                                                 const std::function<std::string(const std::string&)>& key_of)
{
    std::map<std::string, RungResult> reused;
    // The instructor's record: a student's copy has no hidden case to take over.
    const std::string record = instructor_record(dir);
    const auto text = lab::try_read_file(record);
    if (!text) {
        std::cout << "  reuse: nothing to reuse (" << record << " cannot be read)\n";
        return reused;
    }
    nlohmann::json earlier;
    try {
        earlier = nlohmann::json::parse(*text);
    } catch (const std::exception& e) {
        std::cout << "  reuse: nothing to reuse (" << record << " is not JSON: " << e.what() << ")\n";
        return reused;
    }
    for (const auto& [id, contents] : files) {
        std::string why;
        const nlohmann::json* found = nullptr;
        if (earlier.is_object() && earlier.contains("rungs") && earlier.at("rungs").is_array())
            for (const auto& r : earlier.at("rungs"))
                if (r.is_object() && r.value("id", "") == id) found = &r;
        if (!found || found->value("reuse_key", "").empty()) why = "its cases did not run in the earlier grading";
        else if (found->value("reuse_key", "") != key_of(id)) why = "the kit, rubric, seed or device changed";
        else if (lab::try_read_file(dir + "/graded/" + id + ".cu") != contents) why = "its file changed";
        if (why.empty()) {
            try {
                reused[id] = rung_from_json(*found);
                continue;
            } catch (const std::exception& e) {
                why = std::string("the earlier result cannot be read: ") + e.what();
            }
        }
        std::cout << "  reuse: " << id << " is graded again: " << why << '\n';
    }
    return reused;
}

}  // namespace lab::grading
