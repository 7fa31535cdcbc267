/*
 * source_delta.c - `STREAM delta.`p`` and `STREAM name WITH (...)`.
 */
#include "stream/stream_int.h"

silt_status stream_delta_source_new(stream_source **out, sql_session *s, arena *a,
                                    const char *location, const char *const *kv, size_t n_kv,
                                    silt_error *err)
{
    (void)out; (void)s; (void)a; (void)location; (void)kv; (void)n_kv;
    return err_set(err, SILT_UNSUPPORTED, "the Delta stream source is not supported yet");
}
