/*
 * text_files.c - the files of a plain file source and their partition
 * columns, as Spark's InMemoryFileIndex and PartitioningUtils find them
 * (text_source.h, text_files_discover).
 *
 * Listing: a path names one file (its folder is the base), a folder (every
 * file below it, recursively; the folder is the base) or a glob whose
 * matches are files or folders (each match a root, as Spark's glob
 * expansion gives root paths). Names that begin with '.', or with '_' and
 * hold no '=', and names ending in "._COPYING_" are skipped at every level
 * (Spark's isDataPath / shouldFilterOutPathName). pathGlobFilter keeps the
 * files whose name matches. Without partition folders only the files
 * directly in a root are read (Spark's allFiles), every file below with
 * recursiveFileLookup.
 *
 * Partitions (not with recursiveFileLookup): from each file's folder up to
 * a base folder (basePath when given, else the roots), every `key=value`
 * folder name is a partition column, read leaf last; a folder name without
 * '=' above partition folders ends the walk there (that folder is then the
 * base the walk discovered). Names and string values are %-unescaped. Each
 * value's type is inferred (int, long, decimal(p,0), double, timestamp
 * "yyyy-MM-dd HH:mm:ss[.S]", date "yyyy-MM-dd", else string;
 * __HIVE_DEFAULT_PARTITION__ is null) and the types of one column are
 * widened across folders as Spark's findWiderTypeForPartitionColumn does
 * (long or decimal with double gives string); a column of nulls only is
 * Spark's void. Without type inference every column is a string. Two walks that
 * discover different bases, or different lists of columns, fail with
 * Spark's messages; files in the base folder of a partitioned folder are
 * not read (Spark keeps only the files of partition folders).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/text/text_source.h"
#include "util/hashmap.h"
#include "util/time.h"

#define TF_DEFAULT_PARTITION "__HIVE_DEFAULT_PARTITION__"

/* ---------------------------------------------------------------- names */

static int hidden_name(const char *name, size_t len)
{
    static const char copying[] = "._COPYING_";
    size_t n_copy = sizeof(copying) - 1;
    if (len == 0)
        return 0;
    if (name[0] == '.')
        return 1;
    if (name[0] == '_' && memchr(name, '=', len) == NULL)
        return 1;
    return len >= n_copy && memcmp(name + len - n_copy, copying, n_copy) == 0;
}

/* 1 when a segment of key after byte `from` is hidden. */
static int hidden_below(const char *key, size_t from)
{
    size_t pos = from, len = strlen(key);
    while (pos < len) {
        const char *slash = memchr(key + pos, '/', len - pos);
        size_t end = slash ? (size_t)(slash - key) : len;
        if (hidden_name(key + pos, end - pos))
            return 1;
        pos = end + 1;
    }
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/*
 * Spark's unescapePathName: "%XX" (Integer.parseInt of the two characters
 * in base 16, so "+f" counts and "-1" does not) becomes the character of
 * that code, written here as UTF-8; a '%' among the last two characters
 * stays.
 */
static char *unescape(arena *a, const char *s, size_t len)
{
    char *out = arena_alloc(a, len * 2 + 1);
    size_t pos = 0, n = 0;
    if (out == NULL)
        return NULL;
    while (pos < len) {
        int code = -1;
        if (s[pos] == '%' && pos + 2 < len) {
            int hi = hex_digit(s[pos + 1]), lo = hex_digit(s[pos + 2]);
            if (hi >= 0 && lo >= 0)
                code = hi * 16 + lo;
            else if (s[pos + 1] == '+' && lo >= 0)
                code = lo;
            else if (s[pos + 1] == '-' && lo == 0)
                code = 0;
        }
        if (code < 0) {
            out[n++] = s[pos++];
            continue;
        }
        if (code < 0x80) {
            out[n++] = (char)code;
        } else {
            out[n++] = (char)(0xC0 | (code >> 6));
            out[n++] = (char)(0x80 | (code & 0x3F));
        }
        pos += 3;
    }
    out[n] = '\0';
    return out;
}

/* ---------------------------------------------------------------- type inference */

/* Java's Integer.parseInt / Long.parseLong: an optional sign and ASCII digits, in range. */
static int java_parse_long(const char *s, size_t len, int64_t min, int64_t max, int64_t *out)
{
    size_t pos = 0;
    int neg = 0;
    __int128 v = 0;
    if (len > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        pos = 1;
    }
    if (pos == len)
        return 0;
    for (; pos < len; pos++) {
        if (s[pos] < '0' || s[pos] > '9')
            return 0;
        v = v * 10 + (s[pos] - '0');
        if (v > (__int128)max + 1)
            return 0;
    }
    if (neg)
        v = -v;
    if (v < min || v > max)
        return 0;
    *out = (int64_t)v;
    return 1;
}

/* Java's Double.parseDouble (decimal forms; NaN, Infinity; f/d suffix; blanks around). */
static int java_parse_double(const char *s, size_t len, double *out)
{
    char text[512];
    size_t pos = 0, end = len, digits = 0;
    const char *body;
    char *stop;
    while (pos < end && (unsigned char)s[pos] <= ' ')
        pos++;
    while (end > pos && (unsigned char)s[end - 1] <= ' ')
        end--;
    if (end - pos == 0 || end - pos >= sizeof(text))
        return 0;
    memcpy(text, s + pos, end - pos);
    text[end - pos] = '\0';
    body = text + (text[0] == '+' || text[0] == '-');
    if (strcmp(body, "NaN") == 0 || strcmp(body, "Infinity") == 0) {
        *out = strcmp(body, "NaN") == 0 ? NAN : (text[0] == '-' ? -INFINITY : INFINITY);
        return 1;
    }
    {
        size_t n = strlen(text);
        if (n > 0 && strchr("fFdD", text[n - 1]) != NULL)
            text[--n] = '\0';
    }
    /* digits [. digits] [e [sign] digits], at least one digit before the exponent */
    pos = (size_t)(body - text);
    while (isdigit((unsigned char)text[pos]))
        pos++, digits++;
    if (text[pos] == '.')
        for (pos++; isdigit((unsigned char)text[pos]); pos++)
            digits++;
    if (digits == 0)
        return 0;
    if (text[pos] == 'e' || text[pos] == 'E') {
        size_t exp_digits = 0;
        pos++;
        if (text[pos] == '+' || text[pos] == '-')
            pos++;
        while (isdigit((unsigned char)text[pos]))
            pos++, exp_digits++;
        if (exp_digits == 0)
            return 0;
    }
    if (text[pos] != '\0')
        return 0;
    errno = 0;
    *out = strtod(text, &stop);
    return *stop == '\0';
}

/*
 * Java's new BigDecimal(text) with scale <= 0, as Spark's decimal
 * inference takes it: the precision of the DecimalType it gives (a
 * negative scale widens the precision to scale 0); 0 when not one.
 */
static int32_t whole_decimal_precision(const char *s, size_t len)
{
    text_big_decimal d;
    int64_t precision;
    if (!text_big_decimal_parse(s, len, &d) || d.scale > 0)
        return 0;
    precision = (int64_t)d.precision - d.scale;
    return precision >= 1 && precision <= 38 ? (int32_t)precision : 0;
}

/* Spark's partition timestamp pattern "yyyy-MM-dd HH:mm:ss[.S]". */
static int timestamp_shape(const char *s)
{
    static const char shape[] = "dddd-dd-dd dd:dd:dd";
    size_t idx, len = strlen(s);
    if (len != 19 && len != 21)
        return 0;
    for (idx = 0; idx < 19; idx++)
        if (shape[idx] == 'd' ? !isdigit((unsigned char)s[idx]) : s[idx] != shape[idx])
            return 0;
    return len == 19 || (s[19] == '.' && isdigit((unsigned char)s[20]));
}

/* Spark's partition date pattern "yyyy-MM-dd", parsed whole. */
static int date_shape(const char *s)
{
    static const char shape[] = "dddd-dd-dd";
    size_t idx;
    if (strlen(s) != 10)
        return 0;
    for (idx = 0; idx < 10; idx++)
        if (shape[idx] == 'd' ? !isdigit((unsigned char)s[idx]) : s[idx] != shape[idx])
            return 0;
    return 1;
}

typedef struct part_type {
    col_type_id id; /* COL_NULL for __HIVE_DEFAULT_PARTITION__ */
    int32_t precision;
} part_type;

static part_type infer_value(arena *a, const char *raw, int infer, const time_zone *zone)
{
    part_type t = {COL_STRING, 0};
    size_t len = strlen(raw);
    int64_t lv;
    double dv;
    int32_t days;
    if (strcmp(raw, TF_DEFAULT_PARTITION) == 0) {
        t.id = COL_NULL;
        return t;
    }
    if (!infer)
        return t;
    if (java_parse_long(raw, len, INT32_MIN, INT32_MAX, &lv))
        t.id = COL_INT;
    else if (java_parse_long(raw, len, INT64_MIN, INT64_MAX, &lv))
        t.id = COL_LONG;
    else if ((t.precision = whole_decimal_precision(raw, len)) > 0)
        t.id = COL_DECIMAL;
    else if (java_parse_double(raw, len, &dv))
        t.id = COL_DOUBLE;
    else {
        const char *plain = unescape(a, raw, len);
        int64_t ts;
        if (plain != NULL && timestamp_shape(plain) &&
            time_string_to_timestamp(plain, strlen(plain), zone, 0, &ts))
            t.id = COL_TIMESTAMP;
        else if (date_shape(raw) && time_string_to_date(raw, len, &days))
            t.id = COL_DATE;
    }
    return t;
}

/* Spark's findWiderTypeForPartitionColumn over the inferred types. */
static part_type wider(part_type x, part_type y)
{
    part_type str = {COL_STRING, 0};
    if (x.id == COL_NULL)
        return y;
    if (y.id == COL_NULL || (x.id == y.id && x.id != COL_DECIMAL))
        return x;
    if (x.id == COL_STRING || y.id == COL_STRING)
        return str;
    if (x.id == COL_DECIMAL || y.id == COL_DECIMAL) {
        part_type d = x.id == COL_DECIMAL ? x : y, o = x.id == COL_DECIMAL ? y : x;
        int32_t p = o.id == COL_DECIMAL ? o.precision : o.id == COL_INT ? 10 : o.id == COL_LONG ? 20 : -1;
        if (p < 0)
            return str; /* with a double (no precision loss allowed), a date, a timestamp */
        d.precision = d.precision > p ? d.precision : p;
        return d;
    }
    if ((x.id == COL_INT && y.id == COL_LONG) || (x.id == COL_LONG && y.id == COL_INT))
        return (part_type){COL_LONG, 0};
    if ((x.id == COL_INT && y.id == COL_DOUBLE) || (x.id == COL_DOUBLE && y.id == COL_INT))
        return (part_type){COL_DOUBLE, 0};
    if ((x.id == COL_DATE && y.id == COL_TIMESTAMP) || (x.id == COL_TIMESTAMP && y.id == COL_DATE))
        return (part_type){COL_TIMESTAMP, 0};
    return str;
}

/* Spark's castPartValueToDesiredType: raw of a folder name as a value of t. */
static silt_status append_value(col_builder *bld, arena *a, const col_type *t, const char *raw,
                                const time_zone *zone, silt_error *err)
{
    size_t len = strlen(raw);
    int64_t lv = 0;
    double dv = 0;
    int32_t days = 0;
    col_int128 dec = 0;
    const char *plain;
    if (strcmp(raw, TF_DEFAULT_PARTITION) == 0)
        return col_builder_append_null(bld, err);
    switch (t->id) {
    case COL_INT:
    case COL_LONG:
        java_parse_long(raw, len, INT64_MIN, INT64_MAX, &lv);
        return col_builder_append_int(bld, lv, err);
    case COL_DOUBLE:
        java_parse_double(raw, len, &dv);
        return col_builder_append_double(bld, dv, err);
    case COL_DECIMAL:
        text_parse_decimal(raw, len, 38, 0, &dec);
        return col_builder_append_decimal(bld, dec, err);
    case COL_DATE:
        if (!time_string_to_date(raw, len, &days))
            return col_builder_append_null(bld, err);
        return col_builder_append_int(bld, days, err);
    case COL_TIMESTAMP:
        plain = unescape(a, raw, len);
        if (plain == NULL)
            return err_nomem(err);
        if (time_string_to_timestamp(plain, strlen(plain), zone, 0, &lv))
            return col_builder_append_int(bld, lv, err);
        if (!time_string_to_date(raw, len, &days))
            return col_builder_append_null(bld, err);
        /* a date of a timestamp column: its midnight in the session time zone */
        time_string_to_timestamp(raw, len, zone, 0, &lv);
        return col_builder_append_int(bld, lv, err);
    default:
        plain = unescape(a, raw, len);
        if (plain == NULL)
            return err_nomem(err);
        return col_builder_append_bytes(bld, plain, strlen(plain), err);
    }
}

/* ---------------------------------------------------------------- listing */

typedef struct tf_file {
    const char *key;
    const char *root; /* the folder the file's walk stops at (a base path) */
    /* the walk's partition folders, top first */
    size_t n_cols;
    const char **names; /* unescaped */
    const char **raws;
    const char *found_base; /* the base the walk discovered */
} tf_file;

typedef struct tf_list {
    tf_file *files;
    size_t n, cap;
} tf_list;

static silt_status add_file(arena *a, tf_list *l, const char *key, const char *root,
                            silt_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        tf_file *grown = arena_realloc(a, l->files, l->cap * sizeof(tf_file), cap * sizeof(tf_file));
        if (grown == NULL)
            return err_nomem(err);
        l->files = grown;
        l->cap = cap;
    }
    memset(&l->files[l->n], 0, sizeof(tf_file));
    l->files[l->n].key = arena_strdup(a, key);
    l->files[l->n].root = root;
    if (l->files[l->n].key == NULL)
        return err_nomem(err);
    l->n++;
    return SILT_OK;
}

static const char *parent_of(arena *a, const char *key)
{
    const char *slash = strrchr(key, '/');
    return slash == NULL ? "" : arena_strndup(a, key, (size_t)(slash - key));
}

static int name_matches(const text_files_options *o, const char *key)
{
    const char *slash = strrchr(key, '/'), *name = slash ? slash + 1 : key;
    return o->glob_filter == NULL ||
           text_glob_match(o->glob_filter, strlen(o->glob_filter), name, strlen(name));
}

static int has_wildcard(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* The keys below the glob's wildcard-free folder whose first segments match it (files or folders). */
static silt_status list_glob(io_store *store, const char *path, const text_files_options *o,
                             arena *a, tf_list *l, silt_error *err)
{
    io_listing listing = IO_LISTING_INIT;
    size_t path_len = strlen(path), base_len = 0, depth = 1, idx;
    silt_status rc;
    char *prefix;
    for (idx = 0; idx < path_len; idx++) {
        if (path[idx] == '*' || path[idx] == '?' || path[idx] == '[')
            break;
        if (path[idx] == '/')
            base_len = idx + 1;
    }
    for (idx = base_len; idx < path_len; idx++)
        depth += path[idx] == '/';
    prefix = arena_strndup(a, path, base_len);
    if (prefix == NULL)
        return err_nomem(err);
    rc = io_list(store, prefix, NULL, 1, &listing, err);
    for (idx = 0; rc == SILT_OK && idx < listing.count; idx++) {
        const char *key = listing.items[idx].key;
        size_t cut = base_len, seg = 0;
        const char *root;
        if (hidden_below(key, base_len) || !name_matches(o, key))
            continue;
        if (strstr(path + base_len, "**") != NULL) {
            /* Synapse's ** crosses folders: it matches files, each its own root */
            if (text_glob_match(path, path_len, key, strlen(key))) {
                const char *dir = parent_of(a, key);
                rc = dir == NULL ? err_nomem(err) : add_file(a, l, key, dir, err);
            }
            continue;
        }
        /* the key's first `depth` segments after the prefix */
        while (seg < depth) {
            const char *slash = strchr(key + cut, '/');
            if (slash == NULL) {
                cut = strlen(key);
                seg++;
                break;
            }
            cut = (size_t)(slash - key) + 1;
            seg++;
        }
        if (seg < depth)
            continue;
        if (cut < strlen(key))
            cut--; /* a folder: without its slash */
        if (!text_glob_match(path, path_len, key, cut))
            continue;
        root = cut == strlen(key) ? parent_of(a, key) : arena_strndup(a, key, cut);
        if (root == NULL)
            rc = err_nomem(err);
        else
            rc = add_file(a, l, key, root, err);
    }
    io_listing_clear(&listing);
    return rc;
}

static silt_status list_files(io_store *store, const char *path, const text_files_options *o,
                              arena *a, tf_list *l, silt_error *err)
{
    io_listing listing = IO_LISTING_INIT;
    io_object_info info = {0};
    silt_status rc = SILT_OK;
    size_t idx;
    if (has_wildcard(path))
        return list_glob(store, path, o, a, l, err);
    if (path[0] != '\0' && io_head(store, path, &info, NULL) == SILT_OK) {
        io_object_info_clear(&info);
        return add_file(a, l, path, parent_of(a, path), err);
    }
    {
        char *prefix = path[0] ? arena_sprintf(a, "%s/", path) : arena_strdup(a, "");
        if (prefix == NULL)
            return err_nomem(err);
        rc = io_list(store, prefix, NULL, 1, &listing, err);
        for (idx = 0; rc == SILT_OK && idx < listing.count; idx++) {
            const char *key = listing.items[idx].key;
            if (!hidden_below(key, strlen(prefix)) && name_matches(o, key))
                rc = add_file(a, l, key, path, err);
        }
    }
    io_listing_clear(&listing);
    return rc;
}

/* ---------------------------------------------------------------- partitions */

/* The base folders (a set: a glob may give thousands of roots). */
static int is_base(const char *dir, const hashmap *bases)
{
    return hashmap_get(bases, dir, strlen(dir) + 1, NULL); /* with the NUL: "" is a key too */
}

/* Spark's parsePartition over the folders of f, from its own up to a base. */
static silt_status parse_file(arena *a, tf_file *f, const hashmap *bases, silt_error *err)
{
    const char *leaf = parent_of(a, f->key), *cur = leaf;
    const char *names[64], *raws[64];
    size_t n = 0;
    if (leaf == NULL)
        return err_nomem(err);
    for (;;) {
        const char *slash, *seg, *eq;
        if (is_base(cur, bases))
            break;
        slash = strrchr(cur, '/');
        seg = slash ? slash + 1 : cur;
        eq = strchr(seg, '=');
        if (eq == NULL && n > 0)
            break;
        if (eq != NULL) {
            if (eq == seg || eq[1] == '\0')
                return err_set(err, SILT_INVALID, "partition folder \"%s\" has an empty %s",
                               cur, eq == seg ? "column name" : "value");
            if (n == 64)
                return err_set(err, SILT_UNSUPPORTED, "more than 64 partition folders in \"%s\"",
                               f->key);
            names[n] = unescape(a, seg, (size_t)(eq - seg));
            raws[n] = arena_strdup(a, eq + 1);
            if (names[n] == NULL || raws[n] == NULL)
                return err_nomem(err);
            n++;
        }
        if (cur[0] == '\0')
            break;
        cur = parent_of(a, cur);
        if (cur == NULL)
            return err_nomem(err);
    }
    f->found_base = n == 0 ? leaf : cur;
    f->n_cols = n;
    f->names = arena_calloc(a, n + 1, sizeof(char *));
    f->raws = arena_calloc(a, n + 1, sizeof(char *));
    if (f->names == NULL || f->raws == NULL)
        return err_nomem(err);
    for (size_t idx = 0; idx < n; idx++) { /* top folder first */
        f->names[idx] = names[n - 1 - idx];
        f->raws[idx] = raws[n - 1 - idx];
    }
    return SILT_OK;
}

static const char *display_path(arena *a, io_store *store, const char *key)
{
    const char *root = io_store_root(store);
    const char *scheme = root[0] == '/' ? "file:" : "";
    if (key[0] == '\0')
        return arena_sprintf(a, "%s%s", scheme, root);
    return arena_sprintf(a, "%s%s/%s", scheme, root, key);
}

static silt_status conflicting_bases(arena *a, io_store *store, const tf_list *l, silt_error *err)
{
    buf list = BUF_INIT;
    silt_status rc;
    const char *seen[8];
    size_t n_seen = 0;
    for (size_t idx = 0; idx < l->n && n_seen < 8; idx++) {
        size_t k;
        for (k = 0; k < n_seen && util_str_casecmp(seen[k], l->files[idx].found_base) != 0; k++)
            ;
        if (k == n_seen) {
            seen[n_seen++] = l->files[idx].found_base;
            buf_printf(&list, NULL, "\n\t%s", display_path(a, store, l->files[idx].found_base));
        }
    }
    rc = err_set(err, SILT_INVALID, "[CONFLICTING_DIRECTORY_STRUCTURES] Conflicting directory "
                 "structures detected.\nSuspicious paths:\n%s\n\nIf provided paths are "
                 "partition directories, please set \"basePath\" in the options of the data "
                 "source to specify the root directory of the table.\nIf there are multiple root "
                 "directories, please load them separately and then union them.",
                 list.data ? buf_cstr(&list) : "");
    buf_clear(&list);
    return rc;
}

static silt_status conflicting_names(arena *a, io_store *store, const tf_file *x,
                                     const tf_file *y, silt_error *err)
{
    buf lists = BUF_INIT;
    silt_status rc;
    const tf_file *two[2] = {x, y};
    for (size_t k = 0; k < 2; k++) {
        buf_printf(&lists, NULL, "%s\tPartition column name list #%zu: ", k ? "\n" : "", k);
        for (size_t idx = 0; idx < two[k]->n_cols; idx++)
            buf_printf(&lists, NULL, "%s%s", idx ? ", " : "", two[k]->names[idx]);
    }
    rc = err_set(err, SILT_INVALID, "[CONFLICTING_PARTITION_COLUMN_NAMES] Conflicting partition "
                 "column names detected:\n\n%s\n\nFor partitioned table directories, data files "
                 "should only live in leaf directories.\nAnd directories at the same level should "
                 "have the same partition column name.\nPlease check the following directories "
                 "for unexpected files or inconsistent partition column names:\n\n\t%s\n\t%s",
                 lists.data ? buf_cstr(&lists) : "",
                 display_path(a, store, parent_of(a, x->key)),
                 display_path(a, store, parent_of(a, y->key)));
    buf_clear(&lists);
    return rc;
}

static int same_names(const tf_file *x, const tf_file *y)
{
    if (x->n_cols != y->n_cols)
        return 0;
    for (size_t idx = 0; idx < x->n_cols; idx++)
        if (util_str_casecmp(x->names[idx], y->names[idx]) != 0)
            return 0;
    return 1;
}

/* The partition schema and values of the files that have partition folders (others dropped). */
static silt_status resolve_partitions(arena *a, io_store *store, tf_list *l,
                                      const text_files_options *o, text_files *out,
                                      silt_error *err)
{
    const tf_file *first = NULL;
    size_t idx, col, n_kept = 0;
    col_field *fields;
    part_type *types;
    for (idx = 0; idx < l->n; idx++) {
        if (util_str_casecmp(l->files[idx].found_base, l->files[0].found_base) != 0)
            return conflicting_bases(a, store, l, err);
        if (l->files[idx].n_cols == 0)
            continue;
        if (first == NULL)
            first = &l->files[idx];
        else if (!same_names(first, &l->files[idx]))
            return conflicting_names(a, store, first, &l->files[idx], err);
    }
    types = arena_calloc(a, first->n_cols, sizeof(part_type));
    fields = arena_calloc(a, first->n_cols, sizeof(col_field));
    out->values = arena_calloc(a, first->n_cols, sizeof(col_vec *));
    out->keys = arena_calloc(a, l->n + 1, sizeof(char *));
    if (types == NULL || fields == NULL || out->values == NULL || out->keys == NULL)
        return err_nomem(err);
    for (col = 0; col < first->n_cols; col++) {
        types[col].id = COL_NULL;
        for (idx = 0; idx < l->n; idx++)
            if (l->files[idx].n_cols > 0)
                types[col] = wider(types[col], infer_value(a, l->files[idx].raws[col],
                                                           o->infer_types, o->zone));
        fields[col].name = first->names[col];
        fields[col].nullable = 1;
        fields[col].field_id = -1;
        fields[col].type = types[col].id == COL_DECIMAL
                               ? col_type_decimal(a, types[col].precision, 0)
                               : col_type_primitive(types[col].id);
        if (fields[col].type == NULL)
            return err_nomem(err);
    }
    for (col = 0; col < first->n_cols; col++) {
        col_builder *bld;
        if (types[col].id == COL_NULL) { /* Spark's void column: every value null */
            SILT_RETURN_IF_ERROR(col_vec_new_nulls(&out->values[col], a, fields[col].type,
                                                   (int64_t)l->n, err));
            continue;
        }
        SILT_RETURN_IF_ERROR(col_builder_new(&bld, a, fields[col].type, err));
        for (idx = 0; idx < l->n; idx++)
            if (l->files[idx].n_cols > 0)
                SILT_RETURN_IF_ERROR(append_value(bld, a, fields[col].type,
                                                  l->files[idx].raws[col], o->zone, err));
        SILT_RETURN_IF_ERROR(col_builder_finish(bld, &out->values[col], err));
    }
    for (idx = 0; idx < l->n; idx++)
        if (l->files[idx].n_cols > 0)
            out->keys[n_kept++] = (char *)l->files[idx].key;
    out->n_keys = n_kept;
    out->parts = col_type_struct(a, first->n_cols, fields);
    return out->parts != NULL ? SILT_OK : err_nomem(err);
}

static int cmp_files(const void *x, const void *y)
{
    return strcmp(((const tf_file *)x)->key, ((const tf_file *)y)->key);
}

silt_status text_files_discover(io_store *store, const char *path, const text_files_options *o,
                                arena *a, text_files *out, silt_error *err)
{
    tf_list l = {NULL, 0, 0};
    size_t len = strlen(path), idx;
    hashmap bases = HASHMAP_INIT;
    silt_status rc = SILT_OK;
    char *clean;
    int partitioned = 0;
    memset(out, 0, sizeof(*out));
    while (len > 0 && path[len - 1] == '/')
        len--;
    clean = arena_strndup(a, path, len);
    if (clean == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(list_files(store, clean, o, a, &l, err));
    if (l.n == 0)
        return err_set(err, SILT_NOTFOUND, "path \"%s\" matches no files", path);
    qsort(l.files, l.n, sizeof(tf_file), cmp_files);
    if (o->base_key != NULL) {
        rc = hashmap_put(&bases, o->base_key, strlen(o->base_key) + 1, NULL, NULL, err);
    } else {
        for (idx = 0; rc == SILT_OK && idx < l.n; idx++)
            if (!is_base(l.files[idx].root, &bases))
                rc = hashmap_put(&bases, l.files[idx].root, strlen(l.files[idx].root) + 1, NULL,
                                 NULL, err);
    }
    for (idx = 0; rc == SILT_OK && !o->recursive_lookup && idx < l.n; idx++) {
        rc = parse_file(a, &l.files[idx], &bases, err);
        partitioned |= l.files[idx].n_cols > 0;
    }
    hashmap_clear(&bases);
    SILT_RETURN_IF_ERROR(rc);
    if (partitioned)
        return resolve_partitions(a, store, &l, o, out, err);
    out->keys = arena_calloc(a, l.n + 1, sizeof(char *));
    if (out->keys == NULL)
        return err_nomem(err);
    /* Unpartitioned, Spark reads the files directly in the roots only (all with recursiveFileLookup). */
    for (idx = 0; idx < l.n; idx++) {
        const char *dir = parent_of(a, l.files[idx].key);
        if (dir == NULL)
            return err_nomem(err);
        if (o->recursive_lookup || strcmp(dir, l.files[idx].root) == 0)
            out->keys[out->n_keys++] = (char *)l.files[idx].key;
    }
    if (out->n_keys == 0)
        return err_set(err, SILT_NOTFOUND, "path \"%s\" matches no files (its files are in "
                       "folders that are not partition folders: recursiveFileLookup reads them)",
                       path);
    return SILT_OK;
}

silt_status text_files_fill(col_vec **out, arena *a, const text_files *f, size_t col,
                            size_t key_idx, int64_t n_rows, silt_error *err)
{
    const col_vec *src = f->values[col];
    const col_type *t = f->parts->fields[col].type;
    col_vec *v;
    size_t width;
    if (col_vec_is_null(src, (int64_t)key_idx))
        return col_vec_new_nulls(out, a, t, n_rows, err);
    if (t->id == COL_STRING) {
        /* one-entry dictionary: the int32 indices are all zero */
        col_vec *dict;
        int32_t len;
        const char *s = col_vec_str(src, (int64_t)key_idx, &len);
        SILT_RETURN_IF_ERROR(col_vec_new(&dict, a, t, 1, 0, err));
        SILT_RETURN_IF_ERROR(col_vec_alloc_data(dict, a, len, err));
        memcpy(dict->data, s, (size_t)len);
        dict->offsets[1] = len;
        SILT_RETURN_IF_ERROR(col_vec_new(&v, a, col_type_primitive(COL_INT), n_rows, 0, err));
        v->type = t;
        v->dictionary = dict;
        *out = v;
        return SILT_OK;
    }
    width = col_type_value_width(t->id);
    SILT_RETURN_IF_ERROR(col_vec_new(&v, a, t, n_rows, 0, err));
    for (int64_t row = 0; row < n_rows; row++)
        memcpy((char *)v->values + (size_t)row * width,
               (const char *)src->values + key_idx * width, width);
    *out = v;
    return SILT_OK;
}
