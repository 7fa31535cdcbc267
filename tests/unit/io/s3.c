/*
 * The S3 back end's parts that need no server: the SigV4 signature against
 * AWS's published example, URI encoding, XML text, and where settings come
 * from (store options over variables over profiles, per-bucket keys,
 * endpoints and addressing). tests/s3/s3_suite.py runs it against a server.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/s3.h"
#include "test.h"

static const char *const aws_vars[] = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"};
static char *saved_home;

void test_io_s3__initialize(void)
{
    size_t idx;
    const char *home = getenv("HOME");
    saved_home = home ? strdup(home) : NULL;
    for (idx = 0; idx < sizeof(aws_vars) / sizeof(aws_vars[0]); idx++)
        unsetenv(aws_vars[idx]);
    setenv("HOME", test_tmpdir(), 1); /* no ~/.aws of the machine's */
}

void test_io_s3__cleanup(void)
{
    size_t idx;
    for (idx = 0; idx < sizeof(aws_vars) / sizeof(aws_vars[0]); idx++)
        unsetenv(aws_vars[idx]);
    if (saved_home != NULL)
        setenv("HOME", saved_home, 1);
    free(saved_home);
    saved_home = NULL;
}

void test_io_s3__signature_matches_the_aws_example(void)
{
    /* AWS's S3 SigV4 example "GET Object" (examplebucket, test.txt, bytes 0-9). */
    io_s3_conf conf;
    silt_error err = SILT_ERROR_INIT;
    char sig[65];
    memset(&conf, 0, sizeof(conf));
    conf.secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    conf.region = "us-east-1";
    check_ok(io_s3_sign_canonical(&conf, "20130524T000000Z",
                                  "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\n"
                                  "range:bytes=0-9\nx-amz-content-sha256:"
                                  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
                                  "x-amz-date:20130524T000000Z\n\n"
                                  "host;range;x-amz-content-sha256;x-amz-date\n"
                                  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                                  sig, &err),
             &err);
    check_str("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41", sig);
}

void test_io_s3__uri_encoding_and_xml_text(void)
{
    buf out = BUF_INIT;
    const char *xml = "<R><Key>a&amp;b &lt;c&gt; &#65;</Key><Key>two</Key></R>", *pos = xml;
    check_ok(io_s3_uri_encode(&out, "t/route_id=A b/~x.parquet", 1, NULL), NULL);
    check_str("t/route_id%3DA%20b/~x.parquet", buf_cstr(&out));
    buf_truncate(&out, 0);
    check_ok(io_s3_uri_encode(&out, "a/b", 0, NULL), NULL);
    check_str("a%2Fb", buf_cstr(&out));
    check_int(1, io_s3_xml_next(&pos, "Key", &out));
    check_str("a&b <c> A", buf_cstr(&out));
    check_int(1, io_s3_xml_next(&pos, "Key", &out));
    check_str("two", buf_cstr(&out));
    check_int(0, io_s3_xml_next(&pos, "Key", &out));
    buf_clear(&out);
}

static void resolve(io_s3_conf *c, const char *location, const char *const *keys,
                    const char *const *values, size_t n)
{
    io_store_options opts = {keys, values, n};
    silt_error err = SILT_ERROR_INIT;
    check_ok(io_s3_conf_resolve(c, location, &opts, &err), &err);
}

void test_io_s3__options_win_over_variables_and_buckets_over_all(void)
{
    static const char *const keys[] = {"spark.hadoop.fs.s3a.access.key", "fs.s3a.secret.key",
                                       "fs.s3a.bucket.my.data.access.key",
                                       "fs.s3a.bucket.my.data.secret.key",
                                       "fs.s3a.multipart.size", "fs.s3a.retry.interval"};
    static const char *const values[] = {"OPTKEY", "optsecret", "BUCKETKEY", "bucketsecret",
                                         "16M", "2s"};
    io_s3_conf c;
    setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
    setenv("AWS_REGION", "eu-west-1", 1);
    resolve(&c, "s3a://other/wh/", keys, values, 6);
    check_str("OPTKEY", c.access_key);
    check_str("optsecret", c.secret_key);
    check_str("other", c.bucket);
    check_str("wh", c.prefix);
    check_str("eu-west-1", c.region);
    check_str("https://s3.eu-west-1.amazonaws.com", c.endpoint);
    check_int(0, c.path_style);
    check_int(16 << 20, (int)c.part_size);
    check_int(2000, (int)c.retry_interval_ms);
    io_s3_conf_clear(&c);
    resolve(&c, "s3://my.data/t", keys, values, 6);
    check_str("BUCKETKEY", c.access_key);
    check_str("bucketsecret", c.secret_key);
    io_s3_conf_clear(&c);
    resolve(&c, "s3n://plain", NULL, NULL, 0);
    check_str("ENVKEY", c.access_key);
    check_str("", c.prefix);
    check_int(7, c.retry_limit);
    io_s3_conf_clear(&c);
}

void test_io_s3__endpoints_and_addressing(void)
{
    static const char *const keys[] = {"fs.s3a.endpoint", "fs.s3a.connection.ssl.enabled"};
    static const char *const values[] = {"localhost:9000", "false"};
    static const char *const keys2[] = {"fs.s3a.endpoint", "fs.s3a.path.style.access"};
    static const char *const values2[] = {"https://minio.example.com/", "true"};
    io_s3_conf c;
    resolve(&c, "s3://b/t", keys, values, 2);
    check_str("http://localhost:9000", c.endpoint);
    check_int(1, c.path_style); /* no per-bucket DNS name on localhost */
    io_s3_conf_clear(&c);
    resolve(&c, "s3://b/t", keys2, values2, 2);
    check_str("https://minio.example.com", c.endpoint);
    check_int(1, c.path_style);
    io_s3_conf_clear(&c);
    setenv("AWS_ENDPOINT_URL", "http://10.1.2.3:7070", 1);
    setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:7071", 1);
    resolve(&c, "s3://b/t", NULL, NULL, 0);
    check_str("http://127.0.0.1:7071", c.endpoint); /* the S3-specific variable wins */
    check_int(1, c.path_style);
    check_int(0, c.access_key != NULL); /* no credentials anywhere: unsigned */
    io_s3_conf_clear(&c);
}

static void write_file(const char *name, const char *text)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof(path), "%s/.aws", test_tmpdir());
    (void)mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/.aws/%s", test_tmpdir(), name);
    f = fopen(path, "w");
    check_int(1, f != NULL);
    fputs(text, f);
    fclose(f);
}

void test_io_s3__profiles(void)
{
    io_s3_conf c;
    silt_error err = SILT_ERROR_INIT;
    write_file("credentials", "[default]\naws_access_key_id = DEFKEY\naws_secret_access_key = d\n"
                              "\n[dev]\n aws_access_key_id=DEVKEY \naws_secret_access_key= s3cr=t\n"
                              "aws_session_token = tok\n");
    write_file("config", "[default]\nregion = us-west-2\n[profile dev]\nregion = ap-south-1\n"
                         "endpoint_url = http://127.0.0.1:9999\n");
    resolve(&c, "s3://b", NULL, NULL, 0);
    check_str("DEFKEY", c.access_key);
    check_str("us-west-2", c.region);
    io_s3_conf_clear(&c);
    setenv("AWS_PROFILE", "dev", 1);
    resolve(&c, "s3://b", NULL, NULL, 0);
    check_str("DEVKEY", c.access_key);
    check_str("s3cr=t", c.secret_key);
    check_str("tok", c.token);
    check_str("ap-south-1", c.region);
    check_str("http://127.0.0.1:9999", c.endpoint);
    io_s3_conf_clear(&c);
    setenv("AWS_PROFILE", "nope", 1);
    check_fails(SILT_INVALID, io_s3_conf_resolve(&c, "s3://b", NULL, &err));
    check_contains(err.message, "the AWS profile \"nope\" (AWS_PROFILE) is in neither");
}

void test_io_s3__bad_locations_and_values(void)
{
    static const char *const keys[] = {"fs.s3a.access.key"};
    static const char *const values[] = {"ONLYKEY"};
    io_store_options opts = {keys, values, 1};
    io_s3_conf c;
    silt_error err = SILT_ERROR_INIT;
    check_fails(SILT_INVALID, io_s3_conf_resolve(&c, "s3:///t", NULL, &err));
    check_contains(err.message, "names no bucket");
    check_fails(SILT_INVALID, io_s3_conf_resolve(&c, "s3://Bad_Bucket!/t", NULL, &err));
    check_contains(err.message, "is not a valid bucket name");
    check_fails(SILT_INVALID, io_s3_conf_resolve(&c, "s3://b/a/../t", NULL, &err));
    check_fails(SILT_INVALID, io_s3_conf_resolve(&c, "s3://b/t", &opts, &err));
    check_contains(err.message, "have an access key but no secret key");
    check_fails(SILT_INVALID, io_s3_check_option("fs.s3a.retry.limit", "101", &err));
    check_fails(SILT_INVALID, io_s3_check_option("fs.s3a.connection.timeout", "0", &err));
    check_ok(io_s3_check_option("fs.s3a.connection.timeout", "90s", &err), &err);
    check_ok(io_s3_check_option("fs.s3a.bucket.a.b.endpoint.region", "x", &err), &err);
    check_fails(SILT_INVALID, io_s3_check_option("fs.s3a.bucket.a.b.nothing", "x", &err));
}

static void unset_cloud_vars(void)
{
    static const char *const vars[] = {"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_ACCOUNT_NAME",
                                       "AZURE_STORAGE_KEY", "AZURE_STORAGE_ACCOUNT_KEY",
                                       "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_ENDPOINT",
                                       "AZURE_STORAGE_USE_EMULATOR", "STORAGE_EMULATOR_HOST",
                                       "GOOGLE_OAUTH_ACCESS_TOKEN"};
    size_t idx;
    for (idx = 0; idx < sizeof(vars) / sizeof(vars[0]); idx++)
        unsetenv(vars[idx]);
}

void test_io_s3__azure_locations_and_settings(void)
{
    static const char *const keys[] = {"fs.azure.account.key", "fs.azure.account.key.acct.dfs."
                                       "core.windows.net", "fs.azure.write.request.size"};
    static const char *const values[] = {"Z2VuZXJhbA==", "c3BlY2lmaWM=", "1m"};
    io_store_options opts = {keys, values, 3};
    io_s3_conf c;
    silt_error err = SILT_ERROR_INIT;
    unset_cloud_vars();
    setenv("AZURE_STORAGE_KEY", "ZW52", 1);
    check_ok(io_cloud_conf_resolve(&c, "abfss://data@acct.dfs.core.windows.net/a/t/", &opts,
                                   &err), &err);
    check_int(IO_DIALECT_AZURE, c.dialect);
    check_str("acct", c.account);
    check_str("data", c.bucket);
    check_str("a/t", c.prefix);
    check_str("c3BlY2lmaWM=", c.secret_key); /* the account's key wins over the general one */
    check_str("https://acct.blob.core.windows.net", c.endpoint);
    check_int(1 << 20, (int)c.part_size);
    io_s3_conf_clear(&c);
    /* az:// takes the account from the variables; a SAS token replaces the key. */
    setenv("AZURE_STORAGE_ACCOUNT", "other", 1);
    setenv("AZURE_STORAGE_SAS_TOKEN", "?sv=2021&sig=x", 1);
    setenv("AZURE_STORAGE_ENDPOINT", "127.0.0.1:10000/other/", 1);
    check_ok(io_cloud_conf_resolve(&c, "az://box/t", NULL, &err), &err);
    check_str("other", c.account);
    check_str("sv=2021&sig=x", c.token);
    check(c.secret_key == NULL && c.access_key == NULL);
    check_str("http://127.0.0.1:10000/other", c.endpoint);
    io_s3_conf_clear(&c);
    unset_cloud_vars();
    check_fails(SILT_INVALID, io_cloud_conf_resolve(&c, "az://box/t", NULL, &err));
    check_contains(err.message, "names no Azure storage account");
    check_fails(SILT_INVALID, io_cloud_conf_resolve(&c, "wasbs://@acct.blob.core.windows.net/t",
                                                    NULL, &err));
    check_contains(err.message, "names no container");
    setenv("AZURE_STORAGE_USE_EMULATOR", "true", 1);
    check_ok(io_cloud_conf_resolve(&c, "az://box", NULL, &err), &err);
    check_str("devstoreaccount1", c.account);
    check_str("http://127.0.0.1:10000/devstoreaccount1", c.endpoint);
    check(c.secret_key != NULL);
    io_s3_conf_clear(&c);
    unset_cloud_vars();
}

void test_io_s3__gcs_locations_and_settings(void)
{
    static const char *const keys[] = {"spark.hadoop.fs.gs.http.max.retry"};
    static const char *const values[] = {"2"};
    io_store_options opts = {keys, values, 1};
    io_s3_conf c;
    silt_error err = SILT_ERROR_INIT;
    unset_cloud_vars();
    check_ok(io_cloud_conf_resolve(&c, "gs://bkt/w/h", &opts, &err), &err);
    check_int(IO_DIALECT_GCS, c.dialect);
    check_str("bkt", c.bucket);
    check_str("w/h", c.prefix);
    check_str("https://storage.googleapis.com", c.endpoint);
    check(c.token == NULL);
    check_int(2, c.retry_limit);
    io_s3_conf_clear(&c);
    setenv("STORAGE_EMULATOR_HOST", "localhost:4443", 1);
    setenv("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.token", 1);
    check_ok(io_cloud_conf_resolve(&c, "gcs://bkt", NULL, &err), &err);
    check_str("http://localhost:4443", c.endpoint);
    check_str("ya29.token", c.token);
    io_s3_conf_clear(&c);
    check_fails(SILT_INVALID, io_cloud_conf_resolve(&c, "gs://bkt@host/t", NULL, &err));
    check_contains(err.message, "gs://bucket/path");
    check_fails(SILT_INVALID, io_cloud_check_option("fs.gs.nothing", "x", &err));
    check_contains(err.message, "store option \"fs.gs.nothing\" is not known");
    unset_cloud_vars();
}
