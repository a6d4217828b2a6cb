// TRUSTED SIDE. See screen.hpp.
#include "screen.hpp"

#include <cctype>
#include <regex>

namespace lab::grading {

// Comments and literals blanked, so that neither hides nor fakes a construct. A raw string literal
// (R"x( ... )x", which may hold quotes and newlines) is one literal; a line ending in a backslash
// goes on in the next, as the compiler reads it (splice() joins them before the rules read the text).
std::string code_only(const std::string& text, bool blank_strings)
{
    std::string out = text;
    enum { code, line_comment, block_comment, string, character } state = code;
    const auto identifier = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char c = out[i], next = i + 1 < out.size() ? out[i + 1] : '\0';
        switch (state) {
        case code:
            if (c == 'R' && next == '"') {
                // R, u8R, uR, UR or LR, not the end of a longer name.
                std::size_t start = i;
                while (start > 0 && identifier(out[start - 1])) --start;
                const std::string prefix = out.substr(start, i - start);
                const std::size_t open = out.find('(', i + 2);
                if ((prefix.empty() || prefix == "u8" || prefix == "u" || prefix == "U" || prefix == "L") &&
                    open != std::string::npos && open - (i + 2) <= 16) {
                    const std::string delimiter = out.substr(i + 2, open - (i + 2));
                    if (delimiter.find_first_of(" ()\\\t\n") == std::string::npos) {
                        std::size_t close = out.find(")" + delimiter + "\"", open + 1);
                        if (close == std::string::npos) close = out.size();
                        const std::size_t end = std::min(out.size(), close + delimiter.size() + 2);
                        if (blank_strings)
                            for (std::size_t k = open + 1; k < close; ++k)
                                if (out[k] != '\n') out[k] = ' ';
                        i = end - 1;
                        break;
                    }
                }
            }
            if (c == '/' && next == '/') state = line_comment, out[i] = ' ';
            else if (c == '/' && next == '*') state = block_comment, out[i] = ' ', out[++i] = ' ';
            else if (c == '"') state = string;
            else if (c == '\'') {
                // A digit separator (1'000'000, 0xFF'FF) when the token it is in is a number: it
                // starts with a digit (u8'a' is a character literal).
                std::size_t start = i;
                while (start > 0 && (identifier(out[start - 1]) || out[start - 1] == '\'' || out[start - 1] == '.')) --start;
                if (!(start < i && std::isdigit(static_cast<unsigned char>(out[start])))) state = character;
            }
            break;
        case line_comment:
            if (c == '\n') state = code;
            else out[i] = ' ';
            break;
        case block_comment:
            if (c == '*' && next == '/') state = code, out[i] = ' ', out[++i] = ' ';
            else if (c != '\n') out[i] = ' ';
            break;
        case string:
        case character:
            if (c == '\\' && next != '\n') {
                if (blank_strings) out[i] = ' ', out[i + 1] = ' ';
                ++i;
            } else if (c == (state == string ? '"' : '\'')) state = code;
            else if (c != '\n' && blank_strings) out[i] = ' ';
            break;
        }
    }
    return out;
}

namespace {

// The text as the compiler reads it: a backslash at the end of a line (spaces after it too, which
// gcc allows) joins the next line to it, inside a name, a directive or a comment alike
// (`#i\` then `f` is an #if). line[k] is the line of the file that character k of the result is on.
std::string splice(const std::string& text, std::vector<int>& line)
{
    std::string out;
    out.reserve(text.size());
    line.clear();
    int at = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\') {
            std::size_t k = i + 1;
            while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r')) ++k;
            if (k < text.size() && text[k] == '\n') {
                ++at;
                i = k;
                continue;
            }
        }
        out += text[i];
        line.push_back(at);
        if (text[i] == '\n') ++at;
    }
    line.push_back(at);
    return out;
}

}  // namespace

std::vector<std::string> screen_source(const std::string& text)
{
    struct Rule {
        std::regex pattern;
        const char* why;
        bool per_line;     // matched against one line at a time (a preprocessor directive)
        bool with_strings; // against the text with its string literals kept (an #include's file name)
    };
    static const std::vector<Rule> rules{
        {std::regex(R"(\bnamespace\s+lab\b)"),
         "reopens namespace lab, the kit's own: a kernel file may use the kit, not add to it", false, false},
        {std::regex(R"(\bnamespace\s+(::\s*)?(std|cuda|__gnu_cxx|cub|thrust)\b)"),
         "reopens a library's namespace: a definition there could take the place of one the runner uses", false, false},
        {std::regex(R"(\btemplate\s*<\s*>[^;{]*::)"),
         "specialises a template by a qualified name (the kit's, the standard library's): the runner could use the "
         "specialisation in place of its own code; a kernel file specialises only its own templates",
         false, false},
        {std::regex(R"(^\s*(#|%:)\s*undef\b)"), "#undef: a kernel file has no macro of the kit's to take back", true, false},
        {std::regex(R"(^\s*(#|%:)\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b)"),
         "conditional compilation: a kernel file compiles to the same code for every compiler and backend, so "
         "that what the grader checks is what runs",
         true, false},
        {std::regex(R"(^\s*(#|%:)\s*define\s+(lab\b|LAB_|cuda|launch\b|__|check_cuda\b|reduce\b))"),
         "#define of a name the kit or CUDA owns", true, false},
        {std::regex(R"(__attribute__\s*\(\s*\(\s*(constructor|destructor))"), "code that runs before or after main", false,
         false},
        {std::regex(
             R"(\b(fopen|freopen|ofstream|ifstream|fstream|popen|system|execv|execl|execve|execvp|fork|unlink|rename|remove|open)\s*[(<])"),
         "touches files or processes: a kernel file only computes", false, false},
        {std::regex(R"(^\s*(#|%:)\s*include\s*[<"]([^>"]*\.\.|/|[^>"]*(tests/|grader/|\.json)))"),
         "includes a file from outside the kernel headers", true, true},
        {std::regex(R"(^\s*(#|%:)\s*(line\b|[0-9]))"),
         "a line marker (#line, or # and a number): the grader finds the file's own lines by the preprocessor's "
         "markers, so a file may not say it is another (a system header's lines are not checked)",
         true, false},
    };
    std::vector<int> line_at;
    const std::string text_as_read = splice(text, line_at);
    const std::string code = code_only(text_as_read, true), with_strings = code_only(text_as_read, false);
    std::vector<std::string> problems;
    const auto add = [&](std::size_t at, const char* why) {
        problems.push_back("line " + std::to_string(line_at[std::min(at, line_at.size() - 1)]) + ": " + why);
    };
    for (const Rule& rule : rules) {
        const std::string& source = rule.with_strings ? with_strings : code;
        if (rule.per_line) {
            for (std::size_t start = 0; start <= source.size();) {
                const std::size_t end = std::min(source.find('\n', start), source.size());
                if (std::regex_search(source.begin() + static_cast<std::ptrdiff_t>(start),
                                      source.begin() + static_cast<std::ptrdiff_t>(end), rule.pattern))
                    add(start, rule.why);
                start = end + 1;
            }
            continue;
        }
        for (auto it = std::sregex_iterator(source.begin(), source.end(), rule.pattern); it != std::sregex_iterator(); ++it)
            add(static_cast<std::size_t>(it->position()), rule.why);
    }
    return problems;
}

}  // namespace lab::grading
