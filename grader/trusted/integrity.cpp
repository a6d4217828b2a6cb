// TRUSTED SIDE. See integrity.hpp.
#include "integrity.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "elf.hpp"
#include "lab/process.hpp"
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
    // The standard library's abbreviations: St (std::), Sa (std::allocator), Sb (std::basic_string),
    // Ss, Si, So, Sd (std::string and the streams).
    const auto in_std = [](std::string_view s) {
        return s.size() >= 2 && s[0] == 'S' && std::string_view("tabsiod").find(s[1]) != std::string_view::npos;
    };
    if (in_std(rest)) return "std";
    if (!rest.empty() && rest[0] == 'N') {
        rest.remove_prefix(1);
        while (!rest.empty() && std::string_view("rVKRO").find(rest[0]) != std::string_view::npos) rest.remove_prefix(1);
        if (in_std(rest)) return "std";
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

// What a file may ask the CUDA runtime from the host, beyond what its rung's reference asks: questions
// about the device and the last error, which change nothing (a grid sized by the number of
// multiprocessors). The CPU backend answers each (lab/cpu/runtime.hpp).
const std::regex& device_query()
{
    static const std::regex pattern(
        R"(^(cudaGetDevice|cudaGetDeviceCount|cudaGetDeviceProperties(_v2)?|cudaDeviceGetAttribute|cudaGetLastError|)"
        R"(cudaPeekAtLastError|cudaGetErrorString|cudaGetErrorName|cudaDriverGetVersion|cudaRuntimeGetVersion)$)");
    return pattern;
}

// A demangled function's name without its parameters or template arguments: the CPU backend's
// runtime functions are C++ ones, cudaGetDevice(int*).
std::string bare_name(const std::string& plain) { return plain.substr(0, plain.find_first_of("(<")); }

// Whether a kernel file's object may import `plain` (demangled, in the namespace `ns` outer_namespace
// gives; what the rung's reference imports is
// allowed before this is asked): a list of what a kernel file can use, never a list of what it
// cannot (a list of forbidden names misses _Fork, __open_2, fdopen, tmpfile, poll, ... and whatever
// the C library adds next). Allowed: the kit (lab::; of its CPU backend the file's own lines may name
// only what the rewrite writes there, check_preprocessed); the C++ standard library and its ABI (but
// threads, files, the file system, the environment, processes and exit); nvcc's registration and
// launch of kernels; the C library's math, memory and string functions, formatting into memory,
// printing to the standard streams, assert and abort; the compiler's helpers (__udivti3,
// __popcountdi2, ...). The CUDA runtime is not here: what the rung's reference calls is allowed
// before, and each call site of it is checked in the file's own lines.
bool allowed_import(const std::string& ns, const std::string& plain)
{
    static const std::regex forbidden_std(R"(\bstd::(__cxx11::)?(thread|jthread|this_thread|basic_[io]?fstream|basic_filebuf|__basic_file|)"
                      R"(filesystem|getenv|system|exit|quick_exit|_Exit|atexit|at_quick_exit|random_device)\b)"),
        abi(R"(^(operator (new|delete)(\[\])?|__cxa_(allocate_exception|free_exception|throw|rethrow|begin_catch|end_catch|)"
            R"(guard_acquire|guard_release|guard_abort|pure_virtual|deleted_virtual|bad_cast|bad_typeid|)"
            R"(throw_bad_array_new_length|get_exception_ptr|call_unexpected)|__gxx_personality_v0|_Unwind_Resume|)"
            R"(__dso_handle|_GLOBAL_OFFSET_TABLE_|__stack_chk_fail|__stack_chk_guard|__cuda(Register|Unregister|)"
            R"(PushCallConfiguration|PopCallConfiguration|LaunchKernel|GetKernel|InitModule)\w*)$)"),
        c_library(R"(^((sqrt|cbrt|exp|exp2|exp10|expm1|log|log2|log10|log1p|logb|ilogb|pow|sin|cos|tan|asin|acos|atan|)"
                  R"(atan2|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|tgamma|lgamma|ceil|floor|trunc|round|lround|llround|)"
                  R"(rint|lrint|llrint|nearbyint|fmod|remainder|remquo|fma|fmax|fmin|fdim|fabs|hypot|frexp|ldexp|scalbn|)"
                  R"(scalbln|modf|nextafter|nexttoward|copysign|nan|sincos)[fl]?|l?l?abs|__(is|f)(nan|inf|finite)[fl]?|)"
                  R"(__fpclassify[fl]?|__signbit[fl]?|mem(cpy|move|set|cmp|chr)|str(len|nlen|cmp|ncmp|chr|rchr|str|cpy|)"
                  R"(ncpy|cat|ncat|tol|toul|toll|toull|tod|tof)|__(mem|str)\w*_chk|s?n?printf|vs?n?printf|__v?s?n?printf_chk|)"
                  R"(fprintf|__fprintf_chk|puts|putchar|fputs|fputc|putc|fflush|stdout|stderr|abort|__assert_fail|)"
                  R"(qsort|bsearch)$)"),
        compiler_helper(R"(^__[a-z]+(qi|hi|si|di|ti|sf|df|xf|tf|hf|bf)[0-9]?$)");
    if (ns == "std" || ns == "__gnu_cxx" || ns == "__cxxabiv1" || ns == "lab") return !std::regex_search(plain, forbidden_std);
    const std::string name = bare_name(plain);
    return std::regex_match(name, abi) || std::regex_match(name, c_library) || std::regex_match(name, compiler_helper);
}

// The system call instructions in an object's code (syscall, sysenter, int $0x80), as objdump
// disassembles it: a call to the kernel that no library function's name gives away (inline asm).
int system_call_instructions(const std::string& object)
{
    static const std::string objdump = lab::process::find_program("objdump");
    if (objdump.empty())
        throw std::runtime_error("the integrity checks need objdump (binutils, which comes with g++): apt-get install binutils");
    const std::string listing = object + ".dis";
    lab::process::Options options;
    options.output = listing;
    options.null_stdin = true;
    if (lab::process::run({objdump, "-d", "--no-show-raw-insn", object}, options) != 0)
        throw std::runtime_error("objdump could not disassemble " + object);
    static const std::regex instruction(R"(\t(syscall|sysenter|int\s+\$0x80)\b)");
    const std::string text = read_text(listing);
    fs::remove(listing);
    return static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), instruction), std::sregex_iterator()));
}

// names_exit: whether the file's own lines, after preprocessing, name exit at all. nvcc compiles the
// host side of every __device__ function that is not inline to a stub that calls exit (it never
// runs: only the device calls the function), so a call to exit in the object is the file's own only
// when its own text names it.
void check_object(const lab::RungInfo& rung, const std::string& path, const ElfObject& object,
                  const std::string& baseline_path, const ElfObject& baseline, const std::string& shown_as,
                  bool names_exit, std::vector<Finding>& out)
{
    const std::string where = shown_as + " as compiled (" + fs::path(path).filename().string() + ")";
    const auto add = [&](const std::string& rule, const std::string& what) { out.push_back({where, rule, what}); };
    const std::string rung_ns = rung.kernel_namespace();
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

    // The reference's objects do not change between submissions: each is disassembled once per build of it.
    static std::mutex reference_mutex;
    static std::map<std::pair<std::string, fs::file_time_type>, int> reference_calls;
    int reference = 0;
    {
        std::lock_guard<std::mutex> lock(reference_mutex);
        const auto key = std::make_pair(baseline_path, fs::last_write_time(baseline_path));
        const auto known = reference_calls.find(key);
        reference = known != reference_calls.end() ? known->second : (reference_calls[key] = system_call_instructions(baseline_path));
    }
    if (const int calls = system_call_instructions(path); calls > reference)
        add("host-calls", "holds " + std::to_string(calls - reference) +
                              " system call instruction(s) (syscall, sysenter, int $0x80: inline assembly) the kit's own "
                              "code does not: a kernel file computes on the GPU and touches nothing else");

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
            if (reference_undefined.count(s.name) || std::regex_match(bare_name(plain), device_query())) continue;
            if (plain == "exit" && !names_exit) continue;
            if (!allowed_import(ns, plain))
                add("host-calls", "calls " + plain + " from the host: a kernel file computes on the GPU and "
                                    "touches nothing else (it may call the kit, the C++ standard library but "
                                    "threads, files and the environment, the C library's math, memory and string "
                                    "functions, and print)");
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

}  // namespace

std::string demangle(const std::string& name)
{
    if (name.rfind("_Z", 0) != 0) return name;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> plain(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && plain ? std::string(plain.get()) : name;
}

namespace {

// The rung's forbidden instructions in one PTX file, each kind once (PTX has no lines of the file's own).
std::vector<Finding> check_ptx(const lab::RungInfo& rung, const std::string& path, const std::string& shown_as)
{
    std::vector<Finding> out;
    static const std::regex atomic(R"(^\s*(@!?%\w+\s+)?(atom|red)\.)"), redux(R"(\bredux\.sync\b)"),
        library(R"(N3cub|N6thrust)");
    const std::string text_of_ptx = read_text(path);
    const std::string where = shown_as + " (PTX " + fs::path(path).filename().string() + ")";
    if (rung.ticket_fence) {
        const std::vector<std::string> kernels = unfenced_tickets(text_of_ptx);
        if (!kernels.empty())
            out.push_back({where, "ticket-fence",
                           "the compiled kernel " + kernels.front() +
                               " takes a ticket (an atomic add or inc of 1 on a counter) with no __threadfence() "
                               "between its last write and the ticket: the block that draws the last ticket may read "
                               "a partial that is not visible yet. Write the partial, __threadfence(), then take the "
                               "ticket."});
    }
    std::istringstream text(text_of_ptx);
    std::set<std::string> said;
    for (std::string line; std::getline(text, line);) {
        std::string what, rule;
        if (forbids(rung, "atomics") && std::regex_search(line, atomic)) rule = "atomics", what = "an atomic instruction";
        else if (forbids(rung, "libraries") && std::regex_search(line, redux))
            rule = "libraries", what = "a warp reduction instruction (redux.sync, from __reduce_*_sync)";
        else if (forbids(rung, "libraries") && std::regex_search(line, library))
            rule = "libraries", what = "a function of CUB or Thrust";
        if (rule.empty() || !said.insert(rule + what).second) continue;
        out.push_back({where, rule, "the compiled kernel holds " + what + ", which rung " + rung.id + " may not use"});
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

// A line marker of a preprocessed text: `# LINE "FILE" FLAGS`.
const std::regex& line_marker()
{
    static const std::regex marker(R"(^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)\"(.*)$)");
    return marker;
}

// Whether `file`, as a line marker names it, is the submitted file (or the CPU backend's copy of it).
bool is_student(const CompiledRung& compiled, const std::string& file)
{
    return file == compiled.student_file ||
           std::count(compiled.also_student.begin(), compiled.also_student.end(), file) > 0;
}

// The file's own lines of one preprocessed text (after every macro), one row per line of the file.
std::string own_lines(const std::string& text, const CompiledRung& compiled)
{
    std::vector<std::string> lines;
    std::string file;
    long line = 0;
    std::istringstream in(text);
    for (std::string row; std::getline(in, row);) {
        std::smatch m;
        if (!row.empty() && row[0] == '#' && std::regex_match(row, m, line_marker())) {
            file = unescape(m[2].str());
            line = std::stol(m[1].str());
            continue;
        }
        if (is_student(compiled, file)) {
            if (lines.size() < static_cast<std::size_t>(line)) lines.resize(static_cast<std::size_t>(line));
            if (line >= 1) lines[static_cast<std::size_t>(line - 1)] += row + " ";
        }
        ++line;
    }
    std::string own;
    for (const auto& l : lines) own += l + "\n";
    return own;
}

// The arguments of the call whose '(' ends just before `at`, each trimmed, split at the commas of its
// own level (not those inside parentheses, brackets or braces of an argument).
std::vector<std::string> call_arguments(const std::string& code, std::size_t at)
{
    std::vector<std::string> args;
    std::string current;
    int depth = 0;
    const auto trim = [](std::string s) {
        s.erase(0, s.find_first_not_of(" \t\n"));
        s.erase(s.find_last_not_of(" \t\n") + 1);
        return s;
    };
    for (std::size_t i = at; i < code.size(); ++i) {
        const char c = code[i];
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if ((c == ')' || c == ']' || c == '}') && depth-- == 0) break;
        else if (c == ',' && depth == 0) {
            args.push_back(trim(current));
            current.clear();
            continue;
        }
        current += c;
    }
    if (!trim(current).empty() || !args.empty()) args.push_back(trim(current));
    return args;
}

}  // namespace

const std::vector<std::string>& known_forbids()
{
    static const std::vector<std::string> names{"libraries", "atomics"};
    return names;
}

namespace {

// check_preprocessed, given the file's own lines of `text` (own_lines), which check_integrity also reads.
// runtime_functions: the CUDA runtime's functions the objects import (by name, as the file's lines
// would spell them), which the file's own lines may only call, never name otherwise (a pointer to
// cudaMemcpy, called later, is a call no pattern of calls sees).
std::vector<Finding> check_preprocessed(const lab::RungInfo& rung, const std::string& text, const std::string& own,
                                        const CompiledRung& compiled, const std::set<std::string>& runtime_functions)
{
    std::vector<Finding> out;
    const auto is_student = [&](const std::string& file) { return grading::is_student(compiled, file); };
    // The headers the file's own lines brought in.
    static const std::regex forbidden_header(R"((^|/)(cub|thrust)/|(^|/)cooperative_groups/(reduce|scan)\.h$)");
    std::string file, top;  // top: the header the file's own #include named, while inside it
    bool top_said = false;
    long line = 0, last_student_line = 0;
    std::vector<std::string> pending;  // forbidden headers entered since the file's last line
    // Where an #include of the file's own may lead: the kit's public headers, the compiler's system
    // headers (flag 3), CUDA's (the folder of the cuda_runtime.h nvcc brings in). Anything else (the
    // kit's build tree, with its rewritten copies of the references, the kit's tests, another file
    // on the machine) is refused, however the #include named it (a macro, a relative path).
    std::vector<fs::path> allowed;  // canonical: the kit's public headers, then CUDA's once seen
    std::vector<std::pair<long, std::string>> refused_includes;
    const auto allow = [&](const fs::path& root) {
        std::error_code error;
        const fs::path real = fs::weakly_canonical(root, error);
        if (!error && std::find(allowed.begin(), allowed.end(), real) == allowed.end()) allowed.push_back(real);
    };
    for (const std::string& root : compiled.include_roots) allow(root);
    const auto may_include = [&](const std::string& path, const std::string& flags) {
        if (flags.find('3') != std::string::npos) return true;
        std::error_code error;
        const fs::path real = fs::weakly_canonical(path, error);
        if (error) return false;
        return std::any_of(allowed.begin(), allowed.end(), [&](const fs::path& root) {
            return std::mismatch(root.begin(), root.end(), real.begin(), real.end()).first == root.end();
        });
    };
    const auto say_headers = [&](long at) {
        for (const std::string& header : pending)
            out.push_back({compiled.shown_as + ":" + std::to_string(at), "libraries",
                           "includes " + header + ", which rung " + rung.id + " may not use"});
        pending.clear();
    };
    std::istringstream in(text);
    for (std::string row; std::getline(in, row);) {
        std::smatch m;
        if (!row.empty() && row[0] == '#' && std::regex_match(row, m, line_marker())) {
            const std::string from = file;
            const long from_line = line;  // in the file that holds the #include: the directive's line
            file = unescape(m[2].str());
            line = std::stol(m[1].str());
            const std::string flags = m[3].str();
            if (flags.find('1') != std::string::npos && is_student(from) && !is_student(file)) {
                top = file, top_said = false;
                if (!may_include(file, flags)) refused_includes.emplace_back(from_line, file);
            }
            if (file.size() >= 15 && (file.compare(file.size() - 15, 15, "/cuda_runtime.h") == 0))
                allow(fs::path(file).parent_path());
            // One finding per #include of the file's own, naming what it brought in.
            if (forbids(rung, "libraries") && !top_said && std::regex_search(file, forbidden_header)) {
                pending.push_back(top == file || top.empty() ? file : top + " (which brings in " + file + ")");
                top_said = true;
            }
            // Back in the file after an #include (flag 2): the directive was the line before.
            if (is_student(file) && flags.find('2') != std::string::npos) say_headers(line - 1);
            continue;
        }
        if (is_student(file)) last_student_line = line;
        ++line;
    }
    say_headers(last_student_line);
    for (const auto& [at, path] : refused_includes)
        out.push_back({compiled.shown_as + ":" + std::to_string(at), "source",
                       "includes " + path + ": a kernel file includes the kit's headers (lab/...), the C++ library's and "
                       "CUDA's, nothing else"});
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
    // The CUDA runtime, call by call: the file's own lines call only what the rung's reference calls
    // and the device queries; a copy only from device to device. (The kit's glue, compiled into the
    // same object, copies to the host and synchronises: the objects' symbols cannot tell whose call it is.)
    static const std::regex runtime_call(R"(\b(cuda[A-Z]\w*)\s*\()"),
        host_kind(R"(\bcudaMemcpy(HostToDevice|DeviceToHost|HostToHost|Default)\b)");
    std::set<long> calls_said;
    const std::string code = code_only(own, true);  // a name inside a string literal is no call
    for (auto it = std::sregex_iterator(code.begin(), code.end(), runtime_call); it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1].str();
        const long at_line = line_of(static_cast<std::size_t>(it->position()));
        std::string why;
        if (std::regex_match(name, device_query())) continue;
        if (std::find(compiled.runtime_calls.begin(), compiled.runtime_calls.end(), name) == compiled.runtime_calls.end()) {
            why = "calls " + name + " from the host: rung " + rung.id + "'s file calls only " +
                  (compiled.runtime_calls.empty() ? std::string("kernels") : lab::joined(compiled.runtime_calls)) +
                  " (and the device queries); the kit copies the result back and synchronises";
        } else if (name.rfind("cudaMemcpy", 0) == 0) {
            const std::vector<std::string> args = call_arguments(code, static_cast<std::size_t>(it->position() + it->length()));
            if (args.size() < 4 || args[3] != "cudaMemcpyDeviceToDevice")
                why = "calls " + name + " with a kind other than cudaMemcpyDeviceToDevice, written out: a kernel file "
                      "copies only from device to device (the kit copies the result back)";
        }
        if (why.empty() || !calls_said.insert(at_line).second) continue;
        out.push_back({compiled.shown_as + ":" + std::to_string(at_line), "host-calls", why});
    }
    static const std::regex runtime_name(R"(\b(cuda[A-Z]\w*)\b(?!\s*\())");
    for (auto it = std::sregex_iterator(code.begin(), code.end(), runtime_name); it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1].str();
        const long at_line = line_of(static_cast<std::size_t>(it->position()));
        if (!runtime_functions.count(name) || !calls_said.insert(at_line).second) continue;
        out.push_back({compiled.shown_as + ":" + std::to_string(at_line), "host-calls",
                       "names " + name + " without calling it (a pointer to a runtime function): a kernel file calls "
                       "the CUDA runtime directly, so that each call can be checked"});
    }
    for (auto it = std::sregex_iterator(code.begin(), code.end(), host_kind); it != std::sregex_iterator(); ++it) {
        const long at_line = line_of(static_cast<std::size_t>(it->position()));
        if (!calls_said.insert(at_line).second) continue;
        out.push_back({compiled.shown_as + ":" + std::to_string(at_line), "host-calls",
                       "names " + it->str() + ": a kernel file copies only from device to device"});
    }
    // The CPU backend's own names: only what its rewrite and CUDA's macros write into the file's
    // lines (threadIdx is ::lab::cpu::tls_context->..., a __shared__ array a lab::cpu::shared_array,
    // a launch lab::cpu::launch_chevrons, ...). Its controls (the thread order, the ticket check) are
    // the grader's: a file that switched the ticket check off where only the host compiler saw it got
    // full marks without a fence (hostile_switches_off_the_ticket_check).
    static const std::regex cpu_name(R"(\bcpu\b(\s*::\s*(\w+))?)");
    static const std::set<std::string> rewritten{"tls_context",  "loop_point",      "shared_array",
                                                 "dynamic_shared", "launch_chevrons", "Chevrons"};
    std::set<long> cpu_said;
    for (auto it = std::sregex_iterator(code.begin(), code.end(), cpu_name); it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[2].str();
        const long at_line = line_of(static_cast<std::size_t>(it->position()));
        if (rewritten.count(name) || !cpu_said.insert(at_line).second) continue;
        out.push_back({compiled.shown_as + ":" + std::to_string(at_line), "symbols",
                       "names lab::cpu" + (name.empty() ? std::string() : "::" + name) +
                           ", the CPU backend's own: a kernel file uses CUDA's names, which the CPU backend "
                           "implements, and leaves its controls (the thread order, the ticket check) to the grader"});
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

}  // namespace

std::vector<Finding> check_preprocessed(const lab::RungInfo& rung, const std::string& text, const CompiledRung& compiled)
{
    return check_preprocessed(rung, text, own_lines(text, compiled), compiled, {});
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
    // Each object and its baseline, read once: the runtime functions they import name what the
    // file's own lines may only call.
    std::vector<std::pair<ElfObject, ElfObject>> objects;
    std::set<std::string> runtime_functions;
    for (const auto& [object, baseline] : compiled.objects) {
        objects.emplace_back(read_elf_object(object), read_elf_object(baseline));
        for (const ElfObject* o : {&objects.back().first, &objects.back().second})
            for (const auto& s : o->symbols) {
                const std::string plain = demangle(s.name);  // the CPU backend's are C++ functions
                if (!s.defined && plain.rfind("cuda", 0) == 0) runtime_functions.insert(bare_name(plain));
            }
    }
    bool names_exit = false;
    static const std::regex exit_name(R"((\b|__builtin_)exit\b)");  // exit, std::exit, __builtin_exit
    for (const std::string& path : compiled.preprocessed) {
        const std::string text = read_text(path), own = own_lines(text, compiled);
        add(check_preprocessed(rung, text, own, compiled, runtime_functions));
        names_exit = names_exit || std::regex_search(own, exit_name);
    }
    for (const std::string& path : compiled.ptx) add(check_ptx(rung, path, compiled.shown_as));
    for (std::size_t i = 0; i < objects.size(); ++i) {
        std::vector<Finding> found;
        check_object(rung, compiled.objects[i].first, objects[i].first, compiled.objects[i].second, objects[i].second,
                     compiled.shown_as, names_exit, found);
        add(found);
    }
    return out;
}

}  // namespace lab::grading
