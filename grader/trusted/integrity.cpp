// TRUSTED SIDE. See integrity.hpp.
#include "integrity.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "elf.hpp"
#include "lab/text.hpp"
#include "screen.hpp"

namespace lab::grading {

namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path)
{
    auto text = lab::try_read_file(path);
    if (!text) throw std::runtime_error("the integrity checks cannot read " + path + ", which the build should have made");
    return *text;
}

std::string demangle(const std::string& name)
{
    if (name.rfind("_Z", 0) != 0) return name;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> plain(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && plain ? std::string(plain.get()) : name;
}

// The first namespace a mangled name lies in ("ex07", "lab", "std"), or "" for the global one.
// Understands what a kernel file's objects hold: nested names, local names (a static inside a
// function), guard variables, vtables and type information, template instantiations.
std::string outer_namespace(const std::string& mangled)
{
    if (mangled.rfind("_Z", 0) != 0) return "";
    std::string_view rest(mangled);
    rest.remove_prefix(2);
    for (bool again = true; again;) {
        again = false;
        for (std::string_view special : {"GV", "TV", "TI", "TS", "TT", "TH", "TW", "GR"})
            if (rest.rfind(special, 0) == 0) rest.remove_prefix(2), again = true;
        if (!rest.empty() && rest[0] == 'L') rest.remove_prefix(1), again = true;  // internal linkage
        if (!rest.empty() && rest[0] == 'Z') rest.remove_prefix(1), again = true;  // local name: its function
    }
    if (rest.rfind("St", 0) == 0) return "std";
    if (!rest.empty() && rest[0] == 'N') {
        rest.remove_prefix(1);
        while (!rest.empty() && std::string_view("rVKRO").find(rest[0]) != std::string_view::npos) rest.remove_prefix(1);
        if (rest.rfind("St", 0) == 0) return "std";
        std::size_t digits = 0;
        while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
        if (digits == 0 || digits > 4) return "";
        const std::size_t length = static_cast<std::size_t>(std::stoul(std::string(rest.substr(0, digits))));
        if (rest.size() < digits + length) return "";
        const std::string_view first = rest.substr(digits, length);
        // A name nested in a class or function, not a namespace, still counts as its outer name.
        return std::string(first);
    }
    return "";
}

// Whether the registry's "forbids" for the rung names `rule`; "" is a rule of every rung.
bool forbids(const lab::RungInfo& rung, const std::string& rule)
{
    return rule.empty() || std::find(rung.forbids.begin(), rung.forbids.end(), rule) != rung.forbids.end();
}

bool is_weak(ElfSymbol::Binding b) { return b == ElfSymbol::Binding::weak || b == ElfSymbol::Binding::unique; }

// Host calls a kernel file has no use for, by the name the object asks for.
const std::regex& forbidden_call()
{
    static const std::regex pattern(
        R"(^(cuda[A-Z]\w*|cu[A-Z]\w*|nvrtc\w*|readlink\w*|fopen\w*|freopen\w*|open|open64|openat\w*|creat\w*|read|write|pread\w*|)"
        R"(pwrite\w*|mmap\w*|mprotect|munmap|mremap|dlopen|dlsym|dlvsym|dlmopen|fork|vfork|clone\w*|exec\w*|system|popen|)"
        R"(posix_spawn\w*|kill|tgkill|raise|ptrace|socket|connect|bind|listen|accept\w*|send\w*|recv\w*|getenv|secure_getenv|)"
        R"(setenv|putenv|unsetenv|exit|_exit|_Exit|quick_exit|atexit|__cxa_atexit|at_quick_exit|signal|sigaction|)"
        R"(pthread_create|pthread_kill|syscall|unlink\w*|remove|rename\w*|chdir|chmod|chown|symlink\w*|link\w*|truncate\w*|)"
        R"(prctl|setrlimit|prlimit\w*|sleep|usleep|nanosleep|clock_nanosleep))"
        R"($|^std::(thread|basic_[io]?fstream|basic_filebuf|filesystem|getenv|system|exit|quick_exit|atexit)\b)");
    return pattern;
}

void check_object(const lab::RungInfo& rung, const std::string& path, const std::string& baseline_path,
                  const std::string& shown_as, std::vector<Finding>& out)
{
    const ElfObject object = read_elf_object(path), baseline = read_elf_object(baseline_path);
    const std::string where = shown_as + " as compiled (" + fs::path(path).filename().string() + ")";
    const auto add = [&](const std::string& rule, const std::string& what) { out.push_back({where, rule, what}); };
    const std::string rung_ns = "ex" + rung.number;
    const bool libraries = forbids(rung, "libraries");
    // Weak definitions <new> makes inline; C names the CUDA runtime and driver own.
    static const std::regex placement(R"(operator (new|delete)(\[\])?\((unsigned long|void\*), void\*\))"),
        cuda_name(R"(^(cuda|cu[A-Z]|__cuda|nv))");

    // Code before or after main: every entry of these tables is a function the loader runs.
    std::map<std::string, std::uint64_t> tables, reference_tables;
    static const std::regex table(R"(^\.(preinit_array|init_array|fini_array|ctors|dtors)(\..*)?$)");
    for (const auto& s : object.sections)
        if (std::regex_match(s.name, table)) tables[s.name] += s.size;
    for (const auto& s : baseline.sections)
        if (std::regex_match(s.name, table)) reference_tables[s.name] += s.size;
    for (const auto& [name, size] : tables) {
        const std::uint64_t reference = reference_tables.count(name) ? reference_tables.at(name) : 0;
        if (size > reference)
            add("code-before-main", "section " + name + " holds " + std::to_string((size - reference) / 8) +
                                          " more function(s) than the kit's own: a static constructor, a dynamic "
                                          "initialiser or a destructor at exit, which a kernel file may not have");
    }

    std::map<std::string, ElfSymbol::Binding> reference_defined;
    std::set<std::string> reference_undefined;
    for (const auto& s : baseline.symbols) {
        if (s.defined && s.binding != ElfSymbol::Binding::local) reference_defined[s.name] = s.binding;
        if (!s.defined) reference_undefined.insert(s.name);
    }
    std::set<std::string> said;
    for (const auto& s : object.symbols) {
        if (s.name.empty() || !said.insert(s.name + (s.defined ? "+" : "-")).second) continue;
        const std::string plain = demangle(s.name);
        const std::string ns = outer_namespace(s.name);
        if (libraries && (ns == "cub" || ns == "thrust" || plain.find("cub::") != std::string::npos ||
                          plain.find("thrust::") != std::string::npos)) {
            add("libraries", std::string(s.defined ? "defines " : "calls ") + plain + ": rung " + rung.id +
                                   " is written without CUB or Thrust");
            continue;
        }
        if (!s.defined) {
            if (reference_undefined.count(s.name)) continue;
            if (std::regex_search(plain, forbidden_call()))
                add("host-calls", "calls " + plain + " from the host: a kernel file computes on the GPU and "
                                    "touches nothing else");
            continue;
        }
        if (s.name == "main") {
            add("symbols", "defines main");
            continue;
        }
        if (s.binding == ElfSymbol::Binding::local) continue;  // nothing outside this object can call it
        if (const auto known = reference_defined.find(s.name); known != reference_defined.end()) {
            if (is_weak(known->second) && !is_weak(s.binding))
                add("symbols", "replaces the kit's " + plain + " with a definition of its own");
            continue;
        }
        // The file's own namespace; or an anonymous one, whose names (nvcc makes them weak globals)
        // carry a hash of this very compile, so nothing outside it can be replaced by them.
        if (ns == rung_ns || ns.rfind("_GLOBAL__N", 0) == 0) continue;
        // Instantiations of the kit's and the standard library's templates with the file's own types.
        // (A weak definition cannot take the place of a strong one, and a weak one of its own there
        // would need the file to reopen these namespaces or specialise their templates, which the
        // screen refuses in the preprocessed text.) Placement new and delete, which <new> defines
        // inline, likewise.
        if (is_weak(s.binding) &&
            (ns == "lab" || ns == "std" || ns == "__gnu_cxx" || ns == "cuda" ||
             std::regex_match(plain, placement)))
            continue;
        const bool c_name = s.name.rfind("_Z", 0) != 0;
        const std::string why =
            ns == "lab" ? "defines " + plain + " in namespace lab, the kit's own"
            : c_name && std::regex_search(plain, cuda_name)
                ? "defines " + plain + ", a CUDA name: it would replace the runtime's own for the whole runner"
                : "defines " + plain + " outside namespace " + rung_ns +
                      ": anything else it defines could replace a function the runner uses";
        add("symbols", why);
    }
}

// The rung's forbidden instructions in one PTX file, each kind once (PTX has no lines of the file's own).
std::vector<Finding> check_ptx(const lab::RungInfo& rung, const std::string& path, const std::string& shown_as)
{
    std::vector<Finding> out;
    static const std::regex atomic(R"(^\s*(@!?%\w+\s+)?(atom|red)\.)"), redux(R"(\bredux\.sync\b)"),
        library(R"(N3cub|N6thrust)");
    // A rung with "ticket_fence" (rungs.json): every ticket, an atomic on a 32-bit counter in global
    // memory that counts by one (atomicInc, atomicDec, or atomicAdd/atomicSub of the constant 1),
    // follows a fence of GPU or system scope since the function's last ticket, in the PTX's order, as
    // the CPU backend demands at run time (common/CPU_BACKEND.md, "Tickets"), so that a GPU grading
    // and a CPU grading give one verdict. (PTX has no signed atomic add: rung 11's int atomic scheme,
    // atomicAdd of a block's sum, is an add.u32 too, but of a register, never of the constant 1.)
    static const std::regex ticket(
        R"(^\s*(@!?%\w+\s+)?(atom|red)\.global\.((inc|dec)\.u32\b|add\.u32\s[^;]*,\s*(1|-1|4294967295|0xffffffff|0[xX]FFFFFFFF)\s*;))"),
        fence(R"(^\s*(@!?%\w+\s+)?(membar\.(gl|sys)|fence\.(sc|acq_rel)\.(gpu|sys))\b)"),
        function(R"(^\s*(\.visible\s+|\.weak\s+)?\.(entry|func)\b)");
    bool fenced = false;
    std::istringstream text(read_text(path));
    std::set<std::string> said;
    for (std::string line; std::getline(text, line);) {
        std::string what, rule;
        if (rung.ticket_fence) {
            if (std::regex_search(line, function)) fenced = false;
            else if (std::regex_search(line, fence)) fenced = true;
            else if (std::regex_search(line, ticket)) {
                if (!fenced) rule = "ticket-fence";
                fenced = false;
            }
        }
        if (!rule.empty()) {
            if (said.insert(rule).second)
                out.push_back({shown_as + " (PTX " + fs::path(path).filename().string() + ")", rule,
                               "the compiled kernel takes a ticket (an atomic add or inc on an unsigned counter) with "
                               "no __threadfence() since its last one: the block that draws the last ticket may read "
                               "a partial that is not visible yet. Write the partial, __threadfence(), then take the "
                               "ticket."});
            continue;
        }
        if (forbids(rung, "atomics") && std::regex_search(line, atomic)) rule = "atomics", what = "an atomic instruction";
        else if (forbids(rung, "libraries") && std::regex_search(line, redux))
            rule = "libraries", what = "a warp reduction instruction (redux.sync, from __reduce_*_sync)";
        else if (forbids(rung, "libraries") && std::regex_search(line, library))
            rule = "libraries", what = "a function of CUB or Thrust";
        if (rule.empty() || !said.insert(rule + what).second) continue;
        out.push_back({shown_as + " (PTX " + fs::path(path).filename().string() + ")", rule,
                       "the compiled kernel holds " + what + ", which rung " + rung.id + " may not use"});
    }
    return out;
}

std::string unescape(const std::string& name)
{
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '\\' && i + 1 < name.size()) ++i;
        out += name[i];
    }
    return out;
}

// What the identifiers and attributes of the file's own lines may not be, after preprocessing.
struct SourceRule {
    const char* forbid;  // "" for every rung, else the registry's rule name
    std::regex pattern;
    const char* what;
};

const std::vector<SourceRule>& source_rules()
{
    static const std::vector<SourceRule> rules{
        {"libraries", std::regex(R"(\b(cub|thrust)\s*::)"), "uses CUB or Thrust"},
        {"libraries", std::regex(R"(\b__reduce_(add|min|max|and|or|xor)_sync\b)"), "uses a __reduce_*_sync warp reduction"},
        {"libraries", std::regex(R"(\b(cg|cooperative_groups)\s*::\s*(reduce|inclusive_scan|exclusive_scan)\b)"),
         "uses cooperative groups' reduce or scan"},
        {"atomics", std::regex(R"(\b(atomic[A-Z]\w*|__atomic_\w+|__sync_\w+|atomic_ref|atomic)\b)"), "uses an atomic"},
    };
    return rules;
}

// The spans of attributes in `code`: __attribute__((...)), __declspec(...), [[...]].
std::vector<std::pair<std::size_t, std::string>> attributes(const std::string& code)
{
    std::vector<std::pair<std::size_t, std::string>> found;
    static const std::regex start(R"(__attribute__\s*\(|__declspec\s*\(|\[\[)");
    for (auto it = std::sregex_iterator(code.begin(), code.end(), start); it != std::sregex_iterator(); ++it) {
        const std::size_t at = static_cast<std::size_t>(it->position());
        const bool brackets = it->str() == "[[";
        int depth = 0;
        std::size_t end = at;
        for (; end < code.size(); ++end) {
            const char c = code[end];
            if (c == (brackets ? '[' : '(')) ++depth;
            else if (c == (brackets ? ']' : ')') && --depth == 0) break;
        }
        found.emplace_back(at, code.substr(at, end - at + 1));
    }
    return found;
}

}  // namespace

const std::vector<std::string>& known_forbids()
{
    static const std::vector<std::string> names{"libraries", "atomics"};
    return names;
}

std::vector<Finding> check_preprocessed(const lab::RungInfo& rung, const std::string& text, const CompiledRung& compiled)
{
    std::vector<Finding> out;
    const auto is_student = [&](const std::string& file) {
        if (file == compiled.student_file) return true;
        return std::count(compiled.also_student.begin(), compiled.also_student.end(), file) > 0;
    };
    // The file's own lines, at their own line numbers; and the headers it brought in.
    std::vector<std::string> lines;
    static const std::regex marker(R"(^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)\"(.*)$)");
    static const std::regex forbidden_header(R"((^|/)(cub|thrust)/|(^|/)cooperative_groups/(reduce|scan)\.h$)");
    std::string file, top;  // top: the header the file's own #include named, while inside it
    bool top_said = false;
    long line = 0, last_student_line = 0;
    std::vector<std::string> pending;  // forbidden headers entered since the file's last line
    const auto say_headers = [&](long at) {
        for (const std::string& header : pending)
            out.push_back({compiled.shown_as + ":" + std::to_string(at), "libraries",
                           "includes " + header + ", which rung " + rung.id + " may not use"});
        pending.clear();
    };
    std::istringstream in(text);
    for (std::string row; std::getline(in, row);) {
        std::smatch m;
        if (!row.empty() && row[0] == '#' && std::regex_match(row, m, marker)) {
            const std::string from = file;
            file = unescape(m[2].str());
            line = std::stol(m[1].str());
            const std::string flags = m[3].str();
            if (flags.find('1') != std::string::npos && is_student(from)) top = file, top_said = false;
            // One finding per #include of the file's own, naming what it brought in.
            if (forbids(rung, "libraries") && !top_said && std::regex_search(file, forbidden_header)) {
                pending.push_back(top == file || top.empty() ? file : top + " (which brings in " + file + ")");
                top_said = true;
            }
            // Back in the file after an #include (flag 2): the directive was the line before.
            if (is_student(file) && flags.find('2') != std::string::npos) say_headers(line - 1);
            continue;
        }
        if (is_student(file)) {
            if (lines.size() < static_cast<std::size_t>(line)) lines.resize(static_cast<std::size_t>(line));
            if (line >= 1) lines[static_cast<std::size_t>(line - 1)] += row + " ";
            last_student_line = line;
        }
        ++line;
    }
    say_headers(last_student_line);
    std::string own;
    for (const auto& l : lines) own += l + "\n";
    const auto line_of = [&](std::size_t at) { return 1 + std::count(own.begin(), own.begin() + static_cast<long>(at), '\n'); };
    const auto where = [&](std::size_t at) { return compiled.shown_as + ":" + std::to_string(line_of(at)); };

    // The text screen's rules again, now that every macro is expanded.
    for (const std::string& problem : screen_source(own)) {
        const std::size_t colon = problem.find(": ");
        out.push_back({compiled.shown_as + ":" + problem.substr(5, colon - 5), "source",
                       "after preprocessing, " + problem.substr(colon + 2)});
    }
    static const std::regex placing(
        R"(\b(constructor|destructor|init_priority|section|alias|ifunc|weak|weakref|visibility|symver|used|retain|externally_visible|no_reorder)\b)");
    for (const auto& [at, attribute] : attributes(own)) {
        std::smatch m;
        if (std::regex_search(attribute, m, placing))
            out.push_back({where(at), "source",
                           "the attribute " + m[1].str() + " places or names code for the linker: a kernel file has no use for it"});
    }
    for (const SourceRule& rule : source_rules()) {
        if (!forbids(rung, rule.forbid)) continue;
        std::set<long> lines_said;
        for (auto it = std::sregex_iterator(own.begin(), own.end(), rule.pattern); it != std::sregex_iterator(); ++it) {
            const long at_line = line_of(static_cast<std::size_t>(it->position()));
            if (!lines_said.insert(at_line).second) continue;
            out.push_back({compiled.shown_as + ":" + std::to_string(at_line), rule.forbid,
                           std::string(rule.what) + " (" + it->str() + "), which rung " + rung.id + " may not use"});
        }
    }
    return out;
}

std::vector<Finding> check_integrity(const lab::RungInfo& rung, const CompiledRung& compiled)
{
    for (const std::string& name : rung.forbids)
        if (std::find(known_forbids().begin(), known_forbids().end(), name) == known_forbids().end()) {
            std::string known;
            for (const std::string& k : known_forbids()) known += (known.empty() ? "" : ", ") + k;
            throw std::runtime_error("rungs.json: rung " + rung.id + " forbids \"" + name +
                                     "\", which this grader has no rule for (known: " + known + ")");
        }
    std::vector<Finding> out;
    std::set<std::string> said;
    const auto add = [&](const std::vector<Finding>& found) {
        for (const Finding& f : found)
            if (said.insert(f.rule + f.where + f.what).second) out.push_back(f);
    };
    for (const std::string& path : compiled.preprocessed) add(check_preprocessed(rung, read_text(path), compiled));
    for (const std::string& path : compiled.ptx) add(check_ptx(rung, path, compiled.shown_as));
    for (const auto& [object, baseline] : compiled.objects) {
        std::vector<Finding> found;
        check_object(rung, object, baseline, compiled.shown_as, found);
        add(found);
    }
    return out;
}

}  // namespace lab::grading
