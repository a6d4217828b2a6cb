// INSTRUCTOR SIDE (grade-all). See roster.hpp.
#include "roster.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "lab/text.hpp"

namespace lab::batch {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& text, const std::string& tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The id an entry of a class folder stands for; "" when it is no submission.
std::string id_of_entry(const fs::directory_entry& entry)
{
    const std::string name = entry.path().filename().string();
    if (entry.is_directory()) return name;
    for (const std::string ext : {".tar.gz", ".tgz", ".zip"})
        if (entry.is_regular_file() && ends_with(name, ext)) return name.substr(0, name.size() - ext.size());
    return "";
}

}  // namespace

bool valid_id(const std::string& id)
{
    if (id.empty() || id.size() > 128 || id[0] == '.' || id[0] == '-') return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-' || c == '@';
    });
}

std::vector<Student> read_roster(const std::string& source, std::vector<std::string>& ignored)
{
    std::vector<Student> students;
    std::error_code error;
    const fs::path root = fs::absolute(source);
    if (fs::is_directory(root, error)) {
        for (const auto& entry : fs::directory_iterator(root)) {
            const std::string name = entry.path().filename().string();
            if (name[0] == '.') continue;  // .git, editors' files
            const std::string id = id_of_entry(entry);
            if (id.empty()) {
                ignored.push_back(name + " (not a folder, a .zip, a .tar.gz or a .tgz)");
                continue;
            }
            if (!valid_id(id))
                throw std::runtime_error(source + ": \"" + name + "\" is no usable student id (letters, digits, . _ - @; rename it, or list the class in a CSV)");
            students.push_back({id, entry.path().lexically_normal().string(), ""});
        }
    } else if (fs::is_regular_file(root, error)) {
        std::ifstream in(root);
        int row = 0;
        for (std::string line; std::getline(in, line);) {
            ++row;
            const std::string where = source + ":" + std::to_string(row) + ": ";
            if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
            std::vector<std::string> fields;
            try {
                fields = lab::csv_fields(line);
            } catch (const std::exception& e) {
                throw std::runtime_error(where + e.what());
            }
            if (row == 1 && fields.size() >= 2 && fields[0] == "student" && fields[1] == "path") continue;
            if (fields.size() != 2 && fields.size() != 3)
                throw std::runtime_error(where + "expected student,path or student,path,submitted_at (got " +
                                         std::to_string(fields.size()) + " fields)");
            if (fields.size() == 3 && !fields[2].empty()) try {
                    lab::parse_time(fields[2]);  // as lab-grade grade --submitted-at will read it
                } catch (const std::exception& e) {
                    throw std::runtime_error(where + "submitted_at " + e.what());
                }
            if (!valid_id(fields[0]))
                throw std::runtime_error(where + "\"" + fields[0] + "\" is no usable student id (letters, digits, . _ - @)");
            fs::path path = fields[1];
            if (path.is_relative()) path = root.parent_path() / path;
            if (!fs::exists(path, error)) throw std::runtime_error(where + path.string() + " does not exist");
            students.push_back({fields[0], path.lexically_normal().string(), fields.size() == 3 ? fields[2] : ""});
        }
    } else {
        throw std::runtime_error(source + " is neither a folder of submissions nor a CSV file of student,path rows");
    }
    std::sort(students.begin(), students.end(), [](const Student& a, const Student& b) { return a.id < b.id; });
    for (std::size_t i = 1; i < students.size(); ++i)
        if (students[i].id == students[i - 1].id)
            throw std::runtime_error(source + ": the student \"" + students[i].id + "\" is there twice (" +
                                     students[i - 1].path + " and " + students[i].path + ")");
    if (students.empty()) throw std::runtime_error(source + " names no submission");
    return students;
}

}  // namespace lab::batch
