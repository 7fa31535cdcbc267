/*
 * commit_info.c - the commitInfo action of a commit, as Spark writes it.
 *
 * PROTOCOL: Commit Provenance Information, In-Commit Timestamps. The field
 * order follows Spark's, so that DESCRIBE HISTORY of a silt table looks
 * like one written by Spark: timestamp, operation, operationParameters
 * (every value a JSON string: "Append", "[]", "[\"p\"]"), readVersion
 * (absent for a new table), isolationLevel (Serializable, as Delta 4.1 writes
 * it), isBlindAppend, operationMetrics
 * (numbers as strings), engineInfo, txnId. With in-commit timestamps on,
 * inCommitTimestamp comes first and equals timestamp, as the protocol asks
 * that commitInfo be the first action and carry it.
 */
#include <cjson/cJSON.h>
#include <stdio.h>

#include "delta/txn_int.h"

static cJSON *string_map(const dlog_kv *items, size_t n)
{
    cJSON *obj = cJSON_CreateObject();
    size_t idx;
    if (obj == NULL)
        return NULL;
    for (idx = 0; idx < n; idx++) {
        /* A NULL value is JSON null, as Spark writes "description":null. */
        cJSON *value = items[idx].value ? cJSON_CreateString(items[idx].value) : cJSON_CreateNull();
        if (value == NULL || !cJSON_AddItemToObject(obj, items[idx].key, value)) {
            cJSON_Delete(value);
            cJSON_Delete(obj);
            return NULL;
        }
    }
    return obj;
}

silt_status delta_txn_commit_info_json(const delta_txn *txn, int64_t ict_ms, buf *out, silt_error *err)
{
    cJSON *root = cJSON_CreateObject(), *ci = cJSON_CreateObject(), *params, *metrics;
    int64_t now = ict_ms >= 0 ? ict_ms : delta_txn_now_ms(txn);
    char *text;
    silt_status rc;

    params = string_map(txn->params, txn->n_params);
    metrics = string_map(txn->metrics, txn->n_metrics);
    if (root == NULL || ci == NULL || params == NULL || metrics == NULL) {
        cJSON_Delete(root);
        cJSON_Delete(ci);
        cJSON_Delete(params);
        cJSON_Delete(metrics);
        return err_nomem(err);
    }
    cJSON_AddItemToObject(root, "commitInfo", ci);
    if (ict_ms >= 0)
        cJSON_AddNumberToObject(ci, "inCommitTimestamp", (double)ict_ms);
    cJSON_AddNumberToObject(ci, "timestamp", (double)now);
    if (txn->user_metadata != NULL)
        cJSON_AddStringToObject(ci, "userMetadata", txn->user_metadata);
    cJSON_AddStringToObject(ci, "operation", txn->operation);
    cJSON_AddItemToObject(ci, "operationParameters", params);
    if (txn->read_version >= 0)
        cJSON_AddNumberToObject(ci, "readVersion", (double)txn->read_version);
    /* Delta 4.1 records Serializable for every operation (the Spark peer's WRITE, CREATE TABLE
     * [AS SELECT], UPDATE, DELETE, MERGE, RESTORE, ALTER, ADD CONSTRAINT commits), also where
     * its conflict checks, like silt's (txn->isolation), treat blind appends as
     * WriteSerializable does. */
    /* OPTIMIZE commits with SnapshotIsolation, as Delta's compaction does (maint's peer check). */
    cJSON_AddStringToObject(ci, "isolationLevel", txn->isolation == DELTA_SNAPSHOT_ISOLATION
                                                      ? "SnapshotIsolation"
                                                      : "Serializable");
    cJSON_AddBoolToObject(ci, "isBlindAppend", delta_txn_is_blind_append(txn));
    cJSON_AddItemToObject(ci, "operationMetrics", metrics);
    cJSON_AddStringToObject(ci, "engineInfo", "silt/" SILT_VERSION);
    cJSON_AddStringToObject(ci, "txnId", txn->txn_id);
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (text == NULL)
        return err_nomem(err);
    rc = buf_append_str(out, text, err);
    cJSON_free(text);
    return rc;
}
