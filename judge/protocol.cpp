// See protocol.hpp.
#include "protocol.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "lab/json_text.hpp"

namespace lab::judge {

std::string to_json(const Request& request)
{
    nlohmann::json jobs = nlohmann::json::array();
    for (const Job& j : request.jobs)
        jobs.push_back({{"op", j.op}, {"input", j.input}, {"n", j.n}, {"seed", j.seed}, {"offset", j.offset},
                        {"grid", j.grid}, {"block", j.block}, {"shared_bytes", j.shared_bytes}, {"canary", j.canary},
                        {"guard", j.guard}, {"poison", j.poison}, {"guard_count", j.guard_count},
                        {"tail_count", j.tail_count}, {"variant", j.variant},
                        {"cols", j.cols}});
    const SpeedJob& sp = request.speed;
    return lab::json_text(nlohmann::json{{"rung", request.rung},
                          {"orders", request.orders},
                          {"jobs", jobs},
                          {"speed", {{"n", sp.n}, {"seed", sp.seed}, {"block", sp.block}, {"warmup", sp.warmup},
                                     {"samples", sp.samples}, {"scheme", sp.scheme}, {"op", sp.op}, {"cols", sp.cols},
                                     {"wait_for_go", sp.wait_for_go}}}},
                          1);
}

Request parse_request(const std::string& text)
{
    try {
        const auto doc = nlohmann::json::parse(text);
        Request r;
        r.rung = doc.at("rung").get<std::string>();
        r.orders = doc.at("orders").get<std::vector<std::string>>();
        for (const auto& j : doc.at("jobs")) {
            Job job;
            job.op = j.at("op").get<std::string>();
            job.input = j.at("input").get<std::string>();
            job.n = j.at("n").get<std::uint64_t>();
            job.seed = j.at("seed").get<std::uint64_t>();
            job.offset = j.at("offset").get<std::uint64_t>();
            job.grid = j.at("grid").get<unsigned>();
            job.block = j.at("block").get<unsigned>();
            job.shared_bytes = j.at("shared_bytes").get<std::uint64_t>();
            job.canary = j.at("canary").get<std::uint32_t>();
            job.guard = j.at("guard").get<std::uint32_t>();
            job.poison = j.at("poison").get<std::uint32_t>();
            job.guard_count = j.at("guard_count").get<std::uint64_t>();
            job.tail_count = j.at("tail_count").get<std::uint64_t>();
            job.variant = j.at("variant").get<std::string>();
            job.cols = j.at("cols").get<std::uint64_t>();
            r.jobs.push_back(job);
        }
        const auto& sp = doc.at("speed");
        r.speed.n = sp.at("n").get<std::uint64_t>();
        r.speed.seed = sp.at("seed").get<std::uint64_t>();
        r.speed.block = sp.at("block").get<unsigned>();
        r.speed.warmup = sp.at("warmup").get<int>();
        r.speed.samples = sp.at("samples").get<int>();
        r.speed.scheme = sp.at("scheme").get<std::string>();
        r.speed.op = sp.at("op").get<std::string>();
        r.speed.cols = sp.at("cols").get<std::uint64_t>();
        r.speed.wait_for_go = sp.at("wait_for_go").get<bool>();
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("malformed request: ") + e.what());
    }
}

std::string speed_output_file(const std::string& dir, int launch) { return dir + "/speed-" + std::to_string(launch) + ".out"; }

std::string speed_progress_file(const std::string& dir) { return dir + "/speed.progress"; }

std::string speed_ready_file(const std::string& dir) { return dir + "/speed.ready"; }

std::string speed_go_file(const std::string& dir) { return dir + "/speed.go"; }

namespace {

// Job `job`'s file under thread order `order`, of one kind (its extension: "out", "err", "refused").
std::string job_file(const std::string& dir, std::size_t job, std::size_t order, const char* kind)
{
    return dir + "/" + std::to_string(job) + "." + std::to_string(order) + "." + kind;
}

}  // namespace

std::string output_file(const std::string& dir, std::size_t job, std::size_t order) { return job_file(dir, job, order, "out"); }

std::string error_file(const std::string& dir, std::size_t job, std::size_t order) { return job_file(dir, job, order, "err"); }

std::string refused_file(const std::string& dir, std::size_t job, std::size_t order)
{
    return job_file(dir, job, order, "refused");
}

}  // namespace lab::judge
