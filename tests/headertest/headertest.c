/* Compiles the public header as C99 with -pedantic -Werror. */
#include "silt.h"

int silt_headertest_c(void);
int silt_headertest_c(void) { return SILT_OK; }
