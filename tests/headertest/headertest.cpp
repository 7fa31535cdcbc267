// Compiles the public header as C++.
#include "silt.h"

int silt_headertest_cpp();
int silt_headertest_cpp() { return SILT_OK; }
