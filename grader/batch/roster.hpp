// INSTRUCTOR SIDE (grade-all). A class's roster: who is graded, from where.
#pragma once

#include <string>
#include <vector>

namespace lab::batch {

struct Student {
    std::string id;    // a file name: letters, digits, '.', '_', '-', '@'; not starting with '.'
    std::string path;  // absolute: a directory, a git checkout, a .zip or a .tar.gz
    std::string submitted_at;  // when it was handed in (a CSV roster's third column, ISO 8601); "" when not given
};

// The students of `source`: a folder with one entry per student (a sub-folder, a git checkout, a
// .zip, a .tar.gz or .tgz; the id is its name without the archive's extension; other files are
// listed in `ignored`), or a CSV file of "student,path" rows (a header row "student,path" is
// allowed; a relative path is relative to the CSV's folder). Sorted by id. Throws with the row or
// entry at fault: a bad id, a path that does not exist, an id twice. A CSV row may have a third
// field, submitted_at: when the LMS received it (ISO 8601 with its time zone), for the rubric's late
// policy; a header row is then "student,path,submitted_at".
std::vector<Student> read_roster(const std::string& source, std::vector<std::string>& ignored);

// Whether `id` is usable as a student's id (it names files and folders of the reports).
bool valid_id(const std::string& id);

}  // namespace lab::batch
