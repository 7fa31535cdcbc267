/* Unit tests of util/mem: mem_eq against memcmp at every length and difference position. */
#include <string.h>

#include "test.h"
#include "util/mem.h"

void test_util_mem__eq_matches_memcmp(void)
{
    unsigned char a[80], b[80];
    size_t len, pos, shift;
    for (shift = 0; shift < 3; shift++) /* unaligned starts too */
        for (len = 0; len <= 70; len++)
            for (pos = 0; pos <= len; pos++) {
                size_t idx;
                for (idx = 0; idx < sizeof(a); idx++)
                    a[idx] = b[idx] = (unsigned char)(idx * 7 + 1);
                if (pos < len)
                    b[shift + pos] ^= 0x80; /* a difference at pos; pos == len: none */
                check_int(memcmp(a + shift, b + shift, len) == 0,
                          mem_eq(a + shift, b + shift, len));
            }
}

void test_util_mem__eq_ignores_bytes_outside(void)
{
    /* bytes past the length differ: the overlapping loads must stay inside it */
    const char *x = "Seattle!", *y = "Seattle?";
    check(mem_eq(x, y, 7));
    check(!mem_eq(x, y, 8));
    check(mem_eq("", "z", 0));
    check(mem_eq("2022-01-31 05:49:39X", "2022-01-31 05:49:39Y", 19));
    check(!mem_eq("2022-01-31 05:49:39", "2022-01-31 05:49:38", 19));
}
