// TRUSTED SIDE. See intake.hpp.
#include "intake.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "lab/registry.hpp"
#include "lab/text.hpp"

namespace lab::grading {

namespace {

namespace fs = std::filesystem;
constexpr std::size_t kListed = 200;  // ignored paths listed one by one; the rest are counted

struct Collector {
    Intake intake;
    std::map<std::string, std::size_t> depth;  // rung id -> folders above exercises/ in the path taken
    std::size_t unlisted = 0;

    void ignore(const std::string& path)
    {
        if (intake.ignored.size() < kListed) intake.ignored.push_back(path);
        else ++unlisted;
    }
    void refuse(const std::string& path, const std::string& why) { intake.refused.push_back(path + ": " + why); }

    // The rung whose student file `path` is (exercises/NN_name.cu, under at most one folder), or "".
    // `folders` says how many folders come before exercises/.
    static std::string rung_of(const std::string& path, std::size_t& folders)
    {
        std::vector<std::string> parts;
        std::stringstream stream(path);
        for (std::string part; std::getline(stream, part, '/');)
            if (!part.empty() && part != ".") parts.push_back(part);
        if (parts.size() < 2 || parts.size() > 3 || parts[parts.size() - 2] != "exercises") return "";
        const std::string& name = parts.back();
        if (name.size() < 4 || name.compare(name.size() - 3, 3, ".cu") != 0) return "";
        const RungInfo* rung = Registry::kit().find(name.substr(0, name.size() - 3));
        if (!rung || rung->id + ".cu" != name) return "";
        folders = parts.size() - 2;
        return rung->id;
    }

    // exercises/hints_used.json, under at most one folder, as a rung's file is.
    static bool hints_record(const std::string& path)
    {
        std::vector<std::string> parts;
        std::stringstream stream(path);
        for (std::string part; std::getline(stream, part, '/');)
            if (!part.empty() && part != ".") parts.push_back(part);
        return parts.size() >= 2 && parts.size() <= 3 && parts[parts.size() - 2] == "exercises" && parts.back() == "hints_used.json";
    }

    static bool escapes(const std::string& path)
    {
        if (!path.empty() && path.front() == '/') return true;
        std::stringstream stream(path);
        for (std::string part; std::getline(stream, part, '/');)
            if (part == "..") return true;
        return false;
    }

    // Takes `contents` for the rung at `path`, unless a file nearer the top was taken for it.
    void take(const std::string& id, std::size_t folders, const std::string& path, std::string contents)
    {
        const auto seen = depth.find(id);
        if (seen != depth.end()) {
            if (seen->second <= folders) {
                refuse(path, "another file for rung " + id + " was taken, nearer the submission's top");
                return;
            }
            refuse("(an earlier file for " + id + ")", "replaced by " + path + ", nearer the submission's top");
        }
        depth[id] = folders;
        intake.files[id] = std::move(contents);
    }

    // A regular file at `path` (relative to the submission) of `size` bytes; `read` gives its bytes.
    template <typename Read>
    void consider(const std::string& path, std::uint64_t size, Read&& read)
    {
        std::size_t folders = 0;
        if (hints_record(path)) {
            if (size > kMaxSubmittedFileBytes) return refuse(path, "larger than " + std::to_string(kMaxSubmittedFileBytes / 1024) + " KiB");
            if (intake.hints_record) return refuse(path, "another record of hints was taken");
            intake.hints_record = read();
            return;
        }
        const std::string id = rung_of(path, folders);
        if (id.empty()) return ignore(path);
        if (size > kMaxSubmittedFileBytes)
            return refuse(path, "larger than " + std::to_string(kMaxSubmittedFileBytes / 1024) + " KiB");
        take(id, folders, path, read());
    }

    Intake finish()
    {
        if (unlisted) intake.ignored.push_back("... and " + std::to_string(unlisted) + " more");
        return std::move(intake);
    }
};

Intake from_directory(const fs::path& root)
{
    Collector c;
    std::error_code error;
    fs::recursive_directory_iterator it(root, fs::directory_options::none, error), end;
    if (error) throw std::runtime_error("cannot read the submission " + root.string() + ": " + error.message());
    for (; it != end; it.increment(error)) {
        if (error) throw std::runtime_error("cannot read the submission " + root.string() + ": " + error.message());
        const fs::path relative = it->path().lexically_relative(root);  // never through a link
        const std::string path = relative.generic_string();
        const fs::file_status status = it->symlink_status();
        if (it->path().filename() == ".git") {
            c.ignore(path + "/ (git's own files)");
            it.disable_recursion_pending();
            continue;
        }
        if (fs::is_symlink(status)) {
            std::size_t folders = 0;
            if (!Collector::rung_of(path, folders).empty()) c.refuse(path, "a symbolic link; submit the file itself");
            else c.ignore(path);
            continue;
        }
        if (fs::is_directory(status)) continue;
        if (!fs::is_regular_file(status)) {
            c.refuse(path, "not a regular file");
            continue;
        }
        c.consider(path, fs::file_size(it->path()), [&] { return lab::read_file(it->path().string()); });
    }
    return c.finish();
}

Intake from_archive(const std::string& file)
{
    archive* a = archive_read_new();
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_gnutar(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_none(a);
    if (archive_read_open_filename(a, file.c_str(), 64 * 1024) != ARCHIVE_OK) {
        const std::string why = archive_error_string(a) ? archive_error_string(a) : "unknown format";
        archive_read_free(a);
        throw std::runtime_error("cannot open the archive " + file + ": " + why);
    }
    Collector c;
    archive_entry* entry = nullptr;
    int status = ARCHIVE_OK;
    while ((status = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
        const char* raw = archive_entry_pathname(entry);
        const std::string path = raw ? raw : "";
        const auto type = archive_entry_filetype(entry);
        if (path.empty()) {
            c.refuse("(an entry without a name)", "refused");
            continue;
        }
        if (Collector::escapes(path)) {
            c.refuse(path, "an absolute path or one with \"..\": it would point outside the submission");
            continue;
        }
        if (archive_entry_symlink(entry) || archive_entry_hardlink(entry) || type == AE_IFLNK) {
            c.refuse(path, "a link; submit the file itself");
            continue;
        }
        if (type == AE_IFDIR) continue;
        if (type != AE_IFREG) {
            c.refuse(path, "not a regular file (a device, a pipe or a socket)");
            continue;
        }
        const auto size = static_cast<std::uint64_t>(archive_entry_size(entry));
        c.consider(path, size, [&] {
            std::string contents(size, '\0');
            const la_ssize_t got = archive_read_data(a, contents.data(), contents.size());
            if (got < 0 || static_cast<std::uint64_t>(got) != size)
                throw std::runtime_error("the archive " + file + " is damaged at " + path);
            return contents;
        });
    }
    const std::string why = status == ARCHIVE_EOF ? "" : (archive_error_string(a) ? archive_error_string(a) : "damaged");
    archive_read_free(a);
    if (!why.empty()) throw std::runtime_error("cannot read the archive " + file + ": " + why);
    return c.finish();
}

bool ends_with(const std::string& text, const std::string& tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

Intake take_in(const std::string& submission)
{
    std::error_code error;
    const fs::file_status status = fs::status(submission, error);
    if (error || !fs::exists(status))
        throw std::runtime_error("no submission at " + submission + ": give a directory, a git checkout, a .zip or a .tar.gz");
    if (fs::is_directory(status)) return from_directory(submission);
    if (ends_with(submission, ".zip") || ends_with(submission, ".tar.gz") || ends_with(submission, ".tgz") ||
        ends_with(submission, ".tar"))
        return from_archive(submission);
    throw std::runtime_error("cannot grade " + submission + ": give a directory, a git checkout, a .zip or a .tar.gz");
}

}  // namespace lab::grading
