// TRUSTED SIDE. The integrity checks: what a rung's build made of the submitted file, against what
// the rung allows. They read the compiler's own outputs of the build that made the runner (never a
// second compile, which the file could tell apart and behave for): its preprocessed text, the PTX,
// and the objects, each object against the same glue compiled with the reference solution.
//
// Every rung, every file (the kit's rules for a kernel file):
//   - no code before or after main: no entry in .init_array/.fini_array/.ctors/... beyond the
//     reference's (a static constructor, a dynamic initializer, __attribute__((constructor)));
//   - no `main`; nothing defined outside the rung's namespace (exNN) but instantiations of the kit's
//     and the standard library's templates: no CUDA or C library name (which would replace the
//     runtime's function for the whole runner), nothing in namespace lab, no strong definition of
//     what the kit defines weakly (a specialisation of its templates);
//   - no call from the host into the CUDA runtime or driver (cudaMemcpy...), files, processes,
//     sockets, the environment or exit;
//   - in the preprocessed text of its own lines (after every macro): the text screen's rules, and
//     no attribute that places code (constructor, init_priority, section, alias, weak, ...).
// Per rung, the registry's "forbids" (rungs.json): "libraries" (CUB, Thrust, cooperative groups'
// reduce and scan, the __reduce_*_sync warp intrinsics) and "atomics", in the text and in the PTX;
// and for a rung with "ticket_fence" (11), a fence before every ticket, in the PTX ("ticket-fence").
#pragma once

#include <string>
#include <vector>

#include "lab/registry.hpp"

namespace lab::grading {

struct Finding {
    std::string where;  // "exercises/07_coarsening.cu:12", or "exercises/07_coarsening.cu as compiled (rung_glue.cu.o)"
    std::string rule;   // "atomics", "libraries", "code-before-main", "symbols", "host-calls", "source",
                        // "ticket-fence"
    std::string what;   // what was found, and why it is not allowed
    std::string text() const { return where + ": [" + rule + "] " + what; }
};

// What the build made of one rung's file: each object with its baseline (the same glue compiled
// with the reference solution by the same compiler), the preprocessed texts and the PTX files.
struct CompiledRung {
    std::string student_file;  // the submitted file's path as the compiler saw it
    std::vector<std::string> also_student;  // other paths of it (the CPU backend's rewritten copy)
    std::string shown_as;      // "exercises/07_coarsening.cu"
    std::vector<std::pair<std::string, std::string>> objects;  // (object, baseline object)
    std::vector<std::string> preprocessed;                      // .ii files
    std::vector<std::string> ptx;
    // What the file's own #include lines may bring in, besides the compiler's system headers and
    // CUDA's: files under these folders (the kit's public headers).
    std::vector<std::string> include_roots;
    // The CUDA runtime functions the rung's reference calls from its own lines (a driver rung's
    // cudaMalloc, cudaMemcpyAsync...): the file's own lines may call these, and the device queries.
    std::vector<std::string> runtime_calls;
};

// The rule names rungs.json's "forbids" may use.
const std::vector<std::string>& known_forbids();

// Every finding; empty when the rung's build uses nothing it may not. Throws when a file the
// build should have made is missing, or a rung names a rule this grader does not know.
std::vector<Finding> check_integrity(const lab::RungInfo& rung, const CompiledRung& compiled);

// A mangled C++ name as the source spells it; the name itself when it is not one.
std::string demangle(const std::string& name);

// The kernels (demangled) of one PTX text that take a ticket with no fence between their last store
// and the ticket (the "ticket_fence" rule; exposed for the tests).
std::vector<std::string> unfenced_tickets(const std::string& ptx);

// The rules run on one preprocessed text (exposed for the tests).
std::vector<Finding> check_preprocessed(const lab::RungInfo& rung, const std::string& text, const CompiledRung& compiled);

}  // namespace lab::grading
