// Rung 03_sequential: every case of the catalogue, each block's result checked on its own.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex03);
