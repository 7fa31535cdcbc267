#include <string.h>

#include "delta/protocol.h"
#include "test.h"

static arena *a;

void test_delta_protocol__initialize(void) { a = arena_new(NULL, "test"); }
void test_delta_protocol__cleanup(void) { arena_free(a); }

static dlog_action parse(const char *line)
{
    dlog_action action;
    size_t pos = 0;
    silt_error err = SILT_ERROR_INIT;
    check_ok(dlog_parse_action(&action, a, line, strlen(line), &pos, &err), &err);
    return action;
}

void test_delta_protocol__readable_versions_and_features(void)
{
    dlog_action p = parse("{\"protocol\":{\"minReaderVersion\":2,\"minWriterVersion\":5}}");
    silt_error err = SILT_ERROR_INIT;
    check_ok(dproto_check_readable(&p.u.protocol, &err), &err);
    p = parse("{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
              "[\"columnMapping\",\"deletionVectors\",\"timestampNtz\",\"typeWidening\","
              "\"v2Checkpoint\",\"vacuumProtocolCheck\"],\"writerFeatures\":[\"rowTracking\"]}}");
    check_ok(dproto_check_readable(&p.u.protocol, &err), &err);
    check(dproto_has_feature(&p.u.protocol, "rowTracking", 1));
    check(!dproto_has_feature(&p.u.protocol, "rowTracking", 0));
    p = parse("{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
              "[\"variantType\"],\"writerFeatures\":[\"variantType\"]}}");
    check_fails(SILT_UNSUPPORTED, dproto_check_readable(&p.u.protocol, &err));
    check_contains(err.message, "\"variantType\"");
}

#define MAPPED_METADATA(mode)                                                                      \
    "{\"metaData\":{\"id\":\"x\",\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[" \
    "{\\\"name\\\":\\\"Outer\\\",\\\"type\\\":{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":["        \
    "{\\\"name\\\":\\\"inner\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":"  \
    "{\\\"delta.columnMapping.id\\\":2,\\\"delta.columnMapping.physicalName\\\":\\\"col-b\\\"}}]},"  \
    "\\\"nullable\\\":true,\\\"metadata\\\":{\\\"delta.columnMapping.id\\\":1,"                     \
    "\\\"delta.columnMapping.physicalName\\\":\\\"col-a\\\"}}]}\",\"partitionColumns\":[],"         \
    "\"configuration\":{\"delta.columnMapping.mode\":\"" mode "\"}}}"

void test_delta_protocol__column_mapping_physical_schema(void)
{
    dlog_action md = parse(MAPPED_METADATA("name"));
    dproto_mapping_mode mode;
    const col_type *physical = NULL;
    silt_error err = SILT_ERROR_INIT;
    check_ok(dproto_get_mapping_mode(&md.u.metadata, &mode, &err), &err);
    check_int(DPROTO_MAPPING_NAME, mode);
    check_ok(dproto_physical_schema(md.u.metadata.schema, mode, a, &physical, &err), &err);
    check_str("col-a", physical->fields[0].name);
    check_str("col-b", physical->fields[0].type->fields[0].name);
    check_int(1, physical->fields[0].field_id);
    check_int(2, physical->fields[0].type->fields[0].field_id);
    /* The logical schema is untouched. */
    check_str("Outer", md.u.metadata.schema->fields[0].name);

    md = parse(MAPPED_METADATA("id"));
    check_ok(dproto_get_mapping_mode(&md.u.metadata, &mode, &err), &err);
    check_int(DPROTO_MAPPING_ID, mode);
    md = parse(MAPPED_METADATA("none"));
    check_ok(dproto_get_mapping_mode(&md.u.metadata, &mode, &err), &err);
    check_ok(dproto_physical_schema(md.u.metadata.schema, mode, a, &physical, &err), &err);
    check_str("Outer", physical->fields[0].name);
    md = parse(MAPPED_METADATA("sideways"));
    check_fails(SILT_CORRUPT, dproto_get_mapping_mode(&md.u.metadata, &mode, &err));
    check_contains(err.message, "sideways");
}

void test_delta_protocol__missing_physical_name(void)
{
    const col_type *schema = NULL, *physical = NULL;
    silt_error err = SILT_ERROR_INIT;
    check_ok(dlog_parse_schema(&schema, a, "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}", &err), &err);
    check_fails(SILT_CORRUPT, dproto_physical_schema(schema, DPROTO_MAPPING_NAME, a, &physical, &err));
    check_contains(err.message, "\"a\"");
}
