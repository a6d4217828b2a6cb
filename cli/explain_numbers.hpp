// ./lab explain's arithmetic on lab-explain's measurements (explain.cpp runs the programs and prints;
// this says what the numbers mean): each measurement's totals, the sentences of "What the numbers
// say", what changed from the previous rung, and where a student's kernel falls short of the
// reference (./lab check). Pure functions of the JSON, tested in Kit.ExplainNumbers.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lab::cli::explain_numbers {

struct Measured {
    std::string who;        // "yours", "reference 03", ...
    std::string file;       // lab-explain's JSON
    nlohmann::json data;    // lab-explain's JSON (grader/schemas/explain.schema.json)
    nlohmann::json total;   // every launch's counts added
    double grid = 0;        // blocks over every launch
};
Measured measured_from(const std::string& who, const nlohmann::json& data);

double number(const nlohmann::json& counts, const char* key);  // 0 where absent
std::string fixed(double value, int digits = 1);
std::string ratio(double part, double whole, int digits = 2);  // "-" over 0
std::string megabytes(double bytes);

// What the student's numbers say, in words, against the reference's where there is one.
std::vector<std::string> lessons(const Measured& yours, const Measured* reference, const std::string& rung_number);
// What changed from the previous rung's reference to this one's, per 1,000 elements; "" if nothing did.
std::string since_previous(const Measured& reference, const Measured& previous, const std::string& previous_number);
// Where yours falls short of the reference, a line each; `worst_line_of` names the line of the
// student's file that costs the most of a kind ("" where unknown).
enum class Kind { idle, conflicts, scattered };
std::vector<std::string> gaps(const Measured& yours, const Measured& reference,
                              const std::function<std::string(Kind)>& worst_line_of);

// Nsight Compute on a GPU (./lab explain with a GPU): `ncu --csv --page raw --print-units base`'s
// output, its rows of kernels added up by the names of harness/explain/explain_counters.json's "metrics" (a
// name -> the metrics it sums). Throws std::runtime_error where a metric's column is missing; an
// empty object where the output has no kernel rows.
nlohmann::json ncu_counters(const std::string& output, const nlohmann::json& metrics);
// One line on why ncu counted nothing, where its output says (its counters denied to this user);
// "" otherwise.
std::string ncu_refusal(const std::string& output);

}  // namespace lab::cli::explain_numbers
