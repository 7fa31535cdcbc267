#include <string.h>

#include "delta/actions.h"
#include "test.h"
#include "util/arena.h"

static arena *a;

void test_delta_actions__initialize(void) { a = arena_new(NULL, "test"); }
void test_delta_actions__cleanup(void) { arena_free(a); }

static dlog_action parse_ok(const char *line)
{
    dlog_action action;
    size_t pos = 0;
    silt_error err = SILT_ERROR_INIT;
    check_ok(dlog_parse_action(&action, a, line, strlen(line), &pos, &err), &err);
    return action;
}

void test_delta_actions__add_with_all_fields(void)
{
    dlog_action action = parse_ok(
        "{\"add\":{\"path\":\"x=a%20b/part%253A1.parquet\",\"partitionValues\":{\"x\":\"a b\","
        "\"y\":null},\"size\":123,\"modificationTime\":1700000000000,\"dataChange\":false,"
        "\"stats\":\"{\\\"numRecords\\\":3}\",\"tags\":{\"t\":\"1\"},"
        "\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"ab^-aqEH.-t@S}K{vb[*k^\","
        "\"offset\":4,\"sizeInBytes\":40,\"cardinality\":6},\"baseRowId\":10,"
        "\"defaultRowCommitVersion\":2,\"clusteringProvider\":\"liquid\"}}");
    dlog_add *add = &action.u.add;
    buf id = BUF_INIT;
    int found = 0;
    check_int(DLOG_ADD, action.type);
    check_str("x=a b/part%3A1.parquet", add->path);
    check_str("x=a%20b/part%253A1.parquet", add->raw_path);
    check_str("a b", dlog_map_get(&add->partition_values, "x", NULL));
    check(dlog_map_get(&add->partition_values, "y", &found) == NULL && found);
    check_int(123, add->size);
    check_int(1700000000000LL, add->modification_time);
    check_int(0, add->data_change);
    check_str("{\"numRecords\":3}", add->stats);
    check_str("1", dlog_map_get(&add->tags, "t", NULL));
    check_int('u', add->dv.storage_type);
    check_int(4, add->dv.offset);
    check_int(40, add->dv.size_in_bytes);
    check_int(6, add->dv.cardinality);
    check(add->has_base_row_id && add->base_row_id == 10);
    check(add->has_default_row_commit_version && add->default_row_commit_version == 2);
    check_str("liquid", add->clustering_provider);
    check_ok(dlog_dv_unique_id(&add->dv, &id, NULL), NULL);
    check_str("uab^-aqEH.-t@S}K{vb[*k^@4", buf_cstr(&id));
    buf_clear(&id);
}

void test_delta_actions__metadata_and_schema(void)
{
    dlog_action action = parse_ok(
        "{\"metaData\":{\"id\":\"abc\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
        "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["
        "{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":false,\\\"metadata\\\":{\\\"delta.columnMapping.id\\\":5,\\\"delta.columnMapping.physicalName\\\":\\\"col-1\\\"}},"
        "{\\\"name\\\":\\\"d\\\",\\\"type\\\":\\\"decimal(10,2)\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
        "{\\\"name\\\":\\\"t\\\",\\\"type\\\":\\\"timestamp_ntz\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
        "{\\\"name\\\":\\\"a\\\",\\\"type\\\":{\\\"type\\\":\\\"array\\\",\\\"elementType\\\":\\\"integer\\\",\\\"containsNull\\\":false},\\\"nullable\\\":true,\\\"metadata\\\":{}},"
        "{\\\"name\\\":\\\"m\\\",\\\"type\\\":{\\\"type\\\":\\\"map\\\",\\\"keyType\\\":\\\"string\\\",\\\"valueType\\\":{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"x\\\",\\\"type\\\":\\\"date\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]},\\\"valueContainsNull\\\":true},\\\"nullable\\\":true,\\\"metadata\\\":{}}"
        "]}\",\"partitionColumns\":[\"d\"],\"configuration\":{\"delta.columnMapping.mode\":\"name\"},"
        "\"createdTime\":1600000000000}}");
    const dlog_metadata *md = &action.u.metadata;
    const col_type *schema = md->schema;
    buf text = BUF_INIT;
    check_int(DLOG_METADATA, action.type);
    check_str("abc", md->id);
    check_int(1, md->n_partition_columns);
    check_str("d", md->partition_columns[0]);
    check_str("name", dlog_map_get(&md->configuration, "delta.columnMapping.mode", NULL));
    check(md->has_created_time);
    check_int(COL_STRUCT, schema->id);
    check_int(5, schema->n_fields);
    check_int(0, schema->fields[0].nullable);
    check_int(5, schema->fields[0].field_id);
    check_contains(schema->fields[0].metadata_json, "col-1");
    check_int(COL_DECIMAL, schema->fields[1].type->id);
    check_int(10, schema->fields[1].type->precision);
    check_int(2, schema->fields[1].type->scale);
    check_int(COL_TIMESTAMP_NTZ, schema->fields[2].type->id);
    check_int(COL_ARRAY, schema->fields[3].type->id);
    check_int(0, schema->fields[3].type->fields[0].nullable);
    check_int(COL_MAP, schema->fields[4].type->id);
    check_int(COL_STRUCT, schema->fields[4].type->fields[1].type->id);
    check_ok(col_type_format(schema->fields[4].type, &text, NULL), NULL);
    check_contains(buf_cstr(&text), "map<");
    buf_clear(&text);
}

void test_delta_actions__protocol_txn_domain_commit_info(void)
{
    dlog_action p = parse_ok("{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
                             "\"readerFeatures\":[\"deletionVectors\"],\"writerFeatures\":[\"deletionVectors\",\"appendOnly\"]}}");
    dlog_action t = parse_ok("{\"txn\":{\"appId\":\"app\",\"version\":42,\"lastUpdated\":7}}");
    dlog_action d = parse_ok("{\"domainMetadata\":{\"domain\":\"delta.x\",\"configuration\":\"{}\",\"removed\":true}}");
    dlog_action c = parse_ok("{\"commitInfo\":{\"timestamp\":1000,\"operation\":\"WRITE\",\"inCommitTimestamp\":2000,\"x\":[1,2]}}");
    check_int(3, p.u.protocol.min_reader_version);
    check_int(1, p.u.protocol.n_reader_features);
    check_int(2, p.u.protocol.n_writer_features);
    check_str("appendOnly", p.u.protocol.writer_features[1]);
    check_str("app", t.u.txn.app_id);
    check_int(42, t.u.txn.version);
    check_int(1, d.u.domain.removed);
    check_str("WRITE", c.u.commit_info.operation);
    check_int(2000, c.u.commit_info.in_commit_timestamp);
    check_contains(c.u.commit_info.raw_json, "\"x\":[1,2]");
}

void test_delta_actions__unknown_action_is_ignored(void)
{
    dlog_action action = parse_ok("{\"futureAction\":{\"a\":1}}");
    check_int(DLOG_NONE, action.type);
    action = parse_ok("   ");
    check_int(DLOG_NONE, action.type);
}

static silt_status count_actions(const dlog_action *action, void *payload, silt_error *err)
{
    (void)action;
    (void)err;
    (*(int *)payload)++;
    return SILT_OK;
}

void test_delta_actions__commit_errors_name_file_line_and_byte(void)
{
    const char *commit = "{\"txn\":{\"appId\":\"a\",\"version\":1}}\n{\"add\":{\"path\":\"x\",\"size\":1";
    silt_error err = SILT_ERROR_INIT;
    int n = 0;
    check_fails(SILT_CORRUPT, dlog_parse_commit(commit, strlen(commit), "00000000000000000001.json",
                                                a, count_actions, &n, &err));
    check_int(1, n);
    check_contains(err.message, "\"00000000000000000001.json\"");
    check_contains(err.message, "line 2");
    check_contains(err.message, "byte ");
}

void test_delta_actions__missing_required_field(void)
{
    dlog_action action;
    size_t pos;
    silt_error err = SILT_ERROR_INIT;
    const char *line = "{\"add\":{\"size\":1}}";
    check_fails(SILT_CORRUPT, dlog_parse_action(&action, a, line, strlen(line), &pos, &err));
    check_contains(err.message, "\"add.path\"");
    line = "{\"add\":{\"path\":\"x\",\"size\":\"big\"}}";
    check_fails(SILT_CORRUPT, dlog_parse_action(&action, a, line, strlen(line), &pos, &err));
    check_contains(err.message, "\"add.size\"");
    line = "{\"add\":{\"path\":\"bad%zz\",\"size\":1}}";
    check_fails(SILT_CORRUPT, dlog_parse_action(&action, a, line, strlen(line), &pos, &err));
    line = "[1,2]";
    check_fails(SILT_CORRUPT, dlog_parse_action(&action, a, line, strlen(line), &pos, &err));
}

void test_delta_actions__schema_errors(void)
{
    const col_type *type;
    silt_error err = SILT_ERROR_INIT;
    check_fails(SILT_UNSUPPORTED, dlog_parse_schema(&type, a, "{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"variant\",\"nullable\":true}]}", &err));
    check_contains(err.message, "variant");
    check_fails(SILT_CORRUPT, dlog_parse_schema(&type, a, "{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"decimal(40,2)\"}]}", &err));
    check_fails(SILT_CORRUPT, dlog_parse_schema(&type, a, "{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"nonsense\"}]}", &err));
    check_fails(SILT_CORRUPT, dlog_parse_schema(&type, a, "{\"type\":\"struct\"", &err));
    check_ok(dlog_parse_schema(&type, a, "{\"type\":\"struct\",\"fields\":[{\"name\":\"v\",\"type\":\"decimal\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\"}]}}]}", &err), &err);
    check_int(10, type->fields[0].type->precision);
    check_contains(type->fields[0].metadata_json, "delta.typeChanges");
}

static void round_trip(const char *line)
{
    dlog_action first = parse_ok(line), second;
    buf out1 = BUF_INIT, out2 = BUF_INIT;
    check_ok(dlog_action_to_json(&first, &out1, NULL), NULL);
    second = parse_ok(buf_cstr(&out1));
    check_int(first.type, second.type);
    check_ok(dlog_action_to_json(&second, &out2, NULL), NULL);
    check_str(buf_cstr(&out1), buf_cstr(&out2));
    buf_clear(&out1);
    buf_clear(&out2);
}

void test_delta_actions__round_trip(void)
{
    round_trip("{\"add\":{\"path\":\"x=a%20b/f.parquet\",\"partitionValues\":{\"x\":\"a b\",\"n\":null},\"size\":10,"
               "\"modificationTime\":5,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":1}\","
               "\"deletionVector\":{\"storageType\":\"i\",\"pathOrInlineDv\":\"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L\",\"sizeInBytes\":40,\"cardinality\":6}}}");
    round_trip("{\"remove\":{\"path\":\"f.parquet\",\"deletionTimestamp\":9,\"dataChange\":true,"
               "\"extendedFileMetadata\":true,\"partitionValues\":{},\"size\":3}}");
    round_trip("{\"metaData\":{\"id\":\"i\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
               "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[],"
               "\"configuration\":{\"k\":\"v\"},\"createdTime\":1}}");
    round_trip("{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[],\"writerFeatures\":[\"x\"]}}");
    round_trip("{\"txn\":{\"appId\":\"a\",\"version\":3}}");
    round_trip("{\"commitInfo\":{\"timestamp\":1,\"operation\":\"WRITE\",\"operationParameters\":{\"mode\":\"Append\"}}}");
    round_trip("{\"domainMetadata\":{\"domain\":\"d\",\"configuration\":\"{}\",\"removed\":false}}");
}

void test_delta_actions__encodes_paths_written_from_scratch(void)
{
    dlog_action action;
    buf out = BUF_INIT;
    memset(&action, 0, sizeof(action));
    action.type = DLOG_ADD;
    action.u.add.path = "p=a b%/f:1.parquet";
    action.u.add.size = 1;
    check_ok(dlog_action_to_json(&action, &out, NULL), NULL);
    check_contains(buf_cstr(&out), "\"path\":\"p=a%20b%25/f%3A1.parquet\"");
    action = parse_ok(buf_cstr(&out));
    check_str("p=a b%/f:1.parquet", action.u.add.path);
    buf_clear(&out);
}

/* Issue 15: 64-bit integers of the log are read and written exactly (cJSON holds
 * doubles), and an escaped NUL in a path is refused. */
void test_delta_actions__big_integers_are_exact(void)
{
    dlog_action act = parse_ok("{\"add\":{\"path\":\"f.parquet\",\"partitionValues\":{},"
                               "\"size\":9223372036854775807,\"modificationTime\":"
                               "9007199254740993,\"dataChange\":true,\"baseRowId\":"
                               "-9223372036854775808}}");
    buf out = BUF_INIT;
    silt_error err = SILT_ERROR_INIT;
    check(act.u.add.size == INT64_MAX);
    check(act.u.add.modification_time == INT64_C(9007199254740993));
    check(act.u.add.base_row_id == INT64_MIN);
    check_ok(dlog_action_to_json(&act, &out, &err), &err);
    check_contains(out.data, "\"size\":9223372036854775807");
    check_contains(out.data, "\"modificationTime\":9007199254740993");
    act = parse_ok(out.data);
    check(act.u.add.size == INT64_MAX);
    buf_clear(&out);
}

void test_delta_actions__escaped_nul_in_path_is_refused(void)
{
    dlog_action action;
    silt_error err = SILT_ERROR_INIT;
    size_t pos = 0;
    const char *line = "{\"add\":{\"path\":\"a%00b.parquet\",\"partitionValues\":{},\"size\":1,"
                       "\"modificationTime\":1,\"dataChange\":true}}";
    check_fails(SILT_CORRUPT, dlog_parse_action(&action, a, line, strlen(line), &pos, &err));
    check_contains(err.message, "escaped NUL (%00)");
}
