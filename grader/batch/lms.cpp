// INSTRUCTOR SIDE (grade-all). See lms.hpp.
#include "lms.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "lab/text.hpp"

namespace lab::batch {

namespace {

struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<int> lines;  // each row's line in the file
};

Table read_table(const std::string& path, const std::string& what)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error(what + " " + path + " cannot be read");
    Table t;
    int line_number = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line_number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a spreadsheet's byte order mark
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        std::vector<std::string> fields;
        try {
            fields = lab::csv_fields(line);
        } catch (const std::exception& e) {
            throw std::runtime_error(path + ":" + std::to_string(line_number) + ": " + e.what());
        }
        if (t.header.empty()) {
            t.header = fields;
            continue;
        }
        if (fields.size() != t.header.size())
            throw std::runtime_error(path + ":" + std::to_string(line_number) + ": " + std::to_string(fields.size()) +
                                     " fields, but the header names " + std::to_string(t.header.size()));
        t.rows.push_back(std::move(fields));
        t.lines.push_back(line_number);
    }
    if (t.header.empty()) throw std::runtime_error(what + " " + path + " is empty");
    return t;
}

int column(const Table& t, const std::string& name)
{
    for (std::size_t i = 0; i < t.header.size(); ++i)
        if (t.header[i] == name) return static_cast<int>(i);
    return -1;
}

std::string row_of(const std::vector<std::string>& fields)
{
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + lab::csv_field(fields[i]);
    return line + "\n";
}

}  // namespace

std::vector<std::string> lms_roster_students(const std::string& roster_path)
{
    const Table roster = read_table(roster_path, "the roster");
    const int student = column(roster, "student");
    if (student < 0) throw std::runtime_error(roster_path + ": no \"student\" column (the id grade-all knows each student by)");
    std::vector<std::string> ids;
    for (const auto& r : roster.rows)
        if (!r[static_cast<std::size_t>(student)].empty()) ids.push_back(r[static_cast<std::size_t>(student)]);
    return ids;
}

LmsExport export_lms(const std::string& out, const std::string& roster_path, const std::string& assignment)
{
    const Table roster = read_table(roster_path, "the roster");
    static const std::vector<std::string> known = {"student", "name", "email", "canvas_id", "sis_user_id", "sis_login_id",
                                                   "section", "idnumber"};
    for (const std::string& h : roster.header)
        if (std::find(known.begin(), known.end(), h) == known.end())
            throw std::runtime_error(roster_path + ": unknown column \"" + h + "\" (known: student, name, email, canvas_id, "
                                     "sis_user_id, sis_login_id, section, idnumber)");
    const int student = column(roster, "student");
    if (student < 0) throw std::runtime_error(roster_path + ": no \"student\" column (the id grade-all knows each student by)");
    const std::vector<std::string> canvas_ids = {"canvas_id", "sis_user_id", "sis_login_id"}, moodle_ids = {"email", "idnumber"};
    auto has_any = [&](const std::vector<std::string>& names) {
        for (const std::string& n : names)
            if (column(roster, n) >= 0) return true;
        return false;
    };
    if (!has_any(canvas_ids) && !has_any(moodle_ids))
        throw std::runtime_error(roster_path + ": no identifier column for an LMS: give canvas_id, sis_user_id or "
                                 "sis_login_id (Canvas), or email or idnumber (Moodle)");
    // Nobody twice: not a student, not an LMS id.
    for (const std::string name : {"student", "email", "canvas_id", "sis_user_id", "sis_login_id", "idnumber"}) {
        const int c = column(roster, name);
        if (c < 0) continue;
        std::map<std::string, int> seen;
        for (std::size_t r = 0; r < roster.rows.size(); ++r) {
            const std::string& value = roster.rows[r][static_cast<std::size_t>(c)];
            if (value.empty()) {
                if (name == "student")
                    throw std::runtime_error(roster_path + ":" + std::to_string(roster.lines[r]) + ": no student id");
                continue;
            }
            const auto [at, fresh] = seen.emplace(value, roster.lines[r]);
            if (!fresh)
                throw std::runtime_error(roster_path + ": " + name + " \"" + value + "\" is on lines " +
                                         std::to_string(at->second) + " and " + std::to_string(roster.lines[r]));
        }
    }

    const Table book = read_table(out + "/gradebook.csv", "grade-all's gradebook");
    const int b_student = column(book, "student"), b_status = column(book, "status"), b_total = column(book, "total"),
              b_max = column(book, "max");
    if (b_student < 0 || b_status < 0 || b_total < 0 || b_max < 0)
        throw std::runtime_error(out + "/gradebook.csv is not grade-all's gradebook (student,status,total,max,...)");
    struct Result {
        std::string status, total, max;
    };
    std::map<std::string, Result> results;
    std::string max_points;
    for (const auto& r : book.rows) {
        results[r[static_cast<std::size_t>(b_student)]] = {r[static_cast<std::size_t>(b_status)], r[static_cast<std::size_t>(b_total)],
                                                           r[static_cast<std::size_t>(b_max)]};
        if (r[static_cast<std::size_t>(b_status)] == "graded" && max_points.empty()) max_points = r[static_cast<std::size_t>(b_max)];
    }

    LmsExport done;
    std::set<std::string> listed;
    struct Line {
        std::map<std::string, std::string> ids;
        std::string grade, feedback;
    };
    std::vector<Line> lines;
    for (const auto& r : roster.rows) {
        Line line;
        for (std::size_t c = 0; c < roster.header.size(); ++c) line.ids[roster.header[c]] = r[c];
        const std::string& id = r[static_cast<std::size_t>(student)];
        listed.insert(id);
        const auto found = results.find(id);
        if (found == results.end() || found->second.status == "no submission") {
            line.grade = "0";
            line.feedback = "no submission";
        } else if (found->second.status == "graded") {
            line.grade = found->second.total;
            line.feedback = found->second.total + " of " + found->second.max + " points; the report: students/" + id + "/report.html";
        } else {
            line.feedback = found->second.status;
            done.warnings.push_back(id + ": left without a grade (" + found->second.status + ")");
        }
        lines.push_back(std::move(line));
    }
    for (const auto& [id, result] : results)
        if (!listed.count(id))
            done.warnings.push_back(id + ": " +
                                    (result.status == "graded" ? "graded (" + result.total + " of " + result.max + " points)"
                                                               : "in the class (" + result.status + ")") +
                                    " but not in the roster " + roster_path + ": add a row for them");

    if (has_any(canvas_ids)) {
        std::ostringstream csv;
        csv << row_of({"Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment})
            << row_of({"    Points Possible", "", "", "", "", max_points});
        for (const Line& l : lines)
            csv << row_of({l.ids.count("name") ? l.ids.at("name") : "", l.ids.count("canvas_id") ? l.ids.at("canvas_id") : "",
                           l.ids.count("sis_user_id") ? l.ids.at("sis_user_id") : "",
                           l.ids.count("sis_login_id") ? l.ids.at("sis_login_id") : "",
                           l.ids.count("section") ? l.ids.at("section") : "", l.grade});
        std::ofstream(out + "/canvas.csv", std::ios::trunc) << csv.str();
        done.written.push_back(out + "/canvas.csv");
    } else {
        done.warnings.push_back("no canvas.csv: the roster has none of canvas_id, sis_user_id, sis_login_id");
    }
    if (has_any(moodle_ids)) {
        std::ostringstream csv;
        csv << row_of({"Email address", "ID number", assignment, assignment + " (feedback)"});
        for (const Line& l : lines)
            csv << row_of({l.ids.count("email") ? l.ids.at("email") : "", l.ids.count("idnumber") ? l.ids.at("idnumber") : "",
                           l.grade, l.feedback});
        std::ofstream(out + "/moodle.csv", std::ios::trunc) << csv.str();
        done.written.push_back(out + "/moodle.csv");
    } else {
        done.warnings.push_back("no moodle.csv: the roster has neither email nor idnumber");
    }
    return done;
}

}  // namespace lab::batch
