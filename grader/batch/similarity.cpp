// INSTRUCTOR SIDE (grade-all). See similarity.hpp.
#include "similarity.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "skeleton.hpp"

namespace lab::batch {

namespace fs = std::filesystem;

namespace {

// Names kept as they are: C++'s keywords and CUDA's built-ins, which say what the code does; every
// other name becomes "I".
const std::unordered_set<std::string>& kept_names()
{
    static const std::unordered_set<std::string> names = {
        "alignas", "alignof", "auto", "bool", "break", "case", "catch", "char", "class", "const", "constexpr", "const_cast",
        "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "extern",
        "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
        "nullptr", "operator", "private", "protected", "public", "register", "reinterpret_cast", "return", "short",
        "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "throw",
        "true", "try", "typedef", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while",
        "__global__", "__device__", "__host__", "__shared__", "__constant__", "__restrict__", "__forceinline__",
        "__noinline__", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads", "__syncwarp",
        "__threadfence", "__shfl_down_sync", "__shfl_up_sync", "__shfl_xor_sync", "__shfl_sync", "__ballot_sync",
        "__activemask", "atomicAdd", "atomicInc", "atomicMax", "atomicMin", "atomicCAS", "atomicExch", "x", "y", "z",
        "size_t", "uint32_t", "uint64_t", "int64_t", "std"};
    return names;
}

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The shared fingerprints of one file: hash -> the lines its token run covers.
using Prints = std::unordered_map<std::uint64_t, std::set<int>>;

// Every run of k tokens' hash, with its first and last line.
struct Run {
    std::uint64_t hash;
    int first, last;
};

std::vector<Run> runs_of(const std::vector<Token>& tokens, int k)
{
    std::vector<Run> runs;
    if (static_cast<int>(tokens.size()) < k) return runs;
    for (std::size_t i = 0; i + static_cast<std::size_t>(k) <= tokens.size(); ++i) {
        std::uint64_t h = lab::fnv1a("run");
        for (std::size_t j = i; j < i + static_cast<std::size_t>(k); ++j) h = lab::fnv1a_mix(h, tokens[j].text);
        runs.push_back({h, tokens[i].line, tokens[i + static_cast<std::size_t>(k) - 1].line});
    }
    return runs;
}

// Winnowing: of every window of w consecutive runs, the least hash (the rightmost on a tie), each
// chosen position once.
Prints fingerprints(const std::string& text, const SimilarityOptions& o)
{
    const std::vector<Run> runs = runs_of(tokens_of(text), o.k);
    Prints prints;
    const std::size_t w = static_cast<std::size_t>(std::max(1, o.window));
    std::size_t last_chosen = SIZE_MAX;
    const auto keep = [&](std::size_t at) {
        if (at == last_chosen) return;
        last_chosen = at;
        for (int line = runs[at].first; line <= runs[at].last; ++line) prints[runs[at].hash].insert(line);
    };
    if (runs.size() < w) {  // a short file: every run
        for (std::size_t i = 0; i < runs.size(); ++i) keep(i);
        return prints;
    }
    for (std::size_t start = 0; start + w <= runs.size(); ++start) {
        std::size_t least = start;
        for (std::size_t i = start; i < start + w; ++i)
            if (runs[i].hash <= runs[least].hash) least = i;
        keep(least);
    }
    return prints;
}

std::string score_text(double score)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.0f%%", 100.0 * score);
    return text;
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The given lines of a file, numbered, with "..." where lines are skipped; at most `most`.
std::string excerpt(const std::string& text, const std::set<int>& wanted, std::size_t most = 60)
{
    const std::vector<std::string> lines = lines_of(text);
    std::string out;
    int previous = 0;
    std::size_t shown = 0;
    for (const int line : wanted) {
        if (line < 1 || line > static_cast<int>(lines.size())) continue;
        if (shown == most) {
            out += "... (" + std::to_string(wanted.size() - most) + " lines more)\n";
            break;
        }
        if (previous && line > previous + 1) out += "...\n";
        char number[16];
        std::snprintf(number, sizeof number, "%4d  ", line);
        out += number + lines[static_cast<std::size_t>(line - 1)] + "\n";
        previous = line;
        ++shown;
    }
    return out;
}

const char* const kAbout =
    "Similarity is evidence for a person to read, never a verdict. Each pair below shares runs of code that "
    "neither the rung's reference nor its exercise has, and that few others in the class wrote: comments, "
    "spacing and the names of variables are ignored, so a copy with renamed variables still matches. Two "
    "students who fill the same short TODO in the same correct way share nothing this can see past; a pair "
    "not listed is not thereby cleared.";

std::string method_text(const SimilarityOptions& o)
{
    return "Runs of " + std::to_string(o.k) + " tokens, winnowed in windows of " + std::to_string(o.window) +
           " (MOSS's method); a pair is listed from " + std::to_string(o.min_shared) + " shared fingerprints and a score of " +
           score_text(o.threshold) + " (the shared fingerprints over the fewer either file has of its own).";
}

}  // namespace

std::vector<Token> tokens_of(const std::string& text)
{
    static const std::vector<std::string> operators = {">>=", "<<=", "->*", "...", "::", "->", "++", "--", "<<", ">>", "<=",
                                                       ">=",  "==",  "!=",  "&&",  "||", "+=", "-=", "*=", "/=", "%=", "&=",
                                                       "|=",  "^="};
    std::vector<Token> tokens;
    int line = 1;
    bool line_start = true;  // nothing but spaces yet on this line: a '#' starts a preprocessor line
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            line_start = true;
            ++i;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '/') {  // to the end of the line
            while (i < n && text[i] != '\n') ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            i += 2;
            while (i < n && !(text[i] == '*' && i + 1 < n && text[i + 1] == '/')) line += text[i++] == '\n';
            i = std::min(n, i + 2);
            continue;
        }
        if (c == '#' && line_start) {  // a preprocessor line, with its continuations
            while (i < n && text[i] != '\n') {
                if (text[i] == '\\' && i + 1 < n && text[i + 1] == '\n') ++line, ++i;
                ++i;
            }
            continue;
        }
        line_start = false;
        const int at = line;
        if (c == '"' || c == '\'') {  // a string or character literal (a raw string's body is read as one too)
            std::size_t j = i + 1;
            while (j < n && text[j] != c && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
            tokens.push_back({c == '"' ? "S" : "C", at});
            i = std::min(n, j + 1);
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
            std::size_t j = i;
            while (j < n && (name_char(text[j]) || text[j] == '.' || text[j] == '\'' ||
                             ((text[j] == '+' || text[j] == '-') && j > i && std::strchr("eEpP", text[j - 1]))))
                ++j;
            tokens.push_back({text.substr(i, j - i), at});
            i = j;
            continue;
        }
        if (name_start(c)) {
            std::size_t j = i;
            while (j < n && name_char(text[j])) ++j;
            const std::string name = text.substr(i, j - i);
            tokens.push_back({kept_names().count(name) ? name : "I", at});
            i = j;
            continue;
        }
        std::string op(1, c);
        for (const std::string& candidate : operators)
            if (text.compare(i, candidate.size(), candidate) == 0) {
                op = candidate;
                break;
            }
        tokens.push_back({op, at});
        i += op.size();
    }
    return tokens;
}

RungSimilarity similar_pairs(const std::string& rung, const std::vector<RungFile>& files, const std::vector<std::string>& base,
                             const SimilarityOptions& options)
{
    RungSimilarity result;
    result.rung = rung;
    result.files = static_cast<int>(files.size());
    // Every run of the base, not only its fingerprints: a student's fingerprint that is any of them
    // is the kit's text.
    std::unordered_set<std::uint64_t> kit;
    for (const std::string& text : base)
        for (const Run& r : runs_of(tokens_of(text), options.k)) kit.insert(r.hash);
    std::vector<Prints> own(files.size());
    std::unordered_map<std::uint64_t, int> held_by;
    for (std::size_t i = 0; i < files.size(); ++i) {
        for (auto& [hash, lines] : fingerprints(files[i].text, options))
            if (!kit.count(hash)) own[i].emplace(hash, std::move(lines));
        for (const auto& [hash, lines] : own[i]) ++held_by[hash];
    }
    const int common_limit = std::max(4, static_cast<int>(files.size()) / 5);
    std::unordered_set<std::uint64_t> common;
    for (const auto& [hash, count] : held_by)
        if (count > common_limit) common.insert(hash);
    result.common = static_cast<int>(common.size());
    for (Prints& p : own)
        for (auto it = p.begin(); it != p.end();) it = common.count(it->first) ? p.erase(it) : std::next(it);
    // Pairs through an index of who holds each fingerprint: a class's pairs without comparing each.
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> holders;
    for (std::size_t i = 0; i < own.size(); ++i)
        for (const auto& [hash, lines] : own[i]) holders[hash].push_back(i);
    std::map<std::pair<std::size_t, std::size_t>, std::vector<std::uint64_t>> shared;
    for (const auto& [hash, who] : holders)
        for (std::size_t x = 0; x < who.size(); ++x)
            for (std::size_t y = x + 1; y < who.size(); ++y) shared[{who[x], who[y]}].push_back(hash);
    for (const auto& [pair, hashes] : shared) {
        const auto [i, j] = pair;
        SimilarPair p;
        p.a = files[i].student;
        p.b = files[j].student;
        p.shared = static_cast<int>(hashes.size());
        p.own_a = static_cast<int>(own[i].size());
        p.own_b = static_cast<int>(own[j].size());
        p.score = static_cast<double>(p.shared) / std::max(1, std::min(p.own_a, p.own_b));
        if (p.shared < options.min_shared || p.score < options.threshold) continue;
        for (const std::uint64_t h : hashes) {
            p.lines_a.insert(own[i].at(h).begin(), own[i].at(h).end());
            p.lines_b.insert(own[j].at(h).begin(), own[j].at(h).end());
        }
        result.pairs.push_back(std::move(p));
    }
    std::sort(result.pairs.begin(), result.pairs.end(), [](const SimilarPair& x, const SimilarPair& y) {
        return x.score != y.score ? x.score > y.score : x.shared != y.shared ? x.shared > y.shared : std::tie(x.a, x.b) < std::tie(y.a, y.b);
    });
    return result;
}

std::string similarity_markdown(const std::vector<RungSimilarity>& rungs, const SimilarityOptions& options, const ClassTexts& texts)
{
    std::ostringstream out;
    out << "# Similar submissions\n\n" << kAbout << "\n\n" << method_text(options) << "\n\n";
    out << "| Rung | Files compared | Pairs listed | Fingerprints set aside as common |\n|---|---:|---:|---:|\n";
    for (const RungSimilarity& r : rungs)
        out << "| " << r.rung << " | " << r.files << " | " << r.pairs.size() << " | " << r.common << " |\n";
    for (const RungSimilarity& r : rungs) {
        if (r.pairs.empty()) continue;
        out << "\n## " << r.rung << "\n";
        for (const SimilarPair& p : r.pairs) {
            out << "\n### " << p.a << " and " << p.b << ": " << score_text(p.score) << " (" << p.shared << " shared of "
                << p.own_a << " and " << p.own_b << ")\n\n";
            for (const auto& [who, lines] : {std::pair{p.a, p.lines_a}, std::pair{p.b, p.lines_b}}) {
                const auto& by_student = texts.count(r.rung) ? texts.at(r.rung) : std::map<std::string, std::string>{};
                out << who << ", the lines it shares:\n\n```cuda\n"
                    << (by_student.count(who) ? excerpt(by_student.at(who), lines) : std::string("(the file cannot be read)\n"))
                    << "```\n\n";
            }
        }
    }
    return out.str();
}

std::string similarity_html(const std::vector<RungSimilarity>& rungs, const SimilarityOptions& options, const ClassTexts& texts)
{
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Similar submissions</title><style>"
           "body{font-family:sans-serif;max-width:80em;margin:2em auto}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:.3em .6em;vertical-align:top}td.n{text-align:right}"
           "pre{margin:0;font-size:85%}</style></head><body>\n<h1>Similar submissions</h1>\n<p><strong>"
        << lab::xml_escape(kAbout) << "</strong></p>\n<p>" << lab::xml_escape(method_text(options)) << "</p>\n"
        << "<table><tr><th>Rung</th><th>Files compared</th><th>Pairs listed</th><th>Fingerprints set aside as common</th></tr>\n";
    for (const RungSimilarity& r : rungs)
        out << "<tr><td>" << lab::xml_escape(r.rung) << "</td><td class=\"n\">" << r.files << "</td><td class=\"n\">"
            << r.pairs.size() << "</td><td class=\"n\">" << r.common << "</td></tr>\n";
    out << "</table>\n";
    for (const RungSimilarity& r : rungs) {
        if (r.pairs.empty()) continue;
        out << "<h2>" << lab::xml_escape(r.rung) << "</h2>\n";
        const auto& by_student = texts.count(r.rung) ? texts.at(r.rung) : std::map<std::string, std::string>{};
        const auto shown = [&](const std::string& who, const std::set<int>& lines) {
            return lab::xml_escape(by_student.count(who) ? excerpt(by_student.at(who), lines) : "(the file cannot be read)");
        };
        for (const SimilarPair& p : r.pairs)
            out << "<h3>" << lab::xml_escape(p.a) << " and " << lab::xml_escape(p.b) << ": " << score_text(p.score) << " ("
                << p.shared << " shared of " << p.own_a << " and " << p.own_b << ")</h3>\n<table><tr><th>"
                << lab::xml_escape(p.a) << "</th><th>" << lab::xml_escape(p.b) << "</th></tr><tr><td><pre>"
                << shown(p.a, p.lines_a) << "</pre></td><td><pre>" << shown(p.b, p.lines_b) << "</pre></td></tr></table>\n";
    }
    out << "</body></html>\n";
    return out.str();
}

ClassSimilarity class_similarity(const std::string& out, const std::vector<std::string>& students, const SimilarityOptions& options)
{
    ClassSimilarity result;
    for (const lab::RungInfo& rung : lab::Registry::kit().rungs()) {
        std::vector<RungFile> files;
        for (const std::string& id : students)
            if (auto text = lab::try_read_file(out + "/students/" + id + "/graded/" + rung.id + ".cu")) {
                files.push_back({id, *text});
                result.texts[rung.id][id] = std::move(*text);
            }
        std::vector<std::string> base;
        if (auto solution = lab::try_read_file(lab::kit_path("solutions/" + rung.id + ".cu"))) {
            base.push_back(*solution);
            try {
                base.push_back(lab::make_skeleton(*solution, "solutions/" + rung.id + ".cu", rung.number).text);
            } catch (const lab::SkeletonError&) {
                // The solution alone is the base.
            }
        }
        RungSimilarity r = similar_pairs(rung.id, files, base, options);
        result.listed += static_cast<int>(r.pairs.size());
        result.rungs.push_back(std::move(r));
    }
    return result;
}

}  // namespace lab::batch
