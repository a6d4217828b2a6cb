// INSTRUCTOR SIDE (grade-all). A graded class's totals in the layouts an LMS imports:
//   OUT/canvas.csv   Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section,
//                    then the assignment's column, after a "Points Possible" row
//   OUT/moodle.csv   Moodle's grade import (CSV): Email address, ID number, the grade, its feedback;
//                    Moodle maps the columns on import (an identifier, a grade item, its feedback)
// A roster CSV maps each student of the class (grade-all's id: the folder or archive name) to the
// LMS's own ids. Its first row names its columns: `student` and at least one identifier, of
// `canvas_id`, `sis_user_id`, `sis_login_id` (for Canvas) and `email`, `idnumber` (for Moodle);
// `name` and `section` are optional. One row per line (no line breaks inside a field).
#pragma once

#include <string>
#include <vector>

namespace lab::batch {

struct LmsExport {
    std::vector<std::string> written;   // the files written
    std::vector<std::string> warnings;  // what an instructor must look at: never silently dropped
};

// Reads OUT/gradebook.csv (grade-all's) and the roster; writes canvas.csv and moodle.csv where the
// roster has the ids each needs (a format it cannot fill is left out, with a warning). A roster
// student with no submission gets 0 and "no submission"; one whose grading failed, no grade (an
// empty cell overwrites nothing on import) and a warning; a graded student missing from the roster,
// a warning. Throws on a roster that cannot be used: no header, no `student` column, no identifier
// column, a student or an id given twice, a row with the wrong number of fields.
LmsExport export_lms(const std::string& out, const std::string& roster, const std::string& assignment);

// The roster's students (its `student` column), for grade-all to name those with no submission.
// Throws on a roster without that column.
std::vector<std::string> lms_roster_students(const std::string& roster);

}  // namespace lab::batch
