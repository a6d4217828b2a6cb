// Kit tool (lab-bench): the benchmark's reports. See bench.hpp.
#include "bench.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

namespace lab_bench {

std::string format(const char* pattern, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

// The sweep as a table: a line per kernel, a column per shape, % of the ceiling over as many bytes.
std::string sweep_markdown(const std::vector<Row>& sweep)
{
    std::vector<std::string> kernels, shapes;
    for (const auto& r : sweep) {
        if (std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end()) kernels.push_back(r.kernel);
        if (std::find(shapes.begin(), shapes.end(), r.size) == shapes.end()) shapes.push_back(r.size);
    }
    if (sweep.empty()) return "";
    std::ostringstream md;
    md << "\nThe row kernels over matrices of 2^24 floats from one row to 65536 (rows x cols), % of the ceiling over as "
          "many bytes; each row rung's reference (rung 12: a block a row, one thread per 16 floats of the row, 32 to 1024; "
          "rung 13: the scheme its own plan picks for the shape) beside the same kernel written on cub::BlockReduce (a "
          "block of 256 a row, every pass read from memory; authoring/cub_rows.cu):\n\n| kernel |";
    for (const auto& s : shapes) md << ' ' << s << " |";
    md << "\n|---|";
    for (std::size_t i = 0; i < shapes.size(); ++i) md << "---:|";
    md << '\n';
    for (const auto& k : kernels) {
        md << "| " << k << " |";
        for (const auto& s : shapes) {
            const Row* r = find(sweep, k, s);
            md << ' ' << (r ? format("%.0f%%", 100 * r->gbps / r->ceiling) : std::string("-")) << " |";
        }
        md << '\n';
    }
    return md.str();
}

void write_csv(const std::string& path, const std::vector<Row>& rows, const lab::DeviceStatus& device)
{
    std::ofstream csv(path);
    csv << "gpu,kernel,size,dtype,n,bytes,median_ms,min_ms,gbps,pct_ceiling,launches,block,ceiling_gbps\n";
    for (const auto& r : rows)
        csv << '"' << device.name << "\"," << r.kernel << ",\"" << r.size << "\"," << lab::name_of(r.dtype) << ','
            << r.n << ',' << static_cast<unsigned long long>(r.bytes + 0.5) << ',' << r.ms << ',' << r.min_ms << ',' << r.gbps << ','
            << 100 * r.gbps / r.ceiling << ',' << r.launches << ',' << r.block << ',' << r.ceiling << '\n';
}

const Row* find(const std::vector<Row>& rows, const std::string& kernel, const std::string& size)
{
    for (const auto& r : rows)
        if (r.kernel == kernel && r.size == size) return &r;
    return nullptr;
}

// The report: bandwidth of every kernel at every size, then the details the README quotes.
std::string markdown(const std::vector<Row>& rows, const std::vector<Size>& sizes, const lab::DeviceStatus& device,
                     const lab::Ceiling& ceiling)
{
    std::ostringstream md;
    md << "Measured on " << device.name << " (" << device.shape.multiprocessors << " multiprocessors, "
       << device.l2_bytes / (1 << 20) << " MiB L2). Each figure is the median of " << kManyRuns << " runs up to 2^"
       << kManyRunsUpToPower << " elements and of " << kRuns << " above, timed with CUDA events, taken "
       << "in turn with the other kernels, with L2 flushed by reading before each run; a full reduction to one value (every "
       << "launch it takes). In-run ceiling: a read-only streaming kernel reached " << format("%.0f", ceiling.read_gbps)
       << " GB/s and a device-to-device copy " << format("%.0f", ceiling.copy_gbps) << " GB/s (read + write).\n\n";
    std::vector<std::string> kernels;  // those that reduce an array, at every size
    for (const auto& r : rows)
        if (r.size.find('x') == std::string::npos && std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end())
            kernels.push_back(r.kernel);
    // A table with a line per kernel and a column per size; `cell` gives one entry ("-" for none).
    const auto by_size = [&](const char* first_column, const std::vector<std::string>& lines,
                             const std::function<std::string(const std::string&, const std::string&)>& cell) {
        md << "| " << first_column << " |";
        for (const auto& s : sizes) md << ' ' << s.label << " |";
        md << "\n|---|";
        for (std::size_t i = 0; i < sizes.size(); ++i) md << "---:|";
        md << '\n';
        for (const auto& k : lines) {
            md << "| " << k << " |";
            for (const auto& s : sizes) md << ' ' << cell(k, s.label) << " |";
            md << '\n';
        }
    };
    md << "GB/s by input size (floats unless marked):\n\n";
    by_size("kernel", kernels, [&](const std::string& k, const std::string& size) {
        const Row* r = find(rows, k, size);
        return r ? format(r->gbps < 10 ? "%.1f" : "%.0f", r->gbps) : std::string("-");
    });
    for (const std::string& detail : std::vector<std::string>{"2^24", "2^28", sizes.back().label}) {
        const Row* cpu = find(rows, "cpu", detail);
        const Row* first = find(rows, "01_interleaved", detail);
        if (!cpu || !first) continue;
        md << "\nAt " << detail << ":\n\n| kernel | ms | GB/s | % of ceiling | x CPU | x rung 01 |\n|---|---:|---:|---:|---:|---:|\n";
        for (const auto& k : kernels) {
            const Row* r = find(rows, k, detail);
            if (!r) continue;
            md << "| " << k << " | " << format("%.3f", r->ms) << " | " << format("%.0f", r->gbps) << " | "
               << format("%.0f%%", 100 * r->gbps / r->ceiling) << " | " << format("%.1f", cpu->ms / r->ms) << " | "
               << format("%.2f", first->ms / r->ms) << " |\n";
        }
    }
    md << "\nFastest rung against CUB (time of CUB / time of the rung; above 1 is faster than CUB):\n\n| size | fastest rung | x CUB |\n|---|---|---:|\n";
    for (const auto& s : sizes) {
        const Row* cub = find(rows, "cub", s.label);
        const Row* best = nullptr;
        for (const auto& r : rows)
            if (r.size == s.label && r.kernel != "cub" && r.kernel != "cpu" && (!best || r.ms < best->ms)) best = &r;
        if (cub && best) md << "| " << s.label << " | " << best->kernel << " | " << format("%.3f", cub->ms / best->ms) << " |\n";
    }
    // The row rung's kernels, each against the ceiling for the traffic it must make.
    bool any_rows = false;
    for (const auto& r : rows) {
        if (r.size.find('x') == std::string::npos) continue;
        if (!any_rows)
            md << "\nThe row rung's kernels over matrices of floats, one block per row (bytes each must move: a dot "
               << "product reads two matrices, against the read ceiling; softmax and layer norm read one and write one, "
               << "against the copy ceiling). Their L2 is flushed by reading, and the ceiling is measured over as many "
               << "bytes as the kernel moves, with the same flush; the last column is against the ceiling over 1 GiB "
               << "above:\n\n| kernel | matrix | block | ms | GB/s | ceiling GB/s | % of ceiling | % of the 1 GiB ceiling "
               << "|\n|---|---|---:|---:|---:|---:|---:|---:|\n";
        any_rows = true;
        const double big = r.kernel.find("/dot") != std::string::npos ? ceiling.read_gbps : ceiling.copy_gbps;
        md << "| " << r.kernel << " | " << r.size << " | " << r.block << " | " << format("%.3f", r.ms) << " | "
           << format("%.0f", r.gbps) << " | " << format("%.0f", r.ceiling) << " | "
           << format("%.0f%%", 100 * r.gbps / r.ceiling) << " | " << format("%.0f%%", 100 * r.gbps / big) << " |\n";
    }
    // The driver rungs' schemes, each against CUB at every size: the single-pass schemes' one launch
    // shows most at small sizes, where a launch's fixed cost is most of the time.
    std::vector<std::string> drivers;
    for (const auto& k : kernels)
        if (k.find('/') != std::string::npos) drivers.push_back(k);
    if (!drivers.empty()) {
        md << "\nThe driver rungs' schemes against CUB (time of CUB / time of the scheme; above 1 is faster):\n\n";
        by_size("scheme", drivers, [&](const std::string& k, const std::string& size) {
            const Row* r = find(rows, k, size);
            const Row* cub = find(rows, "cub", size);
            return r && cub ? format("%.2f", cub->ms / r->ms) : std::string("-");
        });
    }
    return md.str();
}

}  // namespace lab_bench
