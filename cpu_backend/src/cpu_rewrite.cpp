// Kit tool for the CPU backend: rewrites the few CUDA constructs that a host compiler cannot be
// taught with macros alone, keeping every line where it was so that compiler messages and the
// emulator's reports point at the student's own lines.
//   extern __shared__ T s[];      ->  T* const s = ::lab::cpu::dynamic_shared<T>();
//   __shared__ T a[N], b;         ->  auto& a = ::lab::cpu::shared_array<T[N]>([] {}, "a", __FILE__, __LINE__); (and b)
//                                     inside functions: per-worker storage that ends at a guard page, so an
//                                     access past the array's end faults and is named, poisoned before each block
//   __shared__ T a[N];            ->  static thread_local T a[N];   (at namespace scope)
//   kernel<<<grid, block>>>(args) ->  ::lab::cpu::launch_chevrons(kernel, ::lab::cpu::Chevrons{grid, block}, args)
//   while (cond), for (...; cond; ...) ->  the condition preceded by ::lab::cpu::loop_point() (rewrite_loop)
//   __noinline__                  ->  __attribute__((noinline))
//   __global__ void __cluster_dims__(X, Y, Z) k(params)  ->  __global__ void k(params, ::lab::cpu::ClusterDims<X, Y, Z> = {})
//                                     the kernel's type carries its clusters' shape to every launch of it
//   config.gridDim, config->blockDim ->  config.cpu_gridDim, config->cpu_blockDim (cudaLaunchConfig_t's
//                                     members: gridDim and blockDim are the built-ins' macros here)
// Comments, strings, character literals (not digit separators) and preprocessor lines are left alone.
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
            } else if (c == '\'' && digit_separator(i)) {
                ++i;
            } else if (c == '"' || c == '\'') {
                std::size_t end = i + 1;
                while (end < text.size() && text[end] != c) end += text[end] == '\\' ? 2 : 1;
                mark_until(end + 1);
            } else {
                ++i;
            }
        }
    }

    // A quote inside a number (10'000, 0xFF'FF) separates digits; one after a prefix (L'a', u8'a')
    // opens a character literal.
    bool digit_separator(std::size_t i) const
    {
        if (i == 0 || i + 1 >= text.size() || !std::isalnum(static_cast<unsigned char>(text[i + 1]))) return false;
        std::size_t start = i;
        while (start > 0 && (std::isalnum(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '\'' ||
                             text[start - 1] == '.' || text[start - 1] == '_'))
            --start;
        return start < i && std::isdigit(static_cast<unsigned char>(text[start]));
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


    static std::string trim(const std::string& s)
    {
        const auto first = s.find_first_not_of(" \t\r\n");
        if (first == std::string::npos) return {};
        return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
    }

    // Drops __align__(...) and alignas(...), parentheses nested or not: the guarded storage is
    // aligned for the type, and an array ends exactly at its guard page.
    static std::string strip_alignment(std::string s)
    {
        static const std::regex head(R"(\b(__align__|alignas)\s*\()");
        std::smatch m;
        while (std::regex_search(s, m, head)) {
            std::size_t at = static_cast<std::size_t>(m.position(0)), k = at + static_cast<std::size_t>(m.length(0));
            for (int depth = 1; k < s.size() && depth > 0; ++k) depth += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
            s.replace(at, k - at, " ");
        }
        return s;
    }

    // Splits declarators at the commas that are not inside (), [], {} or a template's <>.
    static std::vector<std::string> top_level_split(const std::string& s)
    {
        std::vector<std::string> parts(1);
        int round = 0, square = 0, angle = 0;
        for (char c : s) {
            if (c == '(' || c == '{') ++round;
            if (c == ')' || c == '}') --round;
            if (c == '[') ++square;
            if (c == ']') --square;
            if (square == 0 && c == '<') ++angle;
            if (square == 0 && c == '>' && angle > 0) --angle;
            if (c == ',' && round == 0 && square == 0 && angle == 0) {
                parts.emplace_back();
                continue;
            }
            parts.back() += c;
        }
        return parts;
    }

    struct Declarator {
        std::string specifiers;  // the type before the name (the first declarator's)
        std::string prefix;      // * or & between the type and the name
        std::string name;
        std::string suffix;      // [N][M] after the name
    };

    // "volatile Box<T, 4>* b[32]" -> {"volatile Box<T, 4>", "*", "b", "[32]"}: the name is the last
    // identifier before the first [ outside a template's <>.
    Declarator split_declarator(const std::string& part, std::size_t at) const
    {
        std::size_t bracket = part.size();
        int angle = 0;
        for (std::size_t k = 0; k < part.size(); ++k) {
            if (part[k] == '<') ++angle;
            if (part[k] == '>' && angle > 0) --angle;
            if ((part[k] == '[' || part[k] == '=') && angle == 0) {
                bracket = k;
                break;
            }
        }
        std::size_t end = bracket;
        while (end > 0 && std::isspace(static_cast<unsigned char>(part[end - 1]))) --end;
        std::size_t start = end;
        while (start > 0 && is_ident(part[start - 1])) --start;
        if (start == end) error(at, "cannot find the name in this __shared__ declaration");
        Declarator d;
        d.name = part.substr(start, end - start);
        d.suffix = part.substr(bracket);
        std::string before = part.substr(0, start);
        std::size_t type_end = before.find_last_not_of(" \t\r\n*&");
        type_end = type_end == std::string::npos ? 0 : type_end + 1;
        d.specifiers = trim(before.substr(0, type_end));
        for (char c : before.substr(type_end))
            if (c == '*' || c == '&') d.prefix += c;
        return d;
    }

    std::string run()
    {
        classify();
        enum class Brace { scope, type, block };
        std::vector<Brace> braces;
        std::ostringstream out;
        std::size_t statement_start = 0;
        std::streampos out_statement = 0;  // where the statement at statement_start begins in `out`
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
                out_statement = out.tellp();
                continue;
            }
            if (c == '}' || c == ';') {
                if (c == '}' && !braces.empty()) braces.pop_back();
                out << c;
                statement_start = ++i;
                out_statement = out.tellp();
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
                    std::string declaration = strip_alignment(code_between(j + 10, end));
                    const Declarator d = split_declarator(declaration, i);
                    if (std::regex_replace(d.suffix, std::regex(R"(\s)"), "") != "[]" || !d.prefix.empty())
                        error(i, "cannot read this extern __shared__ declaration; write it as: extern __shared__ T name[];");
                    out << d.specifiers << "* const " << d.name << " = ::lab::cpu::dynamic_shared<" << d.specifiers << ">();";
                    out << std::string(std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                                                   text.begin() + static_cast<std::ptrdiff_t>(end), '\n'),
                                       '\n');
                    i = end + 1;
                    statement_start = i;
                    out_statement = out.tellp();
                    continue;
                }
            }
            if (word_at(i, "__shared__")) {
                const auto end = text.find(';', i);
                if (end == std::string::npos) error(i, "__shared__ declaration without a ';'");
                if (!in_function()) {
                    const bool has_static = std::regex_search(code_between(statement_start, i), std::regex(R"(\bstatic\b)"));
                    out << (has_static ? "thread_local" : "static thread_local") << text.substr(i + 10, end - i - 10) << ';';
                } else {
                    // Take back what was written of the declaration before __shared__ (volatile, static):
                    // its code goes into the type, its comments and line breaks stay where they were.
                    const std::string written = out.str();
                    out.str(written.substr(0, static_cast<std::size_t>(out_statement)));
                    out.seekp(0, std::ios::end);
                    for (std::size_t k = statement_start; k < i; ++k) out << (code[k] && text[k] != '\n' ? ' ' : text[k]);
                    // Inside a function, `static __shared__` means what `__shared__` means.
                    const std::string prefix =
                        std::regex_replace(code_between(statement_start, i), std::regex(R"(\bstatic\b)"), "");
                    const std::string body = strip_alignment(prefix + " " + code_between(i + 10, end));
                    const auto parts = top_level_split(body);
                    std::string specifiers;
                    for (std::size_t k = 0; k < parts.size(); ++k) {
                        Declarator d = split_declarator(parts[k], i);
                        if (k == 0) specifiers = d.specifiers;
                        if (d.suffix.find('=') != std::string::npos)
                            error(i, "a __shared__ variable cannot have an initializer: assign it in the kernel, then __syncthreads()");
                        out << "auto& " << d.name
                            << " = ::lab::cpu::shared_array<" << specifiers << " " << d.prefix << d.suffix << ">([] {}, \""
                            << d.name << "\", __FILE__, __LINE__); ";
                    }
                    out << std::string(std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                                                  text.begin() + static_cast<std::ptrdiff_t>(end), '\n'),
                                       '\n');
                }
                i = end + 1;
                statement_start = i;
                out_statement = out.tellp();
                continue;
            }
            if (in_function() && (word_at(i, "while") || word_at(i, "for"))) {
                i = rewrite_loop(i, out);
                continue;
            }
            if (text.compare(i, 3, "<<<") == 0) {
                i = rewrite_launch(i, out);
                continue;
            }
            if (word_at(i, "__cluster_dims__")) {
                i = rewrite_cluster_dims(i, out);
                continue;
            }
            if ((word_at(i, "gridDim") || word_at(i, "blockDim")) && member_access_before(i)) {
                out << "cpu_";
                out << text[i++];
                continue;
            }
            out << text[i++];
        }
        return out.str();
    }

    // Gives every loop a check point, so that a thread spinning on a value another thread of its
    // block sets (`while (flag == 0) {}`) lets that thread run now and then, as a GPU does:
    //   while (cond)          ->  while (::lab::cpu::loop_point() && (cond))
    //   for (init; cond; inc) ->  for (init; ::lab::cpu::loop_point() && (cond); inc)
    // Range-for loops and conditions that declare a variable are left alone. `at` is the keyword.
    std::size_t rewrite_loop(std::size_t at, std::ostringstream& out)
    {
        const bool is_for = text.compare(at, 3, "for") == 0;
        const std::size_t keyword_end = at + (is_for ? 3 : 5);
        std::size_t open = keyword_end;
        while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open]))) ++open;
        if (open >= text.size() || text[open] != '(' || !code[open]) {
            out << text.substr(at, keyword_end - at);
            return keyword_end;
        }
        int depth = 0;
        std::size_t close = open;
        std::vector<std::size_t> semicolons;  // at the top level of the parentheses
        for (; close < text.size(); ++close) {
            if (!code[close]) continue;
            const char c = text[close];
            if (c == '(' || c == '[' || c == '{') ++depth;
            if (c == ')' || c == ']' || c == '}') --depth;
            if (depth == 0) break;
            if (depth == 1 && c == ';') semicolons.push_back(close);
        }
        if (close >= text.size()) error(at, "unbalanced ( ) after this loop's keyword");
        static const std::regex declares(R"(^\s*[A-Za-z_][\w:<>,\s\*&]*[\s\*&]\w+\s*(=[^=]|\{))");
        auto checked = [&](std::size_t from, std::size_t to) {
            const std::string condition = text.substr(from, to - from);
            if (std::regex_search(code_between(from, to), declares)) return condition;
            const bool empty = code_between(from, to).find_first_not_of(" \t\r\n") == std::string::npos;
            return " ::lab::cpu::loop_point() && (" + (empty ? std::string("true") : condition) + ")";
        };
        out << text.substr(at, open + 1 - at);
        if (!is_for) {
            out << checked(open + 1, close);
        } else if (semicolons.size() == 2) {
            out << text.substr(open + 1, semicolons[0] + 1 - open - 1) << checked(semicolons[0] + 1, semicolons[1])
                << text.substr(semicolons[1], close - semicolons[1]);
        } else {
            out << text.substr(open + 1, close - open - 1);  // a range-for
        }
        out << ')';
        return close + 1;
    }

    // Whether the name at `at` follows `.` or `->` (spaces between allowed): a member, not a variable.
    bool member_access_before(std::size_t at) const
    {
        std::size_t k = at;
        while (k > 0 && std::isspace(static_cast<unsigned char>(text[k - 1]))) --k;
        return (k >= 1 && text[k - 1] == '.' && code[k - 1]) || (k >= 2 && text.compare(k - 2, 2, "->") == 0 && code[k - 2]);
    }

    // The position of the ')' that closes the '(' at `open`; fails when there is none.
    std::size_t closing(std::size_t open, std::size_t at) const
    {
        int depth = 0;
        for (std::size_t k = open; k < text.size(); ++k) {
            if (!code[k]) continue;
            if (text[k] == '(') ++depth;
            if (text[k] == ')' && --depth == 0) return k;
        }
        error(at, "unbalanced ( )");
    }

    // A kernel declared with __cluster_dims__(X, Y, Z): the attribute goes (its place blanked, line
    // breaks kept) and the kernel gets a last parameter of type ClusterDims<X, Y, Z>, defaulted,
    // which lab/cpu/launch.hpp reads. `at` is the position of the word.
    std::size_t rewrite_cluster_dims(std::size_t at, std::ostringstream& out)
    {
        std::size_t open = at + std::string("__cluster_dims__").size();
        while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open]))) ++open;
        if (open >= text.size() || text[open] != '(') error(at, "expected (X, Y, Z) after __cluster_dims__");
        const std::size_t close = closing(open, at);
        const std::string dims = trim(code_between(open + 1, close));
        if (dims.empty()) error(at, "__cluster_dims__ needs the cluster's dimensions: __cluster_dims__(X, Y, Z)");
        for (std::size_t k = at; k <= close; ++k) out << (text[k] == '\n' ? '\n' : ' ');
        std::size_t params = close + 1;
        while (params < text.size() && !(code[params] && (text[params] == '(' || text[params] == ';' || text[params] == '{'))) ++params;
        if (params >= text.size() || text[params] != '(')
            error(at, "cannot find the parameters of the kernel declared with __cluster_dims__");
        const std::size_t end = closing(params, at);
        const std::string inside = trim(code_between(params + 1, end));
        out << text.substr(close + 1, params + 1 - close - 1);
        const std::string tag = "::lab::cpu::ClusterDims<" + dims + "> = {}";
        if (inside.empty() || inside == "void") {
            for (std::size_t k = params + 1; k < end; ++k) out << (text[k] == '\n' ? '\n' : ' ');
            out << tag;
        } else {
            out << text.substr(params + 1, end - params - 1) << ", " << tag;
        }
        return end;
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
    // __noinline__, which nvcc knows as a keyword: a macro for it would break the C++ library's own
    // __attribute__((__noinline__)), so the file's own uses are spelled out here.
    const std::string body = std::regex_replace(rewriter.run(), std::regex(R"(\b__noinline__\b)"), "__attribute__((noinline))");
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
