// Kit tool: times every rung linked into it as a full reduction (see lab/full_reduction.hpp) and
// reports the bandwidth it reaches: bytes read (4 per element) over the median time.
//   lab-bench [--n N] [--block B] [--tsv FILE]
// Each rung's answer is checked before it is timed; a wrong answer is reported, never timed.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "lab/cases.hpp"
#include "lab/check.hpp"
#include "lab/device.hpp"
#include "lab/full_reduction.hpp"
#include "lab/inputs.hpp"
#include "lab/registry.hpp"
#include "lab/rung.hpp"
#include "lab/timing.hpp"

namespace {

struct Options {
    std::size_t n = std::size_t{1} << 26;  // 256 MiB of floats: several times any GPU's L2
    unsigned block = 256;
    std::string tsv;
};

Options parse(int argc, char** argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--n" && i + 1 < argc) options.n = std::strtoull(argv[++i], nullptr, 0);
        else if (arg == "--block" && i + 1 < argc) options.block = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 0));
        else if (arg == "--tsv" && i + 1 < argc) options.tsv = argv[++i];
        else {
            std::cerr << "usage: lab-bench [--n N] [--block B] [--tsv FILE]\n";
            std::exit(2);
        }
    }
    return options;
}

}  // namespace

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // keep what was printed if a kernel takes the process down
    const Options options = parse(argc, argv);
    const auto& device = lab::device_status();
    if (!device.usable || device.emulated) {
        std::cout << "lab-bench: no timings: "
                  << (device.usable ? "the CPU backend does not model GPU speed." : device.reason) << '\n';
        return 0;
    }
    try {
        std::ofstream tsv;
        if (!options.tsv.empty()) tsv.open(options.tsv);
        std::printf("%s: full reduction of %zu floats, block %u, median of 20\n", device.name.c_str(), options.n,
                    options.block);
        lab::Case c;
        c.name = "bench";
        c.input = lab::InputKind::floats;
        c.n = options.n;
        c.seed = 1;
        const auto input = lab::make_input<float>(c);
        lab::DeviceBuffer<float> device_in(options.n);
        device_in.upload(input.values);
        bool all_right = true;
        for (const lab::RungBinding* binding : lab::bound_rungs()) {
            const auto& rung = lab::Registry::kit().get(binding->id);
            const lab::FullReduction reduction(*binding, rung, lab::Op::sum, lab::Dtype::f32, options.n, options.block);
            reduction.run(device_in.data());
            float got = 0;
            LAB_CUDA_CHECK(cudaMemcpy(&got, reduction.result(), sizeof got, cudaMemcpyDeviceToHost));
            const auto depth = reduction.passes() * lab::addition_depth(std::size_t{rung.items_per_thread} * options.block,
                                                                        options.block);
            const std::string problem = lab::check_value(lab::Op::sum, input.values.data(),
                                                         input.values.data() + input.values.size(), got, depth);
            if (!problem.empty()) {
                std::printf("  %-20s WRONG: %s\n", rung.id.c_str(), problem.c_str());
                if (tsv) tsv << rung.id << "\twrong\t\t\n";
                all_right = false;
                continue;
            }
            const auto timing = lab::time_device([&] { reduction.run(device_in.data()); });
            const double gbps = 4.0 * static_cast<double>(options.n) / (timing.median_ms * 1e6);
            std::printf("  %-20s %8.3f ms  %7.1f GB/s  (%zu launches)\n", rung.id.c_str(), timing.median_ms, gbps,
                        reduction.passes());
            if (tsv) tsv << rung.id << "\tok\t" << gbps << '\t' << timing.median_ms << '\n';
        }
        return all_right ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "lab-bench: " << e.what() << '\n';
        return 1;
    }
}
