/*
 * budget.h - a memory budget shared by threads: one per database, charged
 * by every statement of every connection.
 *
 * A budget is a limit and an atomic count of the bytes reserved under it.
 * mem_budget_reserve() never lets the count pass the limit: it either
 * reserves all the bytes asked for or none (a compare-and-swap loop), so
 * two statements racing for the last megabyte cannot both get it. The
 * peak counter remembers the most ever reserved at once, which is what
 * tests check instead of RSS timing. Changing the limit (SET memory_limit
 * in any connection) takes effect at the next reservation; bytes already
 * reserved stay until released, even above a lowered limit.
 *
 * Every call is thread-safe. The budget itself is created and freed by its
 * owner (the database handle) while no statement runs.
 */
#ifndef SILT_UTIL_BUDGET_H
#define SILT_UTIL_BUDGET_H

#include <stdint.h>

typedef struct mem_budget mem_budget;

/* A budget of limit bytes (0 = unlimited); NULL on OOM. */
mem_budget *mem_budget_new(int64_t limit);
/* NULL is fine. Whatever is still reserved is forgotten. */
void mem_budget_free(mem_budget *b);

/* Sets the limit (0 = unlimited); RESET goes back to the limit given at creation. */
void mem_budget_set_limit(mem_budget *b, int64_t limit);
void mem_budget_reset_limit(mem_budget *b);
int64_t mem_budget_limit(const mem_budget *b);

/* Reserves bytes (> 0) when they fit under the limit: 1, else 0 and nothing reserved. */
int mem_budget_reserve(mem_budget *b, int64_t bytes);
/* Gives back bytes reserved before. */
void mem_budget_release(mem_budget *b, int64_t bytes);

/* Bytes reserved now; bytes the limit still allows (INT64_MAX when unlimited, may be < 0). */
int64_t mem_budget_used(const mem_budget *b);
int64_t mem_budget_free_bytes(const mem_budget *b);
/* Most bytes ever reserved at once, since creation or mem_budget_reset_peak. */
int64_t mem_budget_peak(const mem_budget *b);
void mem_budget_reset_peak(mem_budget *b);

#endif
