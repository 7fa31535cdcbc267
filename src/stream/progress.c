/*
 * progress.c - a batch's progress as Spark's StreamingQueryProgress JSON
 * (the fields silt fills) and as the one line `silt stream` prints.
 */
#include <stdio.h>
#include <string.h>

#include "formats/text.h"
#include "stream/stream_int.h"

static silt_status iso_time(int64_t ms, buf *out, silt_error *err)
{
    char text[64];
    size_t n = text_format_timestamp_spark(ms * 1000, 'T', 3, 0, text);
    return buf_printf(out, err, "\"%.*sZ\"", (int)n, text);
}

silt_status stream_progress_json(const stream_progress *p, buf *out, silt_error *err)
{
    buf src, sink;
    silt_status rc;
    buf_init(&src, 0);
    buf_init(&sink, 0);
    rc = text_json_string(&src, p->source, strlen(p->source), err);
    if (rc == SILT_OK)
        rc = text_json_string(&sink, p->sink, strlen(p->sink), err);
    if (rc == SILT_OK)
        rc = buf_printf(out, err, "{\"id\":\"%s\",\"runId\":\"%s\",\"name\":null,\"timestamp\":",
                        p->id, p->run_id);
    if (rc == SILT_OK)
        rc = iso_time(p->timestamp_ms, out, err);
    if (rc == SILT_OK)
        rc = buf_printf(out, err, ",\"batchId\":%lld,\"numInputRows\":%lld,"
                        "\"inputRowsPerSecond\":%.1f,\"processedRowsPerSecond\":%.1f,"
                        "\"durationMs\":{\"addBatch\":%lld,\"latestOffset\":%lld,"
                        "\"triggerExecution\":%lld},\"stateOperators\":[],\"sources\":[{"
                        "\"description\":%s,\"startOffset\":%s,\"endOffset\":%s,"
                        "\"latestOffset\":%s,\"numInputRows\":%lld,\"inputRowsPerSecond\":%.1f,"
                        "\"processedRowsPerSecond\":%.1f}],\"sink\":{\"description\":%s,"
                        "\"numOutputRows\":%lld}}",
                        (long long)p->batch_id, (long long)p->num_input_rows,
                        p->input_rows_per_second, p->processed_rows_per_second,
                        (long long)p->run_ms, (long long)p->plan_ms, (long long)p->duration_ms,
                        buf_cstr(&src), p->start_offset, p->end_offset, p->end_offset,
                        (long long)p->num_input_rows, p->input_rows_per_second,
                        p->processed_rows_per_second, buf_cstr(&sink),
                        (long long)p->num_output_rows);
    buf_clear(&src);
    buf_clear(&sink);
    return rc;
}

silt_status stream_progress_line(const stream_progress *p, buf *out, silt_error *err)
{
    return buf_printf(out, err, "batch %lld: %lld input rows, %.1f rows/s input, %.1f rows/s "
                      "processed, %lld ms; %s offset %s\n", (long long)p->batch_id,
                      (long long)p->num_input_rows, p->input_rows_per_second,
                      p->processed_rows_per_second, (long long)p->duration_ms, p->source,
                      p->end_offset);
}
