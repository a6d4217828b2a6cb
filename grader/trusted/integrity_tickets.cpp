// TRUSTED SIDE. The integrity checks' reading of a ticket's order in PTX (see integrity.hpp).
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "integrity.hpp"

namespace lab::grading {

// Tickets in one PTX text (a rung with "ticket_fence", rungs.json): every ticket, an atomic on a
// counter in global (or generic) memory that counts by one (atomicInc, atomicDec, or atomicAdd/
// atomicSub of the constant 1, on a 32- or 64-bit counter), must come after a fence of GPU or system
// scope that itself comes after the thread's last store to memory other blocks can read (and after
// its last ticket): write the partial, fence, then take the ticket, as the CPU backend demands at run
// time (cpu_backend/CPU_BACKEND.md, "Tickets"), so that a GPU grading and a CPU grading give one verdict.
// A ticket that is itself a release at GPU scope (atom.release.gpu, atom.acq_rel.gpu) is its own
// fence. The one may be a literal or a register last set to it by a mov: libcu++'s
// cuda::atomic_ref<unsigned, cuda::thread_scope_device>::fetch_add(1, order) is inline assembly,
// `mov.u32 %r136, 1;` then `atom.add.relaxed.gpu.u32 %r135,[%rd27],%r136;` (its modifiers in any
// order, as ptxas takes them), a ticket whose order is its memory_order's. The order is the PTX's, function by function, through calls: a helper (__noinline__) that
// takes a ticket first thing asks every caller for the fence; one that fences or stores passes that
// on to what follows the call. (PTX has no signed atomic add: rung 11's int atomic scheme, atomicAdd
// of a block's sum, is an add.u32 too, but of a register, never of the constant 1.)
namespace {

// Whether an atomic, its opcode and last operand given, counts by one on a 32- or 64-bit counter:
// inc or dec (u32), or add (u32, u64, s32, s64: PTX has no signed atomic add but takes the type)
// of a one, literal or in a register that holds one (`ones`).
bool is_ticket(const std::string& opcode, const std::string& operand, const std::map<std::string, bool>& ones)
{
    std::vector<std::string> parts;
    std::istringstream dotted(opcode);
    for (std::string part; std::getline(dotted, part, '.');) parts.push_back(part);
    bool add = false, step = false, u32 = false, wide = false;
    for (const std::string& p : parts) {
        add = add || p == "add";
        step = step || p == "inc" || p == "dec";
        u32 = u32 || p == "u32";
        wide = wide || p == "u64" || p == "s32" || p == "s64";
    }
    if (step) return u32;
    if (!add || !(u32 || wide)) return false;
    static const std::regex one(R"(^(1|-1|4294967295|0[xX][fF]{8}|18446744073709551615|0[xX][fF]{16})$)");
    return std::regex_match(operand, one) || ones.count(operand) > 0;
}

}  // namespace

std::vector<std::string> unfenced_tickets(const std::string& ptx)
{
    // An atomic's opcode (every modifier: atom.add.relaxed.gpu.u32) and its last operand; a mov of
    // a one into a register; any instruction's first register (what it sets).
    static const std::regex atomic(R"(^\s*(@!?%\w+\s+)?((atom|red)(\.\w+)+)\s[^;]*?([^,\s][^,]*?)\s*;)"),
        mov_one(R"(^\s*(@!?%\w+\s+)?mov\.[bsu](32|64)\s+(%\w+)\s*,\s*(1|-1|4294967295|0[xX][fF]{8}|18446744073709551615|0[xX][fF]{16})\s*;)"),
        sets(R"(^\s*(@!?%\w+\s+)?[a-z][\w.]*\s+(%\w+)\s*,)"), sets_many(R"(^\s*(@!?%\w+\s+)?[a-z][\w.]*\s+\{([^}]*)\})"),
        reg(R"(%\w+)"),
        fence(R"(^\s*(@!?%\w+\s+)?(membar\.(gl|sys)|fence\.(sc|acq_rel)\.(gpu|sys))\b)"),
        store(R"(^\s*(@!?%\w+\s+)?(st|atom|red|cp\.async|st\.async)((\.\w+)*)\s)"),
        unshared(R"(\.(shared|local|param|const)\b)"), releases(R"(\.(release|acq_rel)\b[^;]*?\.(gpu|sys)\b|\.(gpu|sys)\b[^;]*?\.(release|acq_rel)\b)"),
        header(R"(^\s*(\.visible\s+|\.weak\s+|\.extern\s+)?\.(entry|func)\s+(\([^)]*\)\s*)?([\w$.]+))"),
        call(R"(^\s*(@!?%\w+\s+)?call(\.uni)?\s+(\([^)]*\)\s*,\s*)?([\w$.]+))"), call_start(R"(^\s*(@!?%\w+\s+)?call\b)");
    // One function's events, in order; then each function's effect as seen from a caller.
    enum class Event { fence, store, ticket, released_ticket, call };
    struct Step { Event event; std::string callee; };
    struct Function { bool entry = false; std::vector<Step> steps; };
    std::map<std::string, Function> functions;
    std::vector<std::string> order;
    {
        std::istringstream text(ptx);
        Function* current = nullptr;
        std::map<std::string, bool> ones;  // the current function's registers that hold a one now
        for (std::string line; std::getline(text, line);) {
            std::smatch m;
            // A call is one statement over several lines: `call.uni (retval0),`, the callee, its arguments.
            if (line.find(';') == std::string::npos && std::regex_search(line, call_start))
                for (std::string more; line.find(';') == std::string::npos && std::getline(text, more);) line += " " + more;
            if (std::regex_search(line, m, header)) {
                const std::string name = m[4].str();
                if (!functions.count(name)) order.push_back(name);
                current = &functions[name];
                current->steps.clear();  // a prototype, then the definition: the definition counts
                current->entry = m[2].str() == "entry";
                ones.clear();
                continue;
            }
            if (!current) continue;
            if (std::regex_search(line, m, call)) current->steps.push_back({Event::call, m[4].str()});
            else if (std::regex_search(line, fence)) current->steps.push_back({Event::fence, ""});
            else if (std::regex_search(line, m, atomic) && is_ticket(m[2].str(), m[5].str(), ones) &&
                     !std::regex_search(m[2].str(), unshared))
                current->steps.push_back({std::regex_search(m[2].str(), releases) ? Event::released_ticket : Event::ticket, ""});
            else if (std::regex_search(line, m, store) && !std::regex_search(m[3].str(), unshared))
                current->steps.push_back({Event::store, ""});
            // What the line sets: a one moved into a register, or anything else into one.
            if (std::regex_search(line, m, mov_one)) ones[m[3].str()] = true;
            else if (std::regex_search(line, m, sets)) ones.erase(m[2].str());
            else if (std::regex_search(line, m, sets_many)) {  // a vector's registers: mov.b64 {%r1, %r2}, %rd1;
                const std::string regs = m[2].str();
                for (std::sregex_iterator r(regs.begin(), regs.end(), reg), end; r != end; ++r) ones.erase(r->str());
            }
        }
    }
    // The state before a step: fenced since the last store and ticket, not, or (inside a function
    // that has done neither yet) whatever its caller's was.
    enum class State { fenced, unfenced, callers };
    struct Effect { bool asks_fence = false; State after = State::callers; };
    std::map<std::string, Effect> effects;
    std::vector<std::string> found;
    const auto walk = [&](const Function& f, bool report) {
        State state = f.entry ? State::unfenced : State::callers;
        Effect effect;
        const auto take = [&](bool own_fence) {
            if (own_fence) state = State::fenced;
            if (state == State::unfenced && report) found.push_back("");
            if (state == State::callers) effect.asks_fence = true;
            state = State::unfenced;
        };
        for (const Step& s : f.steps) {
            switch (s.event) {
            case Event::fence: state = State::fenced; break;
            case Event::store: state = State::unfenced; break;
            case Event::ticket: take(false); break;
            case Event::released_ticket: take(true); break;
            case Event::call: {
                const auto known = effects.find(s.callee);
                if (known == effects.end()) break;  // no body in this PTX: takes no ticket of the file's
                if (known->second.asks_fence) take(false);
                if (known->second.after != State::callers) state = known->second.after;
                break;
            }
            }
        }
        effect.after = state;
        return effect;
    };
    // Each function's effect, until nothing changes (a helper may come after its caller).
    for (std::size_t round = 0; round <= order.size(); ++round) {
        bool changed = false;
        for (const std::string& name : order) {
            const Effect e = walk(functions[name], false);
            Effect& old = effects[name];
            if (old.asks_fence != e.asks_fence || old.after != e.after) old = e, changed = true;
        }
        if (!changed) break;
    }
    for (const std::string& name : order)
        if (functions[name].entry) {
            const std::size_t before = found.size();
            walk(functions[name], true);
            if (found.size() > before) found.resize(before), found.push_back(demangle(name));
        }
    return found;
}

}  // namespace lab::grading
