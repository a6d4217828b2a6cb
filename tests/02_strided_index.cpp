// Rung 02_strided_index: every case of the catalogue, each block's result checked on its own.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex02);
