// TRUSTED SIDE. See screen.hpp.
#include "screen.hpp"

#include <regex>

namespace lab::grading {

// Comments and literals blanked, so that neither hides nor fakes a construct.
std::string code_only(const std::string& text, bool blank_strings)
{
    std::string out = text;
    enum { code, line_comment, block_comment, string, character } state = code;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char c = out[i], next = i + 1 < out.size() ? out[i + 1] : '\0';
        switch (state) {
        case code:
            if (c == '/' && next == '/') state = line_comment, out[i] = ' ';
            else if (c == '/' && next == '*') state = block_comment, out[i] = ' ', out[++i] = ' ';
            else if (c == '"') state = string;
            else if (c == '\'') state = character;
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

int line_of(const std::string& text, std::size_t at)
{
    int line = 1;
    for (std::size_t i = 0; i < at && i < text.size(); ++i) line += text[i] == '\n';
    return line;
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
        {std::regex(R"(^\s*#\s*undef\b)"), "#undef: a kernel file has no macro of the kit's to take back", true, false},
        {std::regex(R"(^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b)"),
         "conditional compilation: a kernel file compiles to the same code for every compiler and backend, so "
         "that what the grader checks is what runs",
         true, false},
        {std::regex(R"(^\s*#\s*define\s+(lab\b|LAB_|cuda|launch\b|__|check_cuda\b|reduce\b))"),
         "#define of a name the kit or CUDA owns", true, false},
        {std::regex(R"(__attribute__\s*\(\s*\(\s*(constructor|destructor))"), "code that runs before or after main", false,
         false},
        {std::regex(
             R"(\b(fopen|freopen|ofstream|ifstream|fstream|popen|system|execv|execl|execve|execvp|fork|unlink|rename|remove|open)\s*[(<])"),
         "touches files or processes: a kernel file only computes", false, false},
        {std::regex(R"(^\s*#\s*include\s*[<"]([^>"]*\.\.|/|[^>"]*(tests/|grader/|\.json)))"),
         "includes a file from outside the kernel headers", true, true},
    };
    const std::string code = code_only(text, true), with_strings = code_only(text, false);
    std::vector<std::string> problems;
    for (const Rule& rule : rules) {
        const std::string& source = rule.with_strings ? with_strings : code;
        if (rule.per_line) {
            std::size_t start = 0;
            for (int line = 1; start <= source.size(); ++line) {
                const std::size_t end = std::min(source.find('\n', start), source.size());
                if (std::regex_search(source.begin() + static_cast<std::ptrdiff_t>(start),
                                      source.begin() + static_cast<std::ptrdiff_t>(end), rule.pattern))
                    problems.push_back("line " + std::to_string(line) + ": " + rule.why);
                start = end + 1;
            }
            continue;
        }
        for (auto it = std::sregex_iterator(source.begin(), source.end(), rule.pattern); it != std::sregex_iterator(); ++it)
            problems.push_back("line " + std::to_string(line_of(source, static_cast<std::size_t>(it->position()))) + ": " +
                               rule.why);
    }
    return problems;
}

}  // namespace lab::grading
