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

/* eventTime, as Spark's map (keys sorted): the rows' avg, max, min, then the watermark. */
static silt_status event_time(const stream_progress *p, buf *out, silt_error *err)
{
    silt_status rc = buf_append_str(out, ",\"eventTime\":{", err);
    if (rc == SILT_OK && p->event_rows) {
        rc = buf_append_str(out, "\"avg\":", err);
        if (rc == SILT_OK)
            rc = iso_time(p->evt_avg_ms, out, err);
        if (rc == SILT_OK)
            rc = buf_append_str(out, ",\"max\":", err);
        if (rc == SILT_OK)
            rc = iso_time(p->evt_max_ms, out, err);
        if (rc == SILT_OK)
            rc = buf_append_str(out, ",\"min\":", err);
        if (rc == SILT_OK)
            rc = iso_time(p->evt_min_ms, out, err);
        if (rc == SILT_OK)
            rc = buf_append_char(out, ',', err);
    }
    if (rc == SILT_OK)
        rc = buf_append_str(out, "\"watermark\":", err);
    if (rc == SILT_OK)
        rc = iso_time(p->watermark_ms, out, err);
    return rc == SILT_OK ? buf_append_char(out, '}', err) : rc;
}

/*
 * Spark's StreamingQueryProgress.jsonValue, field for field in its order,
 * with the fields silt has: durationMs without queryPlanning (silt plans
 * the batch's statement as part of addBatch), stateOperators with the
 * state's row counts only, no observedMetrics.
 */
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
        rc = buf_printf(out, err, ",\"batchId\":%lld,\"batchDuration\":%lld,\"numInputRows\":%lld,"
                        "\"inputRowsPerSecond\":%.1f,\"processedRowsPerSecond\":%.1f,"
                        "\"durationMs\":{\"addBatch\":%lld,\"commitOffsets\":%lld,"
                        "\"getBatch\":%lld,\"latestOffset\":%lld,\"triggerExecution\":%lld,"
                        "\"walCommit\":%lld}",
                        (long long)p->batch_id, (long long)p->duration_ms,
                        (long long)p->num_input_rows, p->input_rows_per_second,
                        p->processed_rows_per_second, (long long)p->run_ms,
                        (long long)p->commit_ms, (long long)p->get_batch_ms,
                        (long long)p->plan_ms, (long long)p->duration_ms, (long long)p->wal_ms);
    if (rc == SILT_OK && p->has_event_time)
        rc = event_time(p, out, err);
    if (rc == SILT_OK && p->has_state)
        rc = buf_printf(out, err, ",\"stateOperators\":[{\"operatorName\":\"stateStoreSave\","
                        "\"numRowsTotal\":%lld,\"numRowsUpdated\":%lld,\"numRowsRemoved\":%lld}]",
                        (long long)p->state_rows, (long long)p->state_updated,
                        (long long)p->state_removed);
    else if (rc == SILT_OK)
        rc = buf_append_str(out, ",\"stateOperators\":[]", err);
    if (rc == SILT_OK)
        rc = buf_printf(out, err, ",\"sources\":[{"
                        "\"description\":%s,\"startOffset\":%s,\"endOffset\":%s,"
                        "\"latestOffset\":%s,\"numInputRows\":%lld,\"inputRowsPerSecond\":%.1f,"
                        "\"processedRowsPerSecond\":%.1f}],\"sink\":{\"description\":%s,"
                        "\"numOutputRows\":%lld}}",
                        buf_cstr(&src), p->start_offset, p->end_offset,
                        p->latest_offset != NULL ? p->latest_offset : "null",
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
