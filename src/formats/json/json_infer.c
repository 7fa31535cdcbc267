/*
 * json_infer.c - Spark's JSON schema inference (JsonInferSchema).
 *
 * Types are merged in place: each record is folded into the running root
 * struct straight from the tape, so inference allocates only when a new
 * field or a wider type appears. The merge rules are compatibleType's:
 * null merges into anything; long+double = double; long+decimal widens the
 * decimal (long is decimal(20,0)); decimal+double = double; two decimals
 * keep the larger integer range and scale (double beyond 38 digits);
 * structs merge field by field; arrays merge their elements; anything else
 * becomes string. canonicalizeType then turns null into string and drops
 * empty structs and fields with empty names.
 */
#include <string.h>

#include "formats/json/json_int.h"
#include "util/buf.h"
#include "util/hashmap.h"
#include "util/mem.h"
#include "util/time.h"

silt_status json_infer_init(json_infer *inf, arena *a, const json_options *opts, silt_error *err)
{
    memset(inf, 0, sizeof(*inf));
    inf->a = a;
    inf->opts = opts;
    inf->plain_strings = !opts->prefers_decimal && !opts->infer_timestamp;
    inf->plain_ints = !opts->primitives_as_string;
    buf_init(&inf->scratch, 0);
    inf->root = arena_calloc(a, 1, sizeof(jtype));
    if (inf->root == NULL)
        return err_nomem(err);
    inf->root->kind = JK_STRUCT;
    return SILT_OK;
}

void json_infer_clear(json_infer *inf) { buf_clear(&inf->scratch); }

static jtype *new_type(arena *a, jkind kind)
{
    jtype *t = arena_calloc(a, 1, sizeof(jtype));
    if (t != NULL)
        t->kind = kind;
    return t;
}

/* Binary search for a field; returns its index or the insertion point with *found 0. */
static size_t find_field(const jtype *st, const char *name, size_t len, int *found)
{
    size_t lo = 0, hi = st->n_fields;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const jfield *f = &st->fields[mid];
        size_t n = f->name_len < len ? f->name_len : len;
        int cmp = memcmp(f->name, name, n);
        if (cmp == 0)
            cmp = f->name_len < len ? -1 : f->name_len > len ? 1 : 0;
        if (cmp == 0) {
            *found = 1;
            return mid;
        }
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

static silt_status field_slot(arena *a, jtype *st, const char *name, size_t len, jtype ***out,
                              jfield **field_out, silt_error *err)
{
    int found;
    size_t pos = find_field(st, name, len, &found);
    if (!found) {
        if (st->n_fields == st->cap_fields) {
            size_t cap = st->cap_fields ? st->cap_fields * 2 : 8;
            jfield *grown = arena_realloc(a, st->fields, st->cap_fields * sizeof(jfield),
                                          cap * sizeof(jfield));
            if (grown == NULL)
                return err_nomem(err);
            st->fields = grown;
            st->cap_fields = cap;
        }
        memmove(&st->fields[pos + 1], &st->fields[pos], (st->n_fields - pos) * sizeof(jfield));
        st->n_fields++;
        st->fields[pos].name = arena_strndup(a, name, len);
        st->fields[pos].name_len = len;
        st->fields[pos].seen_in = 0;
        st->fields[pos].type = new_type(a, JK_NULL);
        if (st->fields[pos].name == NULL || st->fields[pos].type == NULL)
            return err_nomem(err);
    }
    *out = &st->fields[pos].type;
    if (field_out != NULL)
        *field_out = &st->fields[pos];
    return SILT_OK;
}

/*
 * field_slot for the key at member position `member` of an object: tries
 * the field that position named last time before searching. A stale hint
 * (fields inserted since) fails the name check and falls back.
 */
static silt_status field_slot_hinted(arena *a, jtype *st, uint32_t member, const char *name,
                                     size_t len, jtype ***out, jfield **field_out,
                                     silt_error *err)
{
    if (member < JSON_INFER_HINTS && st->hints != NULL) {
        uint32_t fi = st->hints[member];
        if (fi < st->n_fields && st->fields[fi].name_len == len &&
            mem_eq(st->fields[fi].name, name, len)) {
            *out = &st->fields[fi].type;
            *field_out = &st->fields[fi];
            return SILT_OK;
        }
    }
    SILT_RETURN_IF_ERROR(field_slot(a, st, name, len, out, field_out, err));
    if (member < JSON_INFER_HINTS) {
        if (st->hints == NULL) {
            st->hints = arena_calloc(a, JSON_INFER_HINTS, sizeof(uint32_t));
            if (st->hints == NULL)
                return err_nomem(err);
        }
        st->hints[member] = (uint32_t)(*field_out - st->fields);
    }
    return SILT_OK;
}

static int is_numeric(jkind k) { return k == JK_LONG || k == JK_DECIMAL || k == JK_DOUBLE; }

/* Merges a primitive kind into *slot (compatibleType for primitives). */
static void merge_primitive(jtype *slot, jkind kind, int32_t precision, int32_t scale)
{
    if (slot->kind == JK_NULL) {
        slot->kind = kind;
        slot->precision = precision;
        slot->scale = scale;
        return;
    }
    if (kind == JK_NULL || (slot->kind == kind && kind != JK_DECIMAL))
        return;
    if (is_numeric(slot->kind) && is_numeric(kind)) {
        if (slot->kind == JK_DOUBLE || kind == JK_DOUBLE) {
            slot->kind = JK_DOUBLE;
            return;
        }
        int32_t p1 = slot->kind == JK_LONG ? 20 : slot->precision;
        int32_t s1 = slot->kind == JK_LONG ? 0 : slot->scale;
        int32_t p2 = kind == JK_LONG ? 20 : precision, s2 = kind == JK_LONG ? 0 : scale;
        int32_t sc = s1 > s2 ? s1 : s2;
        int32_t r1 = p1 - s1, r2 = p2 - s2, range = r1 > r2 ? r1 : r2;
        if (slot->kind == JK_DECIMAL && kind == JK_LONG && r1 >= 20)
            return; /* the decimal already holds every long */
        if (range + sc > 38) {
            slot->kind = JK_DOUBLE;
        } else {
            slot->kind = JK_DECIMAL;
            slot->precision = range + sc;
            slot->scale = sc;
        }
        return;
    }
    slot->kind = JK_STRING;
    slot->fields = NULL;
    slot->n_fields = slot->cap_fields = 0;
    slot->elem = NULL;
}

static silt_status fold(json_infer *inf, jtype *slot, const json_tape *t, size_t idx,
                        silt_error *err);

/*
 * prefersDecimal: folds a number's text as decimal(p, s) when it is one
 * with a scale >= 0 and at most 38 digits; returns 0 (nothing folded)
 * otherwise.
 */
static int fold_decimal(jtype *slot, const jtok *tok)
{
    text_big_decimal d;
    if (text_big_decimal_parse(tok->ptr, tok->len, &d) && d.scale >= 0) {
        int32_t p = d.precision > d.scale ? d.precision : (int32_t)d.scale;
        if (p <= 38) {
            merge_primitive(slot, JK_DECIMAL, p, (int32_t)d.scale);
            return 1;
        }
    }
    return 0;
}

static silt_status fold_number(json_infer *inf, jtype *slot, const jtok *tok)
{
    if (inf->opts->primitives_as_string) {
        merge_primitive(slot, JK_STRING, 0, 0);
        return SILT_OK;
    }
    if (tok->kind == JT_INT) {
        int64_t v;
        /* the tape holds [-]digits: up to 18 digits always fit a long */
        size_t n_digits = tok->len - (tok->len > 0 && tok->ptr[0] == '-');
        if (n_digits <= 18 || util_str_to_int64(tok->ptr, tok->len, &v)) {
            merge_primitive(slot, JK_LONG, 0, 0);
        } else {
            size_t digits = tok->len - (tok->ptr[0] == '-');
            if (digits <= 38)
                merge_primitive(slot, JK_DECIMAL, (int32_t)digits, 0);
            else
                merge_primitive(slot, JK_DOUBLE, 0, 0);
        }
        return SILT_OK;
    }
    if (inf->opts->prefers_decimal && fold_decimal(slot, tok))
        return SILT_OK;
    merge_primitive(slot, JK_DOUBLE, 0, 0);
    return SILT_OK;
}

/* With prefersDecimal a numeric string infers a decimal, and with
 * inferTimestamp a timestamp string infers timestamp (JsonInferSchema). */
static silt_status fold_string(json_infer *inf, jtype *slot, const jtok *tok)
{
    if (!tok->escaped && inf->opts->prefers_decimal && fold_decimal(slot, tok))
        return SILT_OK;
    if (!tok->escaped && inf->opts->infer_timestamp && tok->len > 0 &&
        tok->ptr[tok->len - 1] != 'T') {
        int64_t micros;
        int ok = inf->ts_pattern != NULL
                     ? text_dt_parse_timestamp(inf->ts_pattern, tok->ptr, tok->len, &micros)
                     : time_parse_timestamp(tok->ptr, tok->len, &micros, NULL);
        if (ok) {
            merge_primitive(slot, JK_TIMESTAMP, 0, 0);
            return SILT_OK;
        }
    }
    merge_primitive(slot, JK_STRING, 0, 0);
    return SILT_OK;
}

/*
 * Whether folding tok into slot would change nothing, for the values of
 * most records: a plain string where a string was (no option that reads
 * strings), a short integer where a long was, a null. Saves the call.
 */
static inline int fold_unchanged(const json_infer *inf, const jtype *slot, const jtok *tok)
{
    if (tok->kind == JT_NULL)
        return 1;
    if (tok->kind == JT_STRING)
        return slot->kind == JK_STRING && inf->plain_strings;
    if (tok->kind == JT_INT)
        return slot->kind == JK_LONG && tok->len <= 18 && inf->plain_ints;
    return 0;
}

static silt_status fold_object(json_infer *inf, jtype *slot, const json_tape *t, size_t idx,
                               silt_error *err)
{
    const jtok *tok = &t->toks[idx];
    if (slot->kind == JK_NULL)
        slot->kind = JK_STRUCT;
    else if (slot->kind != JK_STRUCT) {
        merge_primitive(slot, JK_STRING, 0, 0);
        return SILT_OK;
    }
    size_t pos = idx + 1;
    for (uint32_t member = 0; member < tok->count; member++) {
        const jtok *key = &t->toks[pos];
        const char *name = key->ptr;
        size_t name_len = key->len;
        jtype **field;
        if (key->escaped || (!key->ascii && !text_utf8_valid(key->ptr, key->len))) {
            buf_truncate(&inf->scratch, 0);
            if (key->escaped)
                SILT_RETURN_IF_ERROR(json_unescape(key->ptr, key->len, &inf->scratch, err));
            else
                SILT_RETURN_IF_ERROR(text_utf8_repair(key->ptr, key->len, &inf->scratch, err));
            name = inf->scratch.data ? inf->scratch.data : "";
            name_len = inf->scratch.len;
        }
        jfield *entry;
        SILT_RETURN_IF_ERROR(
            field_slot_hinted(inf->a, slot, member, name, name_len, &field, &entry, err));
        if (slot == inf->root) {
            /* Spark infers both copies of a repeated key and then refuses
             * the schema (COLUMN_ALREADY_EXISTS); remember it to do the same. */
            if (entry->seen_in == inf->n_records && inf->dup_name == NULL)
                inf->dup_name = entry->name;
            entry->seen_in = inf->n_records;
        }
        if (!fold_unchanged(inf, *field, &t->toks[pos + 1]))
            SILT_RETURN_IF_ERROR(fold(inf, *field, t, pos + 1, err));
        pos = t->toks[pos + 1].next;
    }
    return SILT_OK;
}

/*
 * Makes slot an array to fold an array into: a null slot becomes an array
 * of nulls; any other kind conflicts and becomes a string (*is_array = 0).
 */
static silt_status slot_as_array(json_infer *inf, jtype *slot, int *is_array, silt_error *err)
{
    *is_array = 1;
    if (slot->kind == JK_NULL) {
        slot->kind = JK_ARRAY;
        slot->elem = new_type(inf->a, JK_NULL);
        if (slot->elem == NULL)
            return err_nomem(err);
    } else if (slot->kind != JK_ARRAY) {
        merge_primitive(slot, JK_STRING, 0, 0);
        *is_array = 0;
    }
    return SILT_OK;
}

static silt_status fold(json_infer *inf, jtype *slot, const json_tape *t, size_t idx,
                        silt_error *err)
{
    const jtok *tok = &t->toks[idx];
    int is_array;
    switch (tok->kind) {
    case JT_NULL:
        return SILT_OK;
    case JT_STRING:
        /* the common case, a string where a string was: nothing changes */
        if (slot->kind == JK_STRING && !inf->opts->prefers_decimal && !inf->opts->infer_timestamp)
            return SILT_OK;
        return fold_string(inf, slot, tok);
    case JT_TRUE:
    case JT_FALSE:
        merge_primitive(slot, inf->opts->primitives_as_string ? JK_STRING : JK_BOOLEAN, 0, 0);
        return SILT_OK;
    case JT_INT:
    case JT_FLOAT:
        return fold_number(inf, slot, tok);
    case JT_OBJECT:
        return fold_object(inf, slot, t, idx, err);
    default: /* JT_ARRAY */
        SILT_RETURN_IF_ERROR(slot_as_array(inf, slot, &is_array, err));
        if (!is_array)
            return SILT_OK;
        for (size_t pos = idx + 1; pos < tok->next; pos = t->toks[pos].next)
            SILT_RETURN_IF_ERROR(fold(inf, slot->elem, t, pos, err));
        return SILT_OK;
    }
}

silt_status json_infer_record(json_infer *inf, const json_tape *t, silt_error *err)
{
    const jtok *top = &t->toks[0];
    if (top->kind == JT_OBJECT) {
        inf->n_records++;
        return fold_object(inf, inf->root, t, 0, err);
    }
    if (top->kind == JT_ARRAY) {
        for (size_t pos = 1; pos < top->next; pos = t->toks[pos].next) {
            inf->n_records++;
            if (t->toks[pos].kind == JT_OBJECT)
                SILT_RETURN_IF_ERROR(fold_object(inf, inf->root, t, pos, err));
            else if (t->toks[pos].kind != JT_NULL)
                inf->saw_corrupt = 1;
        }
        return SILT_OK;
    }
    if (top->kind != JT_NULL)
        inf->saw_corrupt = 1; /* a scalar is not a row */
    return SILT_OK;
}

/* Merges type src (from another arena) into *slot. */
static silt_status merge_type(json_infer *inf, jtype *slot, const jtype *src, silt_error *err)
{
    if (src->kind == JK_STRUCT) {
        if (slot->kind == JK_NULL)
            slot->kind = JK_STRUCT;
        else if (slot->kind != JK_STRUCT) {
            merge_primitive(slot, JK_STRING, 0, 0);
            return SILT_OK;
        }
        for (size_t idx = 0; idx < src->n_fields; idx++) {
            jtype **field;
            SILT_RETURN_IF_ERROR(field_slot(inf->a, slot, src->fields[idx].name,
                                            src->fields[idx].name_len, &field, NULL, err));
            SILT_RETURN_IF_ERROR(merge_type(inf, *field, src->fields[idx].type, err));
        }
        return SILT_OK;
    }
    if (src->kind == JK_ARRAY) {
        int is_array;
        SILT_RETURN_IF_ERROR(slot_as_array(inf, slot, &is_array, err));
        return is_array ? merge_type(inf, slot->elem, src->elem, err) : SILT_OK;
    }
    if (slot->kind == JK_STRUCT || slot->kind == JK_ARRAY) {
        if (src->kind != JK_NULL)
            merge_primitive(slot, JK_STRING, 0, 0);
        return SILT_OK;
    }
    merge_primitive(slot, src->kind, src->precision, src->scale);
    return SILT_OK;
}

silt_status json_infer_merge(json_infer *inf, const json_infer *other, silt_error *err)
{
    inf->saw_corrupt |= other->saw_corrupt;
    if (inf->dup_name == NULL && other->dup_name != NULL) {
        inf->dup_name = arena_strdup(inf->a, other->dup_name);
        if (inf->dup_name == NULL)
            return err_nomem(err);
    }
    return merge_type(inf, inf->root, other->root, err);
}

/* canonicalizeType: NULL out means "drop this field". */
static silt_status to_col_type(const jtype *t, int drop_null, arena *a, const col_type **out,
                               silt_error *err)
{
    *out = NULL;
    switch (t->kind) {
    case JK_NULL:
        if (!drop_null)
            *out = col_type_primitive(COL_STRING);
        return SILT_OK;
    case JK_STRING: *out = col_type_primitive(COL_STRING); return SILT_OK;
    case JK_BOOLEAN: *out = col_type_primitive(COL_BOOLEAN); return SILT_OK;
    case JK_LONG: *out = col_type_primitive(COL_LONG); return SILT_OK;
    case JK_DOUBLE: *out = col_type_primitive(COL_DOUBLE); return SILT_OK;
    case JK_TIMESTAMP: *out = col_type_primitive(COL_TIMESTAMP); return SILT_OK;
    case JK_DECIMAL:
        *out = col_type_decimal(a, t->precision, t->scale);
        return *out ? SILT_OK : err_nomem(err);
    case JK_ARRAY: {
        const col_type *elem;
        SILT_RETURN_IF_ERROR(to_col_type(t->elem, drop_null, a, &elem, err));
        if (elem == NULL)
            return SILT_OK;
        *out = col_type_array(a, elem, 1);
        return *out ? SILT_OK : err_nomem(err);
    }
    default: {
        col_field *fields = arena_calloc(a, t->n_fields ? t->n_fields : 1, sizeof(col_field));
        size_t n = 0;
        if (fields == NULL)
            return err_nomem(err);
        for (size_t idx = 0; idx < t->n_fields; idx++) {
            const col_type *ft;
            if (t->fields[idx].name_len == 0)
                continue;
            SILT_RETURN_IF_ERROR(to_col_type(t->fields[idx].type, drop_null, a, &ft, err));
            if (ft == NULL)
                continue;
            fields[n].name = arena_strndup(a, t->fields[idx].name, t->fields[idx].name_len);
            if (fields[n].name == NULL)
                return err_nomem(err);
            fields[n].type = ft;
            fields[n].nullable = 1;
            fields[n].field_id = -1;
            n++;
        }
        if (n == 0)
            return SILT_OK;
        *out = col_type_struct(a, n, fields);
        return *out ? SILT_OK : err_nomem(err);
    }
    }
}

/*
 * SILT_PARSE when two of the n field names are equal ASCII
 * case-insensitively; a hash of lower-cased names keeps an object of
 * 100,000 keys linear (the pairwise check was quadratic).
 */
static silt_status check_case_duplicates(const col_field *fields, size_t n, silt_error *err)
{
    hashmap seen = HASHMAP_INIT;
    buf lower = BUF_INIT;
    silt_status rc = SILT_OK;
    size_t idx;
    for (idx = 0; idx < n && rc == SILT_OK; idx++) {
        void *old = NULL;
        buf_truncate(&lower, 0);
        rc = buf_append_str(&lower, fields[idx].name, err);
        if (rc == SILT_OK)
            util_str_ascii_lower(lower.data, lower.len);
        if (rc == SILT_OK)
            rc = hashmap_put(&seen, lower.data, lower.len, (void *)&fields[idx], &old, err);
        if (rc == SILT_OK && old != NULL)
            rc = err_set(err, SILT_PARSE,
                         "could not infer a JSON schema: column \"%s\" appears twice (column "
                         "names are case-insensitive)",
                         fields[idx].name);
    }
    hashmap_clear(&seen);
    buf_clear(&lower);
    return rc;
}

silt_status json_infer_schema(const json_infer *inf, arena *a, const col_type **out,
                              silt_error *err)
{
    const col_type *root = NULL;
    size_t n = 0, corrupt_len = strlen(inf->opts->corrupt_column);
    if (inf->dup_name != NULL)
        return err_set(err, SILT_PARSE,
                       "could not infer a JSON schema: column \"%s\" appears twice in one record",
                       inf->dup_name);
    SILT_RETURN_IF_ERROR(
        to_col_type(inf->root, inf->opts->drop_field_if_all_null, a, &root, err));
    size_t n_root = root ? root->n_fields : 0;
    col_field *fields = arena_calloc(a, n_root + 1, sizeof(col_field));
    if (fields == NULL)
        return err_nomem(err);
    int corrupt_pending = inf->saw_corrupt && inf->opts->mode == TEXT_MODE_PERMISSIVE;
    for (size_t idx = 0; idx <= n_root; idx++) {
        const col_field *f = idx < n_root ? &root->fields[idx] : NULL;
        if (corrupt_pending && (f == NULL || strcmp(inf->opts->corrupt_column, f->name) <= 0)) {
            if (f == NULL || strcmp(inf->opts->corrupt_column, f->name) != 0) {
                fields[n].name = arena_strndup(a, inf->opts->corrupt_column, corrupt_len);
                fields[n].type = col_type_primitive(COL_STRING);
                fields[n].nullable = 1;
                fields[n].field_id = -1;
                if (fields[n].name == NULL)
                    return err_nomem(err);
                n++;
            }
            corrupt_pending = 0;
        }
        if (f != NULL)
            fields[n++] = *f;
    }
    /* Spark's analyzer refuses two columns whose names differ only in case. */
    SILT_RETURN_IF_ERROR(check_case_duplicates(fields, n, err));
    *out = col_type_struct(a, n, fields);
    return *out ? SILT_OK : err_nomem(err);
}
