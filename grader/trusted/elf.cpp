// TRUSTED SIDE. See elf.hpp.
#include "elf.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace lab::grading {

namespace {

constexpr std::uint64_t kMaxObjectBytes = std::uint64_t{512} << 20;

class Reader {
public:
    Reader(std::string path, std::string bytes) : path_(std::move(path)), bytes_(std::move(bytes)) {}

    template <typename T>
    T at(std::uint64_t offset) const
    {
        if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) fail("a field lies past its end");
        T value;
        std::memcpy(&value, bytes_.data() + offset, sizeof(T));
        return value;
    }

    // The NUL-terminated string at `offset` in the table [table, table + size).
    std::string string_at(std::uint64_t table, std::uint64_t size, std::uint64_t offset) const
    {
        if (offset >= size || table > bytes_.size() || bytes_.size() - table < size) fail("a name lies outside its table");
        const char* begin = bytes_.data() + table + offset;
        const void* end = std::memchr(begin, '\0', size - offset);
        if (!end) fail("a name is not terminated");
        return std::string(begin, static_cast<const char*>(end));
    }

    [[noreturn]] void fail(const std::string& why) const
    {
        throw std::runtime_error("the object " + path_ + " is malformed: " + why);
    }

    std::uint64_t size() const { return bytes_.size(); }

private:
    std::string path_;
    std::string bytes_;
};

struct SectionHeader {
    std::uint32_t name, type;
    std::uint64_t flags, addr, offset, size;
    std::uint32_t link, info;
    std::uint64_t align, entsize;
};
static_assert(sizeof(SectionHeader) == 64);

struct Symbol {
    std::uint32_t name;
    unsigned char info, other;
    std::uint16_t shndx;
    std::uint64_t value, size;
};
static_assert(sizeof(Symbol) == 24);

constexpr std::uint32_t kSymtab = 2;

}  // namespace

ElfObject read_elf_object(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the object " + path);
    in.seekg(0, std::ios::end);
    const auto length = static_cast<std::uint64_t>(in.tellg());
    if (length > kMaxObjectBytes) throw std::runtime_error("the object " + path + " is over 512 MiB");
    in.seekg(0);
    const Reader elf(path, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));

    if (elf.size() < 64 || elf.at<std::uint32_t>(0) != 0x464c457fu) elf.fail("not an ELF file");
    if (elf.at<unsigned char>(4) != 2 || elf.at<unsigned char>(5) != 1) elf.fail("not 64-bit little-endian");
    if (elf.at<std::uint16_t>(16) != 1) elf.fail("not a relocatable object");
    const auto shoff = elf.at<std::uint64_t>(0x28);
    if (elf.at<std::uint16_t>(0x3a) != sizeof(SectionHeader)) elf.fail("an unexpected section header size");
    std::uint64_t count = elf.at<std::uint16_t>(0x3c);
    std::uint64_t names = elf.at<std::uint16_t>(0x3e);
    // Extended numbering: more than 0xff00 sections keep their count and names' index in section 0.
    if (shoff == 0) elf.fail("no section headers");
    const SectionHeader first = elf.at<SectionHeader>(shoff);
    if (count == 0) count = first.size;
    if (names == 0xffff) names = first.link;
    if (count > elf.size() / sizeof(SectionHeader) || names >= count) elf.fail("a bad section count");
    std::vector<SectionHeader> headers;
    for (std::uint64_t i = 0; i < count; ++i) headers.push_back(elf.at<SectionHeader>(shoff + i * sizeof(SectionHeader)));

    ElfObject object;
    const SectionHeader& table = headers[names];
    for (const SectionHeader& h : headers) object.sections.push_back({elf.string_at(table.offset, table.size, h.name), h.size});
    for (const SectionHeader& h : headers) {
        if (h.type != kSymtab) continue;
        if (h.entsize != sizeof(Symbol) || h.link >= count) elf.fail("a bad symbol table");
        const SectionHeader& strings = headers[h.link];
        for (std::uint64_t at = sizeof(Symbol); at + sizeof(Symbol) <= h.size; at += sizeof(Symbol)) {
            const auto s = elf.at<Symbol>(h.offset + at);
            ElfSymbol symbol;
            symbol.name = s.name ? elf.string_at(strings.offset, strings.size, s.name) : "";
            const unsigned bind = s.info >> 4, type = s.info & 0xf;
            symbol.binding = bind == 0    ? ElfSymbol::Binding::local
                             : bind == 1  ? ElfSymbol::Binding::global
                             : bind == 2  ? ElfSymbol::Binding::weak
                             : bind == 10 ? ElfSymbol::Binding::unique
                                          : ElfSymbol::Binding::other;
            symbol.defined = s.shndx != 0;
            symbol.function = type == 2 || type == 10;  // STT_FUNC, STT_GNU_IFUNC
            if (type == 3 || type == 4) continue;        // section and file symbols
            object.symbols.push_back(std::move(symbol));
        }
    }
    return object;
}

}  // namespace lab::grading
