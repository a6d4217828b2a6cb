// Kit tool for the CPU backend: rewrites the few CUDA constructs that a host compiler cannot be
// taught with macros alone, keeping every line where it was so that compiler messages and the
// emulator's reports point at the student's own lines.
//   extern __shared__ T s[];      ->  T* const s = ::lab::cpu::dynamic_shared<T>();
//   __shared__ T a[N];            ->  static thread_local T a[N]; ::lab::cpu::shared_declared(&a, sizeof(a));
//                                     (inside functions: poisoned before each block, as a GPU leaves it stale)
//   kernel<<<grid, block>>>(args) ->  ::lab::cpu::launch_chevrons(kernel, ::lab::cpu::Chevrons{grid, block}, args)
// Comments, strings and preprocessor lines are left alone.
//   lab-cpu-rewrite INPUT.cu OUTPUT
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Rewriter {
    std::string path;
    std::string text;
    std::vector<bool> code;  // text[i] is code, not a comment, literal or preprocessor line

    [[noreturn]] void error(std::size_t at, const std::string& message) const
    {
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
        std::cerr << path << ':' << line << ": error: " << message << '\n';
        std::exit(1);
    }

    void classify()
    {
        code.assign(text.size(), true);
        bool line_start = true;
        for (std::size_t i = 0; i < text.size();) {
            const char c = text[i];
            auto mark_until = [&](std::size_t end) {
                for (std::size_t k = i; k < end && k < text.size(); ++k) code[k] = false;
                i = end;
            };
            if (line_start && c == '#') {  // a preprocessor line, with its continuations
                std::size_t end = i;
                while (end < text.size() && !(text[end] == '\n' && text[end - 1] != '\\')) ++end;
                mark_until(end);
                continue;
            }
            if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
            if (c == '\n') line_start = true;
            if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
                mark_until(text.find('\n', i) == std::string::npos ? text.size() : text.find('\n', i));
            } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
                const auto end = text.find("*/", i + 2);
                mark_until(end == std::string::npos ? text.size() : end + 2);
            } else if (c == '"' || c == '\'') {
                std::size_t end = i + 1;
                while (end < text.size() && text[end] != c) end += text[end] == '\\' ? 2 : 1;
                mark_until(end + 1);
            } else {
                ++i;
            }
        }
    }

    bool is_ident(char c) const { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

    bool word_at(std::size_t i, const std::string& word) const
    {
        return text.compare(i, word.size(), word) == 0 && code[i] && (i == 0 || !is_ident(text[i - 1])) &&
               (i + word.size() >= text.size() || !is_ident(text[i + word.size()]));
    }

    // The code between positions, comments and literals blanked out.
    std::string code_between(std::size_t from, std::size_t to) const
    {
        std::string out;
        for (std::size_t k = from; k < to; ++k) out += code[k] ? text[k] : ' ';
        return out;
    }

    std::string run()
    {
        classify();
        enum class Brace { scope, type, block };
        std::vector<Brace> braces;
        std::ostringstream out;
        std::size_t statement_start = 0;
        auto in_function = [&] {
            for (Brace b : braces)
                if (b == Brace::block) return true;
            return false;
        };
        static const std::regex scope_head(R"(\bnamespace\b|\bextern\s+$)");
        static const std::regex type_head(R"(\b(struct|class|union|enum)\b[^()]*$)");

        for (std::size_t i = 0; i < text.size();) {
            if (!code[i]) {
                out << text[i++];
                continue;
            }
            const char c = text[i];
            if (c == '{') {
                // extern "C" { reads as "extern    {" once its literal is blanked out.
                const std::string head = code_between(statement_start, i);
                braces.push_back(std::regex_search(head, scope_head)  ? Brace::scope
                                 : std::regex_search(head, type_head) ? Brace::type
                                                                      : Brace::block);
                out << c;
                statement_start = ++i;
                continue;
            }
            if (c == '}' || c == ';') {
                if (c == '}' && !braces.empty()) braces.pop_back();
                out << c;
                statement_start = ++i;
                continue;
            }
            if (word_at(i, "extern")) {
                std::size_t j = i + 6;
                while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
                if (word_at(j, "__shared__")) {
                    const auto end = text.find(';', j);
                    if (end == std::string::npos) error(i, "extern __shared__ declaration without a ';'");
                    if (!in_function())
                        error(i, "the CPU backend supports extern __shared__ only inside a function: declare it in the kernel");
                    static const std::regex dynamic(
                        R"(^extern\s+__shared__\s+(?:(?:__align__|alignas)\s*\([^)]*\)\s*)?(.+?)\s*\b(\w+)\s*\[\s*\]\s*$)");
                    std::smatch m;
                    const std::string declaration = text.substr(i, end - i);
                    if (!std::regex_match(declaration, m, dynamic))
                        error(i, "cannot read this extern __shared__ declaration; write it as: extern __shared__ T name[];");
                    out << m[1] << "* const " << m[2] << " = ::lab::cpu::dynamic_shared<" << m[1] << ">();";
                    out << std::string(std::count(declaration.begin(), declaration.end(), '\n'), '\n');
                    i = end + 1;
                    statement_start = i;
                    continue;
                }
            }
            if (word_at(i, "__shared__")) {
                const auto end = text.find(';', i);
                if (end == std::string::npos) error(i, "__shared__ declaration without a ';'");
                const bool has_static = std::regex_search(code_between(statement_start, i), std::regex(R"(\bstatic\b)"));
                out << (has_static ? "thread_local" : "static thread_local");
                const std::string declarators = text.substr(i + 10, end - i - 10);
                out << declarators << ';';
                if (in_function()) {
                    // Each declarator's name: the identifier before its first '[' (or its last one).
                    static const std::regex name(R"(\b(\w+)\s*(?:\[[^\]]*\]\s*)*$)");
                    std::string part;
                    std::istringstream parts(code_between(i + 10, end));
                    while (std::getline(parts, part, ',')) {
                        std::smatch m;
                        if (!std::regex_search(part, m, name)) error(i, "cannot find the name in this __shared__ declaration");
                        out << " ::lab::cpu::shared_declared(&" << m[1] << ", sizeof(" << m[1] << "));";
                    }
                }
                i = end + 1;
                statement_start = i;
                continue;
            }
            if (text.compare(i, 3, "<<<") == 0) {
                i = rewrite_launch(i, out);
                continue;
            }
            out << text[i++];
        }
        return out.str();
    }

    // Rewrites callee<<<config>>>(args); `at` is the position of "<<<". The callee was already
    // written to `out`, so it is taken back out of the stream.
    std::size_t rewrite_launch(std::size_t at, std::ostringstream& out)
    {
        std::string written = out.str();
        std::size_t start = written.size();
        while (start > 0 && std::isspace(static_cast<unsigned char>(written[start - 1]))) --start;
        const std::size_t callee_end = start;
        int angle = 0;
        while (start > 0) {
            const char c = written[start - 1];
            if (c == '>') ++angle;
            else if (c == '<' && angle > 0) --angle;
            else if (!(angle > 0 || is_ident(c) || c == ':')) break;
            --start;
        }
        const std::string callee = written.substr(start, callee_end - start);
        if (callee.empty()) error(at, "cannot find the kernel before <<<");
        const auto close = text.find(">>>", at + 3);
        if (close == std::string::npos) error(at, "<<< without >>>");
        const std::string config = text.substr(at + 3, close - at - 3);
        std::size_t open = close + 3;
        while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open]))) ++open;
        if (open >= text.size() || text[open] != '(') error(at, "expected the kernel's arguments in ( ) after >>>");
        int depth = 0;
        std::size_t end = open;
        for (; end < text.size(); ++end) {
            if (!code[end]) continue;
            if (text[end] == '(') ++depth;
            if (text[end] == ')' && --depth == 0) break;
        }
        if (end >= text.size()) error(at, "unbalanced ( ) in the kernel's arguments");
        std::string args = text.substr(open + 1, end - open - 1);
        const bool no_args = args.find_first_not_of(" \t\r\n") == std::string::npos;
        std::ostringstream rewritten;
        rewritten << written.substr(0, start) << "::lab::cpu::launch_chevrons(" << callee << ", ::lab::cpu::Chevrons{"
                  << config << "}" << (no_args ? "" : ", ") << args << ")"
                  << std::string(std::count(text.begin() + static_cast<std::ptrdiff_t>(close),
                                            text.begin() + static_cast<std::ptrdiff_t>(open), '\n'),
                                 '\n');
        out.str("");
        out << rewritten.str();
        return end + 1;
    }
};

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::cerr << "usage: lab-cpu-rewrite INPUT.cu OUTPUT\n";
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::cerr << "lab-cpu-rewrite: cannot read " << argv[1] << '\n';
        return 2;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    Rewriter rewriter{argv[1], buffer.str(), {}};
    const std::string body = rewriter.run();
    std::string quoted;
    for (char c : std::string(argv[1])) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    std::ofstream out(argv[2], std::ios::binary);
    out << "#line 1 \"" << quoted << "\"\n" << body;
    if (!out) {
        std::cerr << "lab-cpu-rewrite: cannot write " << argv[2] << '\n';
        return 2;
    }
    return 0;
}
