// Rung 04_first_add: every case of the catalogue, each block's result checked on its own.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex04);
