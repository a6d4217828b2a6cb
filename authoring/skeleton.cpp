// Instructor side.
#include "skeleton.hpp"

#include <set>
#include <sstream>

namespace lab {

namespace {

std::string trim_left(const std::string& line) { return line.substr(std::min(line.find_first_not_of(" \t"), line.size())); }
std::string indentation(const std::string& line) { return line.substr(0, line.size() - trim_left(line).size()); }
bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

const std::string kBegin = "// BEGIN TODO(";
const std::string kStub = "// STUB:";
const std::string kEnd = "// END TODO";

}  // namespace

Skeleton make_skeleton(const std::string& solution, const std::string& source_name, const std::string& rung_number)
{
    enum class State { outside, instruction, solution, stub } state = State::outside;
    Skeleton skeleton;
    std::set<std::string> names;
    std::ostringstream out;
    std::istringstream in(solution);
    std::string line;
    int number = 0, region_start = 0;
    bool header_done = false;
    auto fail = [&](const std::string& why) {
        throw SkeletonError(source_name + ":" + std::to_string(number) + ": " + why);
    };

    while (std::getline(in, line)) {
        ++number;
        const std::string body = trim_left(line);
        const bool is_comment = starts_with(body, "//");

        // The exercise says how to work on it, right after the file's opening comment.
        if (!header_done && !is_comment) {
            header_done = true;
            out << "//\n// Exercise: fill in each TODO below, then delete its TODO line. Check your work with\n"
                << "// ./lab check " << rung_number << " (./lab watch " << rung_number << " checks on every save); stuck? ./lab hint "
                << rung_number << ".\n";
        }

        switch (state) {
        case State::outside:
            if (starts_with(body, kStub) || starts_with(body, kEnd)) fail("'" + body + "' outside a TODO region");
            if (!starts_with(body, kBegin)) {
                out << line << '\n';
                break;
            }
            {
                const auto name_end = body.find_first_of(",)", kBegin.size());
                if (name_end == std::string::npos) fail("a BEGIN TODO line needs a name: // BEGIN TODO(NN-name, ~N lines): ...");
                const std::string name = body.substr(kBegin.size(), name_end - kBegin.size());
                if (!starts_with(name, rung_number + "-") || name.size() <= rung_number.size() + 1)
                    fail("TODO name '" + name + "' must start with the rung's number: " + rung_number + "-...");
                if (!names.insert(name).second) fail("TODO name '" + name + "' is used twice");
                if (body.compare(name_end, 3, ", ~") != 0)
                    fail("TODO(" + name + ") must say how much to write: // BEGIN TODO(" + name + ", ~N lines): ...");
                skeleton.todo_names.push_back(name);
                out << indentation(line) << "// TODO(" << body.substr(kBegin.size()) << '\n';
                state = State::instruction;
                region_start = number;
            }
            break;
        case State::instruction:
            if (is_comment && !starts_with(body, kStub) && !starts_with(body, kEnd) && !starts_with(body, kBegin)) {
                out << line << '\n';
                break;
            }
            state = State::solution;
            [[fallthrough]];
        case State::solution:
            if (starts_with(body, kBegin)) fail("a TODO region cannot start inside another (opened at line " + std::to_string(region_start) + ")");
            if (starts_with(body, kEnd)) fail("the TODO region opened at line " + std::to_string(region_start) + " has no STUB line; write '// STUB:' for no code");
            if (!starts_with(body, kStub)) {  // a solution line: left out of the exercise
                if (!body.empty()) skeleton.solution_lines.push_back(body);
                break;
            }
            state = State::stub;
            [[fallthrough]];
        case State::stub:
            if (starts_with(body, kEnd)) {
                state = State::outside;
                break;
            }
            if (!starts_with(body, kStub)) fail("only STUB lines may follow a STUB line, up to // END TODO");
            {
                std::string code = body.substr(kStub.size());
                if (!code.empty() && code[0] == ' ') code.erase(0, 1);
                if (!code.empty()) out << indentation(line) << code << '\n';
            }
            break;
        }
    }
    if (state != State::outside) {
        number = region_start;
        fail("the TODO region opened here has no // END TODO");
    }
    if (skeleton.todo_names.empty()) throw SkeletonError(source_name + ": no TODO regions; every rung needs at least one");
    skeleton.text = out.str();
    return skeleton;
}

}  // namespace lab
