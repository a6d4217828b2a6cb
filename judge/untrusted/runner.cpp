// UNTRUSTED SIDE of the grader's trust line: this program is linked with one rung's submitted
// kernel, so anything in it may have been changed by the submission. It decides nothing: it runs
// the jobs the grader asks for and writes raw output buffers (judge/protocol.hpp says the format);
// the judge's checker (judge/checker.cpp) reads them with sizes it knows in advance and checks
// them itself.
// Everything here that shapes what a mistake looks like (canaries, guards, poison) comes from the
// request, and the code that lays the buffers out has internal linkage, out of reach of a
// specialisation or an overload a submission might declare.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "lab/cases.hpp"
#include "lab/cpu/memory_layout.hpp"
#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/device_input.hpp"
#include "lab/error.hpp"
#include "lab/inputs.hpp"
#include "lab/full_reduction.hpp"
#include "lab/plan.hpp"
#include "lab/registry.hpp"
#include "lab/rung.hpp"
#include "lab/text.hpp"
#include "lab/speed.hpp"
#include "protocol.hpp"

namespace {

using namespace lab::judge;

void append_line(const std::string& path, const std::string& line)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    const std::string text = line + "\n";
    [[maybe_unused]] const auto written = ::write(fd, text.data(), text.size());
    ::close(fd);
}

void write_file(const std::string& path, const void* data, std::size_t bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

template <typename T>
T from_bits(std::uint32_t bits)
{
    T value;
    static_assert(sizeof(T) == sizeof bits);
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// Checked CUDA calls that report instead of throwing through code the submission might own.
bool ok(cudaError_t code, std::string& error, const char* what)
{
    if (code == cudaSuccess) return true;
    if (error.empty()) error = std::string(what) + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code);
    return false;
}

// Copies `host` to `device` (nothing when it is empty); false, with `error` set, when CUDA fails.
template <typename T>
bool copy_to_device(T* device, const std::vector<T>& host, std::string& error)
{
    return host.empty() || ok(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), error, "cudaMemcpy");
}

// Large plain uniform int inputs (lab::drawn_on_device) are drawn on the device: the same values as
// make_input's, without making them on the host and copying them over (8 GiB for every 2^31 + 5
// element case). On an H100, making the inputs and copying them were 32 s of a complete grading's
// 41 s of runners.

// Draws the case's input at `device`; false, with `error` set, when CUDA fails.
template <typename T>
bool draw_input(const lab::Case& c, T* device, std::string& error)
{
    if constexpr (std::is_same_v<T, int>) {
        try {
            if (!lab::draw_on_device(c, device)) throw std::logic_error("not a plain uniform int input");
        } catch (const std::exception& e) {
            if (error.empty()) error = std::string("drawing the input on the device: ") + e.what();
            return false;
        }
        return ok(cudaGetLastError(), error, "drawing the input on the device");
    } else {
        (void)c, (void)device;
        if (error.empty()) error = "drawing the input on the device: not an int input";
        return false;
    }
}

// Device memory kept from one job to the next: a job allocates only where its buffer is larger
// than every earlier one's, and frees nothing (cudaMalloc and cudaFree of every job's input and
// output were a fifth of the runners' time on an H100; cudaFree waits for the whole device). A
// job sees nothing of an earlier one: the canaries after its input and the guards around its output
// are written afresh, and a kernel reading on past them reads what an earlier input left, as it read
// what the allocator left before. A job whose input ends exactly (the sanitizer's pass, no canaries
// after it) and every job on the CPU backend, which reports an index past its allocation, get
// memory of their own exact size instead, freed after it. What is kept at the end goes with the
// process (no destructor: CUDA may be unloaded by then).
class KeptMemory {
public:
    KeptMemory() = default;
    KeptMemory(const KeptMemory&) = delete;
    KeptMemory& operator=(const KeptMemory&) = delete;
    // `bytes` of device memory at `at`; false, with `error` set, when CUDA fails.
    bool get(std::size_t bytes, bool kept, void*& at, std::string& error)
    {
        if (!kept || bytes > bytes_) drop();
        if (!pointer_ && !ok(cudaMalloc(&pointer_, bytes), error, "cudaMalloc")) {
            pointer_ = nullptr;
            return false;
        }
        if (kept) bytes_ = std::max(bytes_, bytes);
        at = pointer_;
        return true;
    }
    void drop()
    {
        if (pointer_) cudaFree(pointer_);
        pointer_ = nullptr;
        bytes_ = 0;
    }

private:
    void* pointer_ = nullptr;
    std::size_t bytes_ = 0;  // 0: not kept
};
KeptMemory kept_input, kept_output;

// Runs one job under one thread order. Returns whether its launch was stopped at a time limit (the
// CPU backend's, cudaErrorLaunchTimeout): the job's other orders would be stopped too.
template <typename T>
bool run_job(const lab::RungBinding& binding, const Job& job, const std::string& dir, std::size_t index,
             std::size_t order)
{
    const std::uint64_t refused_before = lab::cpu::refused_allocations();
    lab::Case c;
    c.name = "job" + std::to_string(index);
    c.op = lab::parse_op(job.op);
    c.input = lab::parse_input_kind(job.input);
    c.n = job.n;
    c.block = job.block;
    c.seed = job.seed;
    c.offset = job.offset;
    c.cols = job.cols;
    const std::size_t count = job.n * lab::operands_of(c.op);  // a dot product's x and y
#if defined(LAB_BACKEND_CPU)
    const bool drawn = false;  // the emulator would draw slowly
#else
    const bool drawn = lab::drawn_on_device(c);
#endif
    std::vector<T> values;
    if (!drawn) values = lab::make_input<T>(c).values;
    if (!drawn && values.size() != count)
        throw std::runtime_error("the input has " + std::to_string(values.size()) + " values, not " + std::to_string(count));

    lab::LaunchPlan plan;
    plan.grid = job.grid;
    plan.block = job.block;
    plan.shared_bytes = job.shared_bytes;
    plan.cols = job.cols;
    if (!job.variant.empty()) lab::set_scheme(plan, lab::Registry::kit().get(binding.id), job.variant);
    const std::size_t guards = job.guard_count, slots = lab::output_count(plan, c.op);
    // The device's input is canaries, the values, canaries (none in the sanitizer's pass, where the
    // allocation ends at the last value); copied there in three pieces, so that the host never
    // holds the values twice (2^31 + 5 ints are 8 GiB: twice would need 16 GiB and more of the
    // rubric's memory limit).
    const std::vector<T> before(job.offset, from_bits<T>(job.canary)), after(job.tail_count, from_bits<T>(job.canary));
    const std::size_t in_size = job.offset + count + job.tail_count;
    std::vector<T> out(guards + slots + guards, from_bits<T>(job.guard));
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(guards),
              out.begin() + static_cast<std::ptrdiff_t>(guards + slots), from_bits<T>(job.poison));

    std::string error;
    cudaError_t launch_code = cudaSuccess;
#if defined(LAB_BACKEND_CPU)
    const bool kept = false;
#else
    const bool kept = job.tail_count > 0;
#endif
    void* in_at = nullptr;
    void* out_at = nullptr;
    const bool allocated = kept_input.get(in_size * sizeof(T), kept, in_at, error) &&
                           kept_output.get(out.size() * sizeof(T), kept, out_at, error);
    T* const device_in = static_cast<T*>(in_at);
    T* const device_out = static_cast<T*>(out_at);
    if (allocated &&
        copy_to_device(device_in, before, error) &&
        (drawn ? draw_input(c, device_in + job.offset, error) : copy_to_device(device_in + job.offset, values, error)) &&
        copy_to_device(device_in + job.offset + count, after, error) &&
        ok(cudaMemcpy(device_out, out.data(), out.size() * sizeof(T), cudaMemcpyHostToDevice), error, "cudaMemcpy")) {
        // The kernel gets the input on the device only: no host copy is left to compute the answer from.
        std::vector<T>().swap(values);
        try {
            binding.launch(c.op, lab::dtype_of<T>(), plan, device_in + job.offset, device_out + guards, job.n);
            launch_code = cudaDeviceSynchronize();
            ok(launch_code, error, "the kernel");
        } catch (const lab::CudaError& e) {
            launch_code = e.code();
            error = e.what();
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (error.empty())
            ok(cudaMemcpy(out.data(), device_out, out.size() * sizeof(T), cudaMemcpyDeviceToHost), error,
               "copying the output back");
    }
#if defined(LAB_BACKEND_CPU)
    // The CPU backend says where it went wrong (a barrier some threads never reach, an index out of
    // bounds, with the file and line), which the CUDA error's name alone does not.
    if (!error.empty() && *lab::cpu::last_error_detail()) error += std::string("\n") + lab::cpu::last_error_detail();
#endif
    if (!kept || !error.empty()) kept_input.drop(), kept_output.drop();
    // Said before the case's result, whatever it is (protocol.hpp).
    if (const std::uint64_t refused = lab::cpu::refused_allocations() - refused_before; refused > 0) {
        const std::string text = std::to_string(refused) + " cudaMalloc call(s) refused for want of memory\n";
        write_file(refused_file(dir, index, order), text.data(), text.size());
    }
    if (!error.empty()) {
        if (error.size() > kErrorBytes) error.resize(kErrorBytes);
        write_file(error_file(dir, index, order), error.data(), error.size());
        // A sticky error outlives the call that reported it: a fresh process runs the next job.
        if (cudaDeviceSynchronize() != cudaSuccess) {
            append_line(dir + "/progress", "end " + std::to_string(index));
            std::fflush(nullptr);
            std::_Exit(kStickyError);
        }
        return launch_code == cudaErrorLaunchTimeout;
    }
    write_file(output_file(dir, index, order), out.data(), out.size() * sizeof(T));
    return false;
}

// Times `launch` on the GPU as lab::time_interleaved times the baseline: the start event, the work
// and the stop event enqueued behind the gate (lab::LaunchGate), so the GPU's time counts and not how
// quickly this thread wakes up. Returns milliseconds.
template <typename Launch>
float timed_launch(lab::LaunchGate& gate, cudaEvent_t start, cudaEvent_t stop, Launch launch)
{
    cudaDeviceSynchronize();
    gate.hold();
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    gate.release();
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    return ms;
}

// With wait_for_go (protocol.hpp): says it is ready and waits for the grader's go. Everything the
// launches need is made before: the grader times another rung while this runner waits.
void wait_for_go(const SpeedJob& job, const std::string& dir)
{
    if (!job.wait_for_go) return;
    cudaDeviceSynchronize();
    append_line(speed_ready_file(dir), "ready");
    while (::access(speed_go_file(dir).c_str(), F_OK) != 0) ::usleep(200);
}

// The speed job (protocol.hpp): every launch timed and its answer written down, nothing judged. A
// full reduction's answer is a line of speed.out; a row kernel's timed launch's, its whole output in a file.
int run_speed(const lab::RungBinding& binding, const SpeedJob& job, const std::string& dir)
{
    const lab::RungInfo& rung = lab::Registry::kit().get(binding.id);
    const lab::DeviceStatus& device = lab::device_status();
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    lab::LaunchGate gate;
    std::ostringstream lines;
    if (job.op.empty()) {
        lab::SpeedInputs inputs(job.n, job.seed, false);  // the grader checks the answers, with its own sums
        const lab::FullReduction mine(binding, rung, lab::Op::sum, lab::Dtype::f32, job.n, job.block, device.shape, job.scheme);
        wait_for_go(job, dir);
        for (int s = 0; s < job.warmup + job.samples; ++s) {
            const float* in = inputs.next(s % 2);
            const float ms = timed_launch(gate, start, stop, [&] { mine.run(in); });
            float got = 0;
            cudaMemcpy(&got, mine.result(), sizeof got, cudaMemcpyDeviceToHost);
            std::uint32_t got_bits;
            std::memcpy(&got_bits, &got, sizeof got_bits);
            lines << ms << ' ' << got_bits << '\n';
        }
    } else {
        const lab::Op op = lab::parse_op(job.op);
        lab::RowSpeedInputs inputs(op, job.n / job.cols, job.cols, job.seed);
        // A row rung with schemes (13) runs the speed plan's; its host object is kept between the launches.
        lab::LaunchPlan plan = lab::plan_launch(rung, job.n, job.block, device.shape, 0, job.scheme, job.cols);
        plan.reuse = true;
        lab::DeviceBuffer<float> out(lab::output_count(plan, op));
        std::vector<float> got(out.size());  // one host buffer for every launch's output, its pages mapped once
        const lab::L2Flush flush(device.l2_bytes, device.shape);
        wait_for_go(job, dir);
        for (int s = 0; s < job.warmup + job.samples; ++s) {
            const float* in = inputs.next(s % 2);
            flush();
            const float ms = timed_launch(gate, start, stop, [&] { binding.launch(op, lab::Dtype::f32, plan, in, out.data(), job.n); });
            lines << ms << '\n';
            if (s < job.warmup) continue;
            cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost);
            write_file(speed_output_file(dir, s), got.data(), got.size() * sizeof(float));
            append_line(speed_progress_file(dir), std::to_string(s));  // written whole: the grader may check it
        }
    }
    const std::string text = lines.str();
    write_file(dir + "/speed.out", text.data(), text.size());
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::cerr << "usage: " << argv[0] << " REQUEST OUTDIR FIRST|speed (run by the grader, lab-grade)\n";
        return 2;
    }
#if defined(LAB_BACKEND_CPU)
    lab::cpu::echo_errors(false);
#endif
    // A speed runner loads every kernel as its CUDA context starts, ahead of its turn, rather than at
    // its first launch (set before any CUDA call; the CPU backend ignores it).
    const bool speed = std::string(argv[3]) == "speed";
    if (speed) ::setenv("CUDA_MODULE_LOADING", "EAGER", 1);
#if !defined(LAB_BACKEND_CPU)
    // A runner waits for the GPU asleep rather than spinning a core: CUDA spins by default
    // (fewer contexts in the process than cores), and a class's gradings share each GPU, so a
    // dozen runners and sanitizer passes at once each spun a core while the others' kernels had
    // their turn, cores the builds beside them needed. Nothing is timed here; a speed runner, which
    // is timed, waits as before. (Set before any CUDA call; a failure leaves the default.)
    if (!speed) (void)cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
#endif
    try {
        const Request request = parse_request(lab::read_file(argv[1]));
        const std::string dir = argv[2];
        const lab::RungBinding& binding = lab::the_bound_rung();
        if (binding.id != request.rung) {
            std::cerr << "runner built for " << binding.id << ", asked to run " << request.rung << '\n';
            return 2;
        }
        if (speed) return run_speed(binding, request.speed, dir);
        const std::size_t first = std::stoul(argv[3]);
        const std::vector<std::string> orders = request.orders.empty() ? std::vector<std::string>{""} : request.orders;
        for (std::size_t i = first; i < request.jobs.size(); ++i) {
            append_line(dir + "/progress", "start " + std::to_string(i));
            const Job& job = request.jobs[i];
            // After a launch stopped at the time limit, the job's other orders are not run (each would
            // take the limit again); each gets an error that says so, and the judge counts the job
            // as one stopped at the time limit (lab::exit_status::kHangsBeforeStopping).
            std::string stopped_under;
            for (std::size_t o = 0; o < orders.size(); ++o) {
                if (!stopped_under.empty()) {
                    const std::string text = "not run: under thread order " + stopped_under + " the launch was stopped at "
                                             "the time limit (" + kLaunchTimeoutName + "), and here it would most likely be too";
                    write_file(error_file(dir, i, o), text.data(), text.size());
                    continue;
                }
                if (!orders[o].empty()) lab::use_thread_order(orders[o]);
                const bool stopped = lab::dtype_of(lab::parse_input_kind(job.input)) == lab::Dtype::i32
                                         ? run_job<int>(binding, job, dir, i, o)
                                         : run_job<float>(binding, job, dir, i, o);
                if (stopped) stopped_under = orders[o].empty() ? "(the GPU's own)" : orders[o];
            }
            append_line(dir + "/progress", "end " + std::to_string(i));
        }
    } catch (const std::exception& e) {
        std::cerr << "runner: " << e.what() << '\n';
        return 2;
    }
    return 0;
}
