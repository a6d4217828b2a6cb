// Instructor side. See dictation.hpp.
#include "dictation.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace lab {

namespace {

struct Token {
    std::string text;  // numbers without their suffixes, lower case
    std::size_t begin = 0, end = 0;  // in the text it was read from
    int line = 0;
};

bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier(const std::string& t) { return !t.empty() && identifier_start(t[0]); }

// 1u -> 1, 0xFFFFFFFFu -> 0xffffffff, 1.0f -> 1.0, 64ull -> 64.
std::string normal_number(std::string number)
{
    number.erase(std::remove(number.begin(), number.end(), '\''), number.end());
    for (char& c : number) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool hex = number.rfind("0x", 0) == 0;
    const bool floating = !hex && number.find_first_of(".e") != std::string::npos;
    while (number.size() > 1 && (number.back() == 'u' || number.back() == 'l' || (floating && number.back() == 'f')))
        number.pop_back();
    return number;
}

// C++ tokens of `text`. In code, comments are skipped and a string or character literal is one
// token; in prose (a TODO's comment), quotes and backticks only separate words.
std::vector<Token> tokenize(const std::string& text, bool code)
{
    static const std::vector<std::string> operators = {
        "<<<", ">>>", "<<=", ">>=", "...", "::", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
        "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="};
    std::vector<Token> tokens;
    std::size_t i = 0;
    const std::size_t n = text.size();
    int line = 0;
    while (i < n) {
        const char c = text[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            line += c == '\n';
            ++i;
            continue;
        }
        if (code && text.compare(i, 2, "//") == 0) {
            i = text.find('\n', i);
            if (i == std::string::npos) i = n;
            continue;
        }
        if (code && text.compare(i, 2, "/*") == 0) {
            const auto close = text.find("*/", i + 2);
            i = close == std::string::npos ? n : close + 2;
            continue;
        }
        if (!code && (c == '\'' || c == '"' || c == '`')) {
            ++i;
            continue;
        }
        Token token;
        token.begin = i;
        token.line = line;
        if (code && (c == '"' || c == '\'')) {
            std::size_t j = i + 1;
            while (j < n && text[j] != c) j += text[j] == '\\' ? 2 : 1;
            i = std::min(j + 1, n);
            token.text = text.substr(token.begin, i - token.begin);
        } else if (identifier_start(c)) {
            while (i < n && identifier_char(text[i])) ++i;
            token.text = text.substr(token.begin, i - token.begin);
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
            const bool hex = text.compare(i, 2, "0x") == 0 || text.compare(i, 2, "0X") == 0;
            while (i < n) {
                const char d = text[i];
                const char last = text[i - 1];
                if (identifier_char(d) || (d == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1]))) ||
                    ((d == '+' || d == '-') && !hex && (last == 'e' || last == 'E') && i > token.begin + 1) ||
                    (code && d == '\'' && i + 1 < n && std::isalnum(static_cast<unsigned char>(text[i + 1]))))
                    ++i;
                else
                    break;
            }
            token.text = normal_number(text.substr(token.begin, i - token.begin));
        } else {
            std::size_t length = 1;
            for (const std::string& op : operators)
                if (text.compare(i, op.size(), op) == 0) {
                    length = op.size();
                    break;
                }
            token.text = text.substr(i, length);
            i += length;
        }
        token.end = i;
        tokens.push_back(std::move(token));
    }
    return tokens;
}

using Span = std::pair<std::size_t, std::size_t>;  // tokens [first, second)

// The index of the bracket that closes the one at `open`, or tokens.size().
std::size_t closing(const std::vector<Token>& tokens, std::size_t open)
{
    const std::string& o = tokens[open].text;
    const std::string c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : o == "<<<" ? ">>>" : ">";
    int depth = 0;
    for (std::size_t k = open; k < tokens.size(); ++k) {
        if (tokens[k].text == o) ++depth;
        else if (tokens[k].text == c && --depth == 0) return k;
    }
    return tokens.size();
}

// The index of the `<` that opens the template arguments closed by the `>` at `close`, or npos.
std::size_t template_opening(const std::vector<Token>& tokens, std::size_t close)
{
    int depth = 0;
    for (std::size_t k = close + 1; k-- > 0;) {
        if (tokens[k].text == ">") ++depth;
        else if (tokens[k].text == "<" && --depth == 0) return k;
        else if (tokens[k].text == ";" || tokens[k].text == "{" || tokens[k].text == "}") break;
    }
    return std::string::npos;
}

const std::set<std::string>& not_callees()
{
    static const std::set<std::string> words = {"if", "for", "while", "switch", "return", "catch", "else", "do"};
    return words;
}

// Whether the `{` at `k` opens a braced initialiser (`std::size_t{blockIdx.x}`), not a block.
bool braced_initialiser(const std::vector<Token>& tokens, std::size_t k)
{
    if (k == 0) return false;
    const std::string& before = tokens[k - 1].text;
    static const std::set<std::string> block_words = {"else", "do", "try", "const", "override", "noexcept", "mutable"};
    if (before == ">" || before == "=" || before == "return" || before == ",") return true;
    if (!is_identifier(before) || block_words.count(before)) return false;
    static const std::set<std::string> type_words = {"struct", "class", "union", "enum", "namespace"};
    return !(k >= 2 && type_words.count(tokens[k - 2].text));
}

void add_assignments(const std::vector<Token>& tokens, Span piece, std::vector<Span>& out)
{
    static const std::set<std::string> assign = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    int depth = 0;
    for (std::size_t k = piece.first; k < piece.second; ++k) {
        const std::string& t = tokens[k].text;
        if (t == "(" || t == "[" || t == "{") ++depth;
        if (t == ")" || t == "]" || t == "}") --depth;
        if (depth != 0 || !assign.count(t) || k == piece.first) continue;
        // The right side runs to the next top-level comma (a declaration of several names) or the end.
        std::size_t end = k + 1;
        for (int d = 0; end < piece.second; ++end) {
            const std::string& u = tokens[end].text;
            if (u == "(" || u == "[" || u == "{") ++d;
            if (u == ")" || u == "]" || u == "}") --d;
            if (d == 0 && u == ",") break;
        }
        if (is_identifier(tokens[k - 1].text)) out.push_back({k - 1, end});
        if (end - (k + 1) >= 3) out.push_back({k + 1, end});
    }
}

// A statement's fragments: itself, and for a control statement its header's parts and its body.
void add_statement(const std::vector<Token>& tokens, Span piece, std::vector<Span>& out)
{
    while (piece.first < piece.second && tokens[piece.first].text == "else") ++piece.first;
    if (piece.second - piece.first >= 3) out.push_back(piece);
    add_assignments(tokens, piece, out);
    static const std::set<std::string> control = {"if", "for", "while", "switch"};
    if (piece.second - piece.first < 2 || !control.count(tokens[piece.first].text) || tokens[piece.first + 1].text != "(")
        return;
    const std::size_t close = closing(tokens, piece.first + 1);
    if (close >= piece.second) return;
    std::size_t start = piece.first + 2;
    for (std::size_t k = start; k <= close; ++k)
        if (k == close || tokens[k].text == ";") {
            const Span part{start, k};
            if (part.second - part.first >= 3) out.push_back(part);
            add_assignments(tokens, part, out);
            start = k + 1;
        }
    if (close + 1 < piece.second) add_statement(tokens, {close + 1, piece.second}, out);
}

struct Fragment {
    Span span;
    std::string kind;
};

std::vector<Fragment> fragments_of(const std::vector<Token>& tokens)
{
    std::vector<Fragment> found;
    // Statements: split at `;` (but a for header's), and at the braces of blocks.
    std::vector<Span> statements;
    std::vector<bool> initialiser_stack;
    std::size_t start = 0, header_end = 0;
    for (std::size_t k = 0; k <= tokens.size(); ++k) {
        bool split = k == tokens.size();
        if (!split) {
            const std::string& t = tokens[k].text;
            if (t == "for" && k + 1 < tokens.size() && tokens[k + 1].text == "(") header_end = closing(tokens, k + 1);
            if (t == ";" && k > header_end) split = true;
            if (t == "{") {
                const bool initialiser = braced_initialiser(tokens, k);
                initialiser_stack.push_back(initialiser);
                split = !initialiser;
            }
            if (t == "}") {
                const bool initialiser = !initialiser_stack.empty() && initialiser_stack.back();
                if (!initialiser_stack.empty()) initialiser_stack.pop_back();
                split = !initialiser;
            }
            if (t == "#") {  // a preprocessor line is a statement of its own
                std::size_t end = k + 1;
                while (end < tokens.size() && tokens[end].line == tokens[k].line) ++end;
                if (k > start) add_statement(tokens, {start, k}, statements);
                statements.push_back({k, end});
                start = end;
                k = end - 1;
                continue;
            }
        }
        if (split) {
            if (k > start) add_statement(tokens, {start, k}, statements);
            start = k + 1;
        }
    }
    for (std::size_t k = 1; k < tokens.size(); ++k) {
        const std::string& t = tokens[k].text;
        if (t == "(" || (t == "{" && braced_initialiser(tokens, k) && is_identifier(tokens[k - 1].text))) {
            const std::size_t close = closing(tokens, k);
            if (close >= tokens.size() || close == k + 1) continue;  // no arguments
            std::size_t callee = k - 1;
            if (tokens[callee].text == ">>>") {
                const std::size_t open = [&] {
                    for (std::size_t j = callee; j-- > 0;)
                        if (tokens[j].text == "<<<") return j;
                    return std::string::npos;
                }();
                if (open == std::string::npos || open == 0) continue;
                callee = open - 1;
            }
            if (tokens[callee].text == ">") {
                const std::size_t open = template_opening(tokens, callee);
                if (open == std::string::npos || open == 0) continue;
                callee = open - 1;
            }
            if (!is_identifier(tokens[callee].text) || not_callees().count(tokens[callee].text)) continue;
            found.push_back({{callee, close + 1}, "call"});
        } else if (t == "[" && is_identifier(tokens[k - 1].text)) {
            const std::size_t close = closing(tokens, k);
            if (close >= tokens.size() || close == k + 1) continue;
            found.push_back({{k - 1, close + 1}, "indexed read"});
        }
    }
    // Statements last: a fragment that is also a call or an indexed read is named as that.
    for (const Span& s : statements) found.push_back({s, "statement"});
    return found;
}

bool occurs(const std::vector<Token>& haystack, const std::vector<Token>& needle, Span span)
{
    const std::size_t length = span.second - span.first;
    if (length == 0 || haystack.size() < length) return false;
    for (std::size_t at = 0; at + length <= haystack.size(); ++at) {
        std::size_t k = 0;
        while (k < length && haystack[at + k].text == needle[span.first + k].text) ++k;
        if (k == length) return true;
    }
    return false;
}

std::string spelled(const std::string& text, const std::vector<Token>& tokens, Span span)
{
    const std::string raw = text.substr(tokens[span.first].begin, tokens[span.second - 1].end - tokens[span.first].begin);
    std::string out;
    for (char c : raw) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace

std::vector<Dictation> dictated(const std::string& comment, const std::string& answer, const std::string& shown)
{
    const auto said = tokenize(comment, false);
    const auto code = tokenize(answer, true);
    const auto given = tokenize(shown, true);
    std::vector<std::pair<std::size_t, Dictation>> hits;  // (tokens, what)
    std::set<std::string> seen;
    for (const Fragment& f : fragments_of(code)) {
        if (!occurs(said, code, f.span) || occurs(given, code, f.span)) continue;
        Dictation d{spelled(answer, code, f.span), f.kind};
        if (!seen.insert(d.fragment).second) continue;
        hits.push_back({f.span.second - f.span.first, d});
    }
    std::stable_sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<Dictation> result;
    for (auto& [length, d] : hits) result.push_back(std::move(d));
    return result;
}

}  // namespace lab
