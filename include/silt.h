/*
 * silt.h - the public C API of silt, an embedded Delta Lake engine.
 *
 * Include this header only; it includes the per-noun headers in silt/.
 */
#ifndef SILT_H
#define SILT_H

#include "silt/common.h"
#include "silt/arrow.h"
#include "silt/table.h"
#include "silt/parquet.h"
#include "silt/output.h"
#include "silt/sql.h"
#include "silt/write.h"
#include "silt/stmt.h"
#include "silt/stream.h"

#endif
