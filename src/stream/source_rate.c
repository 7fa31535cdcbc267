/*
 * source_rate.c - `STREAM rate(rowsPerSecond => n, ...)`.
 */
#include "stream/stream_int.h"

silt_status stream_rate_source_new(stream_source **out, sql_session *s, arena *a,
                                   const char *const *kv, size_t n_kv, silt_error *err)
{
    (void)out; (void)s; (void)a; (void)kv; (void)n_kv;
    return err_set(err, SILT_UNSUPPORTED, "the rate stream source is not supported yet");
}
