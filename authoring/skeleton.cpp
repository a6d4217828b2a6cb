// Instructor side.
#include "skeleton.hpp"

#include <set>
#include <sstream>

#include "dictation.hpp"

namespace lab {

namespace {

std::string trim_left(const std::string& line) { return line.substr(std::min(line.find_first_not_of(" \t"), line.size())); }
std::string indentation(const std::string& line) { return line.substr(0, line.size() - trim_left(line).size()); }
bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

const std::string kBegin = "// BEGIN TODO(";
const std::string kStub = "// STUB:";
const std::string kEnd = "// END TODO";
constexpr std::size_t kWidth = 104;  // a generated comment's lines, indentation included

// `words` as comment lines of at most kWidth columns: "INDENT// " then "INDENT//   ".
std::string comment_lines(const std::string& indent, const std::string& words)
{
    std::istringstream in(words);
    std::string out, line = indent + "// ", word;
    bool first_word = true;
    while (in >> word) {
        if (!first_word && line.size() + 1 + word.size() > kWidth) {
            out += line + "\n";
            line = indent + "//   " + word;
        } else {
            line += (first_word ? "" : " ") + word;
        }
        first_word = false;
    }
    return out + line + "\n";
}

// "// TODO(05-a, ~1 line): text" or "//   more text" -> the words after the marker, or the comment's.
std::string comment_words(const std::string& body)
{
    std::string text = body.substr(2);
    return trim_left(text);
}

std::string lines_text(int lines) { return "~" + std::to_string(lines) + (lines == 1 ? " line" : " lines"); }

struct Open {  // the region being read
    TodoRegion todo;
    std::string indent;
    std::string said;  // the exercise's comment for it, as it will read
    std::string code;  // its solution lines as they stand
    int code_lines = 0;
};

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
    Open open;
    std::vector<Open> regions;
    auto fail = [&](const std::string& why) {
        throw SkeletonError(source_name + ":" + std::to_string(number) + ": " + why);
    };
    // A region's instruction is complete once its solution lines begin: write it to the exercise.
    auto write_instruction = [&] {
        if (open.todo.from.empty()) {
            out << open.said;
            return;
        }
        // "TODO 01-shared-decl and 01-padding (rung 01) and TODO 04-two-loads (rung 04)"
        std::string origins;
        for (std::size_t k = 0; k < open.todo.from.size(); ++k) {
            const std::string& o = open.todo.from[k];
            const std::string rung = o.substr(0, 2);
            const bool same_rung_before = k > 0 && open.todo.from[k - 1].compare(0, 2, rung) == 0;
            const bool same_rung_after = k + 1 < open.todo.from.size() && open.todo.from[k + 1].compare(0, 2, rung) == 0;
            origins += std::string(k == 0 ? "TODO " : same_rung_before ? " and " : " and TODO ") + o;
            if (!same_rung_after) origins += " (rung " + rung + ")";
        }
        open.todo.instruction = "bring your own code of " + origins + " here" +
                                (open.todo.instruction.empty() ? "." : "; " + open.todo.instruction);
        open.said = "";  // its size is known at the end of the region
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
                const auto close = body.find(')', name_end);
                open = Open{};
                open.todo.name = name;
                open.todo.line = number;
                open.indent = indentation(line);
                if (body.compare(name_end, 7, ", from ") == 0 && close != std::string::npos) {
                    std::istringstream origins(body.substr(name_end + 7, close - name_end - 7));
                    for (std::string origin; origins >> origin;) {
                        if (origin.size() < 4 || origin.compare(0, 2, rung_number) >= 0 || origin[2] != '-' ||
                            !std::isdigit(static_cast<unsigned char>(origin[0])) || !std::isdigit(static_cast<unsigned char>(origin[1])))
                            fail("TODO(" + name + ") carries code from '" + origin +
                                 "', which is not the TODO of an earlier rung (NN-name, NN below " + rung_number + ")");
                        open.todo.from.push_back(origin);
                    }
                    if (open.todo.from.empty()) fail("TODO(" + name + ", from ...) names no TODO it carries code from");
                } else if (body.compare(name_end, 3, ", ~") == 0 && close != std::string::npos) {
                    open.todo.size = body.substr(name_end + 2, close - name_end - 2);
                } else {
                    fail("TODO(" + name + ") must say how much to write, // BEGIN TODO(" + name +
                         ", ~N lines): ..., or whose code it carries, // BEGIN TODO(" + name + ", from NN-name): ...");
                }
                const auto colon = body.find(':', close);
                open.todo.instruction = colon == std::string::npos ? "" : trim_left(body.substr(colon + 1));
                open.said = open.indent + "// TODO(" + body.substr(kBegin.size()) + '\n';
                skeleton.todo_names.push_back(name);
                state = State::instruction;
                region_start = number;
            }
            break;
        case State::instruction:
            if (is_comment && !starts_with(body, kStub) && !starts_with(body, kEnd) && !starts_with(body, kBegin)) {
                open.said += line + '\n';
                const std::string words = comment_words(body);
                if (!words.empty()) open.todo.instruction += (open.todo.instruction.empty() ? "" : " ") + words;
                break;
            }
            write_instruction();
            state = State::solution;
            [[fallthrough]];
        case State::solution:
            if (starts_with(body, kBegin)) fail("a TODO region cannot start inside another (opened at line " + std::to_string(region_start) + ")");
            if (starts_with(body, kEnd)) fail("the TODO region opened at line " + std::to_string(region_start) + " has no STUB line; write '// STUB:' for no code");
            if (!starts_with(body, kStub)) {  // a solution line: left out of the exercise
                if (!body.empty()) skeleton.solution_lines.push_back(body);
                open.code += (starts_with(line, open.indent) ? line.substr(open.indent.size()) : body) + '\n';
                if (!body.empty() && !is_comment && body[0] != '#') ++open.code_lines;  // no #pragma
                break;
            }
            if (!open.todo.from.empty()) {
                // A carried region's size is its code's; its comment is written now, before the stubs.
                open.todo.size = lines_text(open.code_lines);
                open.said = comment_lines(open.indent, "TODO(" + open.todo.name + ", " + open.todo.size + "): " + open.todo.instruction);
                out << open.said;
            }
            state = State::stub;
            [[fallthrough]];
        case State::stub:
            if (starts_with(body, kEnd)) {
                state = State::outside;
                open.todo.code = open.code;
                skeleton.todos.push_back(open.todo);
                regions.push_back(open);
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

    // No TODO may dictate its answer: what the exercise shows as code anyway does not count.
    for (const Open& region : regions) {
        const auto leaks = dictated(region.said, region.code, skeleton.text);
        if (leaks.empty()) continue;
        std::string others;
        if (leaks.size() > 1) {
            others = " (and " + std::to_string(leaks.size() - 1) + " more: ";
            for (std::size_t k = 1; k < leaks.size() && k < 4; ++k) others += (k > 1 ? ", `" : "`") + leaks[k].fragment + "`";
            others += leaks.size() > 4 ? ", ...)" : ")";
        }
        number = region.todo.line;
        fail("TODO(" + region.todo.name + ") dictates its answer: its comment holds `" + leaks.front().fragment + "`, " +
             (leaks.front().kind == "indexed read" ? "an " : "a ") + leaks.front().kind + " of the code it asks for" + others +
             ". Say what must become true and why (the invariant, the hazard, the bound), and leave the code to ./lab hint's "
             "levels (rungs.json \"hints\").");
    }
    return skeleton;
}

}  // namespace lab
