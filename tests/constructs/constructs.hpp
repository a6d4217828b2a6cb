// Kit test: the construct corpus's entry points (constructs.cu).
#pragma once

#include <string>
#include <vector>

struct Outcome {
    std::vector<long long> got;
    std::vector<long long> expected;
};

struct Construct {
    std::string name;
    Outcome (*run)();
    int needs_compute_capability = 0;  // a GPU older than this skips it (90: thread-block clusters)
};

const std::vector<Construct>& constructs();
