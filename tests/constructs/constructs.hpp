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
};

const std::vector<Construct>& constructs();
