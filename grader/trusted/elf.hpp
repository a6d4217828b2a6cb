// TRUSTED SIDE. Reads what the integrity checks need from a compiled object (ELF64, little-endian,
// as gcc and nvcc write on x86-64 and aarch64 Linux): its sections' names and sizes, and its
// symbols' names, bindings and whether each is defined. The file was made from a submission, so
// every offset and count in it is checked before use; a malformed object is refused, not read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lab::grading {

struct ElfSection {
    std::string name;
    std::uint64_t size = 0;
};

struct ElfSymbol {
    enum class Binding { local, global, weak, unique, other };
    std::string name;
    Binding binding = Binding::local;
    bool defined = false;
    bool function = false;
};

struct ElfObject {
    std::vector<ElfSection> sections;
    std::vector<ElfSymbol> symbols;
};

// Throws std::runtime_error naming the file and what is wrong with it.
ElfObject read_elf_object(const std::string& path);

}  // namespace lab::grading
