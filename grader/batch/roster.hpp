// INSTRUCTOR SIDE (grade-all). A class's roster: who is graded, from where.
#pragma once

#include <string>
#include <vector>

namespace lab::batch {

struct Student {
    std::string id;    // a file name: letters, digits, '.', '_', '-', '@'; not starting with '.'
    std::string path;  // absolute: a directory, a git checkout, a .zip or a .tar.gz
};

// The students of `source`: a folder with one entry per student (a sub-folder, a git checkout, a
// .zip, a .tar.gz or .tgz; the id is its name without the archive's extension; other files are
// listed in `ignored`), or a CSV file of "student,path" rows (a header row "student,path" is
// allowed; a relative path is relative to the CSV's folder). Sorted by id. Throws with the row or
// entry at fault: a bad id, a path that does not exist, an id twice.
std::vector<Student> read_roster(const std::string& source, std::vector<std::string>& ignored);

// Whether `id` is usable as a student's id (it names files and folders of the reports).
bool valid_id(const std::string& id);

}  // namespace lab::batch
