// Rung 12_real_kernels: every row case of the catalogue, each row of every output checked on its own.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex12);
