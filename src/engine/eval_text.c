/*
 * eval_text.c - more of Spark's string functions: levenshtein, soundex,
 * translate, split_part, substring_index, find_in_set, btrim, len and
 * luhn_check. Characters are Unicode code points (Spark's UTF8String);
 * substring_index and find_in_set compare bytes, as Spark does.
 * docs/functions.md lists what Spark has and silt does not.
 */
#include "engine/eval_int.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

/* ---- typing ------------------------------------------------------------------------------ */

static silt_status str_args(expr *e, arena *a, size_t n, silt_error *err)
{
    size_t idx;
    for (idx = 0; idx < n && idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, col_type_primitive(COL_STRING), err));
    return SILT_OK;
}

static silt_status res_strs_to_str(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(str_args(e, a, e->n_args, err));
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

static silt_status res_strs_to_int(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(str_args(e, a, e->n_args, err));
    e->type = col_type_primitive(COL_INT);
    return SILT_OK;
}

/* levenshtein(a, b[, threshold]) and split_part/substring_index: strings, then an INT. */
static silt_status res_strs_int(expr *e, arena *a, silt_error *err)
{
    const size_t n_str = 2;
    SILT_RETURN_IF_ERROR(str_args(e, a, n_str, err));
    if (e->n_args > n_str)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[n_str], a, col_type_primitive(COL_INT), err));
    return SILT_OK;
}

static silt_status res_levenshtein(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(res_strs_int(e, a, err));
    e->type = col_type_primitive(COL_INT);
    return SILT_OK;
}

static silt_status res_str_str_int(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(res_strs_int(e, a, err));
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

/* soundex takes a STRING only: Spark casts nothing to it implicitly. */
static silt_status res_soundex(expr *e, arena *a, silt_error *err)
{
    col_type_id id = e->args[0]->type->id;
    if (id != COL_STRING && id != COL_NULL)
        return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve "
                       "\"%s\" due to data type mismatch: The first parameter requires the "
                       "\"STRING\" type, however it has the type \"%s\".", e->func->name,
                       col_type_id_name(id));
    SILT_RETURN_IF_ERROR(str_args(e, a, 1, err));
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

static silt_status res_luhn(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(str_args(e, a, 1, err));
    e->type = col_type_primitive(COL_BOOLEAN);
    return SILT_OK;
}

/* ---- code points ---------------------------------------------------------------------------- */

/* The code point at byte pos of s (len bytes) into *cp; returns the next position. */
static int32_t next_cp(const char *s, int32_t len, int32_t pos, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[pos++];
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (extra)
        c &= 0x3Fu >> extra;
    while (extra-- > 0 && pos < len && (u[pos] & 0xC0) == 0x80)
        c = c << 6 | (u[pos++] & 0x3F);
    *cp = c;
    return pos;
}

/* The code points of s into an arena array; *n gets their count. */
static uint32_t *code_points(arena *a, const char *s, int32_t len, int32_t *n)
{
    uint32_t *cps = arena_alloc(a, sizeof(uint32_t) * (size_t)(len > 0 ? len : 1));
    int32_t pos = 0, k = 0;
    if (cps == NULL)
        return NULL;
    while (pos < len)
        pos = next_cp(s, len, pos, &cps[k++]);
    *n = k;
    return cps;
}

/* ---- levenshtein ------------------------------------------------------------------------------ */

static int32_t edit_distance(const uint32_t *x, int32_t nx, const uint32_t *y, int32_t ny,
                             int32_t *row)
{
    int32_t i, j;
    for (j = 0; j <= ny; j++)
        row[j] = j;
    for (i = 1; i <= nx; i++) {
        int32_t diag = row[0];
        row[0] = i;
        for (j = 1; j <= ny; j++) {
            int32_t up = row[j];
            int32_t best = diag + (x[i - 1] != y[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[ny];
}

/* levenshtein(a, b[, threshold]): -1 when the distance is over the threshold. */
static silt_status fn_levenshtein(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t la, lb, na = 0, nb = 0, d;
        const char *sa = col_vec_str(args[0], r, &la), *sb = col_vec_str(args[1], r, &lb);
        uint32_t *ca = code_points(a, sa, la, &na), *cb = code_points(a, sb, lb, &nb);
        int32_t *row = arena_alloc(a, sizeof(int32_t) * (size_t)(nb + 1));
        if (ca == NULL || cb == NULL || row == NULL)
            return err_nomem(err);
        d = edit_distance(ca, na, cb, nb, row);
        if (e->n_args > 2 && d > vec_get_int(args[2], r))
            d = -1;
        vec_put_int(o, r, d);
    });
    *out = o;
    return SILT_OK;
}

/* ---- soundex ------------------------------------------------------------------------------------ */

/* Spark's UTF8String.soundex: a string not starting with an ASCII letter is returned as it is. */
static silt_status fn_soundex(FN_ARGS)
{
    static const char map[] = "01230127022455012623017202";
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len, i, k = 1;
        const char *s = col_vec_str(args[0], r, &len);
        char sx[4] = {'0', '0', '0', '0'}, last;
        unsigned char b = len > 0 ? (unsigned char)s[0] : 0;
        if (b >= 'a' && b <= 'z')
            b = (unsigned char)(b - 32);
        if (len == 0 || b < 'A' || b > 'Z') {
            rc = vec_str_put(&w, r, s, len, err);
            if (rc != SILT_OK)
                break;
            continue;
        }
        sx[0] = (char)b;
        last = map[b - 'A'];
        for (i = 1; i < len && k <= 3; i++) {
            char code;
            b = (unsigned char)s[i];
            if (b >= 'a' && b <= 'z')
                b = (unsigned char)(b - 32);
            if (b < 'A' || b > 'Z') {
                last = '0';
                continue;
            }
            code = map[b - 'A'];
            if (code == '7') /* H and W */
                continue;
            if (code != '0' && code != last)
                sx[k++] = code;
            last = code;
        }
        rc = vec_str_put(&w, r, sx, 4, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* ---- translate --------------------------------------------------------------------------------- */

/* translate(s, from, to): each character of from becomes the one at its place in to, or goes. */
static silt_status fn_translate(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t ls, lf, lt, nf = 0, nt = 0, pos = 0, j = 0;
        const char *s = col_vec_str(args[0], r, &ls), *f = col_vec_str(args[1], r, &lf);
        const char *t = col_vec_str(args[2], r, &lt);
        uint32_t *cf = code_points(a, f, lf, &nf), *ct = code_points(a, t, lt, &nt);
        char *dst;
        if (cf == NULL || ct == NULL)
            return err_nomem(err);
        rc = vec_str_reserve(&w, (int64_t)ls * 4, &dst, err); /* a character grows to 4 bytes at most */
        if (rc != SILT_OK)
            break;
        while (pos < ls) {
            uint32_t cp;
            int32_t start = pos, m;
            pos = next_cp(s, ls, pos, &cp);
            for (m = 0; m < nf && cf[m] != cp; m++)
                ;
            if (m == nf) {
                memcpy(dst + j, s + start, (size_t)(pos - start));
                j += pos - start;
            } else if (m < nt) {
                int32_t tpos = 0, k = 0;
                while (k < m) { /* the byte offset of character m of to */
                    uint32_t skip;
                    tpos = next_cp(t, lt, tpos, &skip);
                    k++;
                }
                k = next_cp(t, lt, tpos, &cp);
                memcpy(dst + j, t + tpos, (size_t)(k - tpos));
                j += k - tpos;
            }
        }
        rc = vec_str_commit(&w, r, j, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* ---- split_part, substring_index, find_in_set --------------------------------------------- */

static int32_t find_bytes(const char *s, int32_t ls, const char *p, int32_t lp, int32_t from)
{
    int32_t i;
    for (i = from < 0 ? 0 : from; i + lp <= ls; i++)
        if (memcmp(s + i, p, (size_t)lp) == 0)
            return i;
    return -1;
}

static int32_t rfind_bytes(const char *s, int32_t ls, const char *p, int32_t lp, int32_t from)
{
    int32_t i;
    for (i = from + lp > ls ? ls - lp : from; i >= 0; i--)
        if (memcmp(s + i, p, (size_t)lp) == 0)
            return i;
    return -1;
}

/* split_part(s, delim, n): part n (from the end when negative); "" past the parts. */
static silt_status fn_split_part(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t ls, ld, start = 0, end, parts = 1, i;
        const char *s = col_vec_str(args[0], r, &ls), *d = col_vec_str(args[1], r, &ld);
        int64_t n = vec_get_int(args[2], r);
        if (n == 0) {
            rc = expr_eval_error(e, err, SILT_RUNTIME, "INVALID_INDEX_OF_ZERO",
                                 "The index 0 is invalid. An index shall be either < 0 or > 0 "
                                 "(the first element has index 1).");
            break;
        }
        if (ld > 0)
            for (i = find_bytes(s, ls, d, ld, 0); i >= 0; i = find_bytes(s, ls, d, ld, i + ld))
                parts++;
        if (ls == 0 && ld > 0)
            parts = 1;
        if (n < 0)
            n = parts + n + 1;
        if (n < 1 || n > parts) {
            rc = vec_str_put(&w, r, "", 0, err);
        } else {
            for (i = 1; i < n; i++)
                start = find_bytes(s, ls, d, ld, start) + ld;
            end = ld > 0 ? find_bytes(s, ls, d, ld, start) : -1;
            if (end < 0)
                end = ls;
            rc = vec_str_put(&w, r, s + start, end - start, err);
        }
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* Spark's UTF8String.subStringIndex: the text before the count-th delimiter (after, from the end). */
static void substring_index(const char *s, int32_t ls, const char *d, int32_t ld, int64_t count,
                            int32_t *from, int32_t *to)
{
    int32_t idx;
    *from = 0;
    *to = ls;
    if (ld == 0 || count == 0) {
        *to = 0;
        return;
    }
    if (count > 0) {
        idx = -1;
        while (count > 0) {
            idx = find_bytes(s, ls, d, ld, idx + 1);
            if (idx < 0)
                return;
            count--;
        }
        *to = idx;
        return;
    }
    idx = ls;
    while (count < 0) {
        idx = rfind_bytes(s, ls, d, ld, idx - 1);
        if (idx < 0)
            return;
        count++;
    }
    *from = idx + ld;
}

static silt_status fn_substring_index(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t ls, ld, from, to;
        const char *s = col_vec_str(args[0], r, &ls), *d = col_vec_str(args[1], r, &ld);
        substring_index(s, ls, d, ld, vec_get_int(args[2], r), &from, &to);
        rc = vec_str_put(&w, r, s + from, to - from, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* find_in_set(s, list): the 1-based place of s in the comma-separated list; 0 if absent or s has a comma. */
static silt_status fn_find_in_set(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t ls, ll, start = 0, place = 1, found = 0;
        const char *s = col_vec_str(args[0], r, &ls), *l = col_vec_str(args[1], r, &ll);
        if (memchr(s, ',', (size_t)ls) == NULL) {
            while (!found) {
                const char *comma = memchr(l + start, ',', (size_t)(ll - start));
                int32_t end = comma != NULL ? (int32_t)(comma - l) : ll;
                if (end - start == ls && memcmp(l + start, s, (size_t)ls) == 0)
                    found = place;
                if (comma == NULL)
                    break;
                start = end + 1;
                place++;
            }
        }
        vec_put_int(o, r, found);
    });
    *out = o;
    return SILT_OK;
}

/* ---- btrim, len, luhn_check --------------------------------------------------------------- */

static int in_set(uint32_t cp, const uint32_t *set, int32_t n)
{
    int32_t i;
    if (set == NULL)
        return cp == ' ';
    for (i = 0; i < n; i++)
        if (set[i] == cp)
            return 1;
    return 0;
}

/* btrim(s[, chars]): the characters of chars (spaces by default) off both ends. */
static silt_status fn_btrim(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t ls, lt = 0, nt = 0, pos = 0, start = -1, end = 0;
        const char *s = col_vec_str(args[0], r, &ls);
        uint32_t *set = NULL;
        if (e->n_args > 1) {
            const char *t = col_vec_str(args[1], r, &lt);
            set = code_points(a, t, lt, &nt);
            if (set == NULL)
                return err_nomem(err);
        }
        while (pos < ls) { /* the first and one past the last kept character */
            uint32_t cp;
            int32_t at = pos;
            pos = next_cp(s, ls, pos, &cp);
            if (!in_set(cp, set, nt)) {
                if (start < 0)
                    start = at;
                end = pos;
            }
        }
        if (start < 0)
            start = end = 0;
        rc = vec_str_put(&w, r, s + start, end - start, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* luhn_check(s): digits only, at least one, and the Luhn sum divisible by 10. */
static silt_status fn_luhn_check(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t ls, i;
        const char *s = col_vec_str(args[0], r, &ls);
        int sum = 0, ok = ls > 0;
        for (i = ls - 1; i >= 0 && ok; i--) {
            int digit = s[i] - '0';
            ok = digit >= 0 && digit <= 9;
            if ((ls - 1 - i) % 2 == 1) {
                digit *= 2;
                if (digit > 9)
                    digit -= 9;
            }
            sum += digit;
        }
        vec_put_int(o, r, ok && sum % 10 == 0);
    });
    *out = o;
    return SILT_OK;
}

/* ---- elt, quote, overlay, mask, url_encode / url_decode ------------------------------------ */

/* elt(n, a, b, ...): the n-th value; all BINARY stay BINARY, else STRINGs. */
static silt_status res_elt(expr *e, arena *a, silt_error *err)
{
    size_t idx;
    int all_binary = 1;
    col_type_id to;
    SILT_RETURN_IF_ERROR(expr_coerce(&e->args[0], a, col_type_primitive(COL_INT), err));
    for (idx = 1; idx < e->n_args; idx++)
        all_binary &= e->args[idx]->type->id == COL_BINARY;
    to = all_binary ? COL_BINARY : COL_STRING;
    for (idx = 1; idx < e->n_args; idx++)
        SILT_RETURN_IF_ERROR(expr_coerce(&e->args[idx], a, col_type_primitive(to), err));
    e->type = col_type_primitive(to);
    return SILT_OK;
}

/* Out of range is [INVALID_ARRAY_INDEX] in ANSI mode and NULL without it; only the pick's NULL counts. */
static silt_status fn_elt(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    int64_t n_vals = (int64_t)e->n_args - 1;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int64_t n = vec_get_int(args[0], r);
        int32_t len;
        const char *s;
        if (args[0]->type->id == COL_NULL || !vec_is_valid(args[0], r)) {
            vec_set_null(o, r);
            continue;
        }
        if (n < 1 || n > n_vals) {
            if (ctx->ansi) {
                rc = expr_eval_error(e, err, SILT_RUNTIME, "INVALID_ARRAY_INDEX",
                                     "The index %lld is out of bounds. The array has %lld "
                                     "elements. Use the SQL function `get()` to tolerate "
                                     "accessing element at invalid index and return NULL "
                                     "instead.", (long long)n, (long long)n_vals);
                break;
            }
            vec_set_null(o, r);
            continue;
        }
        if (args[n]->type->id == COL_NULL || !vec_is_valid(args[n], r)) {
            vec_set_null(o, r);
            continue;
        }
        s = col_vec_str(args[n], r, &len);
        rc = vec_str_put(&w, r, s, len, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* quote(s): s in single quotes, each ' in it preceded by a backslash (and nothing else escaped). */
static silt_status fn_quote(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len, i, j = 0;
        const char *s = col_vec_str(args[0], r, &len);
        char *dst;
        rc = vec_str_reserve(&w, 2 * (int64_t)len + 2, &dst, err);
        if (rc != SILT_OK)
            break;
        dst[j++] = '\'';
        for (i = 0; i < len; i++) {
            if (s[i] == '\'')
                dst[j++] = '\\';
            dst[j++] = s[i];
        }
        dst[j++] = '\'';
        rc = vec_str_commit(&w, r, j, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status res_overlay(expr *e, arena *a, silt_error *err)
{
    static const col_type_id types[] = {COL_STRING, COL_STRING, COL_INT, COL_INT};
    return expr_resolve_args(e, a, types, 4, COL_STRING, err);
}

/* Spark's UTF8String.substringSQL(pos, length) as a [from, to) range of n characters. */
static void substring_sql(int64_t n, int64_t pos, int64_t length, int64_t *from, int64_t *to)
{
    int64_t start = pos > 0 ? pos - 1 : pos < 0 ? n + pos : 0;
    int64_t end = start + length;
    if (start < 0)
        start = 0;
    if (end > n)
        end = n;
    *from = start;
    *to = start >= end ? start : end;
}

/* The byte offset of character k of s. */
static int32_t cp_offset(const char *s, int32_t len, int64_t k)
{
    int32_t pos = 0;
    uint32_t cp;
    while (k-- > 0 && pos < len)
        pos = next_cp(s, len, pos, &cp);
    return pos;
}

static int64_t cp_count(const char *s, int32_t len)
{
    int64_t n = 0;
    int32_t pos = 0;
    uint32_t cp;
    while (pos < len) {
        pos = next_cp(s, len, pos, &cp);
        n++;
    }
    return n;
}

/* overlay(s, r, pos[, len]): s before pos, r, then s from pos + len (len defaults to r's length). */
static silt_status fn_overlay(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t ls, lr;
        const char *s = col_vec_str(args[0], r, &ls), *rep = col_vec_str(args[1], r, &lr);
        int64_t pos = vec_get_int(args[2], r), n = cp_count(s, ls), f1, t1, f2, t2;
        int64_t len = e->n_args > 3 ? vec_get_int(args[3], r) : -1;
        int32_t b1, b2, b3, b4;
        char *dst;
        if (len < 0)
            len = cp_count(rep, lr);
        substring_sql(n, 1, pos - 1, &f1, &t1);
        substring_sql(n, pos + len, (int64_t)INT32_MAX, &f2, &t2);
        b1 = cp_offset(s, ls, f1);
        b2 = cp_offset(s, ls, t1);
        b3 = cp_offset(s, ls, f2);
        b4 = cp_offset(s, ls, t2);
        rc = vec_str_reserve(&w, (int64_t)(b2 - b1) + lr + (b4 - b3), &dst, err);
        if (rc != SILT_OK)
            break;
        memcpy(dst, s + b1, (size_t)(b2 - b1));
        memcpy(dst + (b2 - b1), rep, (size_t)lr);
        memcpy(dst + (b2 - b1) + lr, s + b3, (size_t)(b4 - b3));
        rc = vec_str_commit(&w, r, (int64_t)(b2 - b1) + lr + (b4 - b3), err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/*
 * mask(s[, upper[, lower[, digit[, other]]]]): defaults X, x, n and none;
 * each a one-character string constant or NULL (that class unchanged).
 */
typedef struct mask_state {
    const char *with[4]; /* upper, lower, digit, other: UTF-8 text or NULL */
    int32_t len[4];
} mask_state;

static silt_status res_mask(expr *e, arena *a, silt_error *err)
{
    static const char *const names[] = {"upperChar", "lowerChar", "digitChar", "otherChar"};
    static const char *const defaults[] = {"X", "x", "n", NULL};
    static const char *const ordinals[] = {"second", "third", "fourth", "fifth"};
    mask_state *st = arena_calloc(a, 1, sizeof(*st));
    size_t idx;
    if (st == NULL)
        return err_nomem(err);
    SILT_RETURN_IF_ERROR(str_args(e, a, 1, err));
    for (idx = 0; idx < 4; idx++) {
        const expr *x = idx + 1 < e->n_args ? e->args[idx + 1] : NULL;
        st->with[idx] = defaults[idx];
        st->len[idx] = defaults[idx] != NULL ? 1 : 0;
        if (x == NULL)
            continue;
        if (x->kind != EXPR_LITERAL || (x->type->id != COL_STRING && x->type->id != COL_NULL))
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot "
                           "resolve \"mask\" due to data type mismatch: The %s parameter requires "
                           "the \"STRING\" type (a constant), however it has the type \"%s\".",
                           ordinals[idx], col_type_id_name(x->type->id));
        st->with[idx] = x->lit.is_null || x->type->id == COL_NULL ? NULL : x->lit.str;
        st->len[idx] = st->with[idx] != NULL ? x->lit.str_len : 0;
        if (st->with[idx] != NULL && cp_count(st->with[idx], st->len[idx]) != 1)
            return err_set(err, SILT_BIND, "[DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE] Cannot resolve "
                           "\"mask\" due to data type mismatch: Length of %s should be 1.",
                           names[idx]);
    }
    e->state = st;
    e->n_args = 1;
    e->type = col_type_primitive(COL_STRING);
    return SILT_OK;
}

/* Java's Character.isUpperCase / isLowerCase over ASCII, Latin-1, Greek and Cyrillic. */
static int char_class(uint32_t c)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||
        (c >= 0x391 && c <= 0x3A9) || (c >= 0x410 && c <= 0x42F))
        return 0;
    if ((c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
        (c >= 0x3B1 && c <= 0x3C9) || (c >= 0x430 && c <= 0x44F))
        return 1;
    if (c >= '0' && c <= '9')
        return 2;
    return 3;
}

static silt_status fn_mask(FN_ARGS)
{
    const mask_state *st = e->state;
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len, pos = 0, j = 0;
        const char *s = col_vec_str(args[0], r, &len);
        char *dst;
        rc = vec_str_reserve(&w, (int64_t)len * 4, &dst, err);
        if (rc != SILT_OK)
            break;
        while (pos < len) {
            uint32_t cp;
            int32_t at = pos, k;
            pos = next_cp(s, len, pos, &cp);
            k = char_class(cp);
            if (st->with[k] != NULL) {
                memcpy(dst + j, st->with[k], (size_t)st->len[k]);
                j += st->len[k];
            } else {
                memcpy(dst + j, s + at, (size_t)(pos - at));
                j += pos - at;
            }
        }
        rc = vec_str_commit(&w, r, j, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

/* url_encode(s): java.net.URLEncoder with UTF-8 (space is '+'; a-z A-Z 0-9 . - * _ kept). */
static silt_status fn_url_encode(FN_ARGS)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len, i, j = 0;
        const unsigned char *s = (const unsigned char *)col_vec_str(args[0], r, &len);
        char *dst;
        rc = vec_str_reserve(&w, 3 * (int64_t)len, &dst, err);
        if (rc != SILT_OK)
            break;
        for (i = 0; i < len; i++) {
            unsigned char c = s[i];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '-' || c == '*' || c == '_')
                dst[j++] = (char)c;
            else if (c == ' ')
                dst[j++] = '+';
            else {
                dst[j++] = '%';
                dst[j++] = "0123456789ABCDEF"[c >> 4];
                dst[j++] = "0123456789ABCDEF"[c & 15];
            }
        }
        rc = vec_str_commit(&w, r, j, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static int hex_val(unsigned char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Whether s[i..] starts a valid UTF-8 sequence; its length, or 0. */
static int utf8_seq(const unsigned char *s, int32_t n, int32_t i)
{
    int k, need;
    if (s[i] < 0x80)
        return 1;
    need = s[i] >= 0xC2 && s[i] < 0xE0 ? 1 : s[i] >= 0xE0 && s[i] < 0xF0 ? 2
         : s[i] >= 0xF0 && s[i] < 0xF5 ? 3 : -1;
    if (need < 0 || i + need >= n)
        return 0;
    for (k = 1; k <= need; k++)
        if ((s[i + k] & 0xC0) != 0x80)
            return 0;
    return need + 1;
}

/*
 * URLDecoder.decode with UTF-8: '+' is a space, %XX a byte; a bad escape is
 * [CANNOT_DECODE_URL] (NULL for try_url_decode); bytes that are not UTF-8
 * become U+FFFD, as Java's decoder replaces them.
 */
static silt_status url_decode(FN_ARGS, int try_only)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len, i, n = 0, j = 0, bad = 0;
        const unsigned char *s = (const unsigned char *)col_vec_str(args[0], r, &len);
        unsigned char *bytes = arena_alloc(a, (size_t)len + 1);
        char *dst;
        if (bytes == NULL)
            return err_nomem(err);
        for (i = 0; i < len && !bad; i++) {
            if (s[i] == '+')
                bytes[n++] = ' ';
            else if (s[i] != '%')
                bytes[n++] = s[i];
            else if (i + 2 < len && hex_val(s[i + 1]) >= 0 && hex_val(s[i + 2]) >= 0) {
                bytes[n++] = (unsigned char)(hex_val(s[i + 1]) * 16 + hex_val(s[i + 2]));
                i += 2;
            } else
                bad = 1;
        }
        if (bad && !try_only) {
            rc = expr_eval_error(e, err, SILT_RUNTIME, "CANNOT_DECODE_URL",
                                 "The provided URL cannot be decoded: %.*s. Please ensure that "
                                 "the URL is properly formatted and try again.", (int)len, s);
            break;
        }
        if (bad) {
            vec_set_null(o, r);
            continue;
        }
        rc = vec_str_reserve(&w, 3 * (int64_t)n, &dst, err);
        if (rc != SILT_OK)
            break;
        for (i = 0; i < n;) {
            int k = utf8_seq(bytes, n, i);
            if (k == 0) {
                memcpy(dst + j, "\xEF\xBF\xBD", 3);
                j += 3;
                i++;
            } else {
                memcpy(dst + j, bytes + i, (size_t)k);
                j += k;
                i += k;
            }
        }
        rc = vec_str_commit(&w, r, j, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status fn_url_decode(FN_ARGS) { return url_decode(FN_PASS, 0); }
static silt_status fn_try_url_decode(FN_ARGS) { return url_decode(FN_PASS, 1); }

/* json_array_length(s): the top-level elements of a JSON array (text after it is ignored, as
 * Jackson stops there); NULL for anything else or invalid JSON. */
static silt_status fn_json_array_length(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t len;
        const char *s = col_vec_str(args[0], r, &len), *end = NULL;
        cJSON *doc = cJSON_ParseWithLengthOpts(s, (size_t)len, &end, 0);
        if (doc == NULL || !cJSON_IsArray(doc))
            vec_set_null(o, r);
        else
            vec_put_int(o, r, cJSON_GetArraySize(doc));
        cJSON_Delete(doc);
    });
    *out = o;
    return SILT_OK;
}

/* ---- UTF-8 validation ------------------------------------------------------------------------ */

/*
 * The length of the well-formed UTF-8 sequence at s[i] (Unicode table 3-7:
 * no overlong forms, no surrogates, nothing past U+10FFFF), or minus the
 * length of its maximal invalid subpart (at least 1), which one U+FFFD
 * replaces.
 */
static int utf8_well_formed(const unsigned char *s, int32_t n, int32_t i)
{
    unsigned char c = s[i], lo = 0x80, hi = 0xBF;
    int need, k;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        need = 1;
    else if (c >= 0xE0 && c <= 0xEF)
        need = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        need = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return -1;
    for (k = 1; k <= need; k++) {
        if (i + k >= n || s[i + k] < (k == 1 ? lo : 0x80) || s[i + k] > (k == 1 ? hi : 0xBF))
            return -k;
    }
    return need + 1;
}

static silt_status res_str_to_bool(expr *e, arena *a, silt_error *err)
{
    SILT_RETURN_IF_ERROR(str_args(e, a, 1, err));
    e->type = col_type_primitive(COL_BOOLEAN);
    return SILT_OK;
}

static silt_status fn_is_valid_utf8(FN_ARGS)
{
    col_vec *o;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    LIVE_LOOP({
        int32_t len, i = 0, k = 1;
        const unsigned char *s = (const unsigned char *)col_vec_str(args[0], r, &len);
        while (i < len && (k = utf8_well_formed(s, len, i)) > 0)
            i += k;
        vec_put_int(o, r, i >= len);
    });
    *out = o;
    return SILT_OK;
}

enum { UTF8_MAKE_VALID, UTF8_VALIDATE, UTF8_TRY_VALIDATE };

/* make_valid_utf8 replaces each maximal invalid subpart by U+FFFD; validate_utf8 refuses. */
static silt_status utf8_fn(FN_ARGS, int mode)
{
    col_vec *o;
    vec_str_writer w;
    silt_status rc = SILT_OK;
    SILT_RETURN_IF_ERROR(vec_new(&o, a, e->type, n_rows, err));
    vec_str_begin(&w, o, a);
    LIVE_LOOP({
        int32_t len, i = 0, j = 0, bad = 0;
        const unsigned char *s = (const unsigned char *)col_vec_str(args[0], r, &len);
        char *dst;
        rc = vec_str_reserve(&w, 3 * (int64_t)len, &dst, err);
        if (rc != SILT_OK)
            break;
        while (i < len) {
            int k = utf8_well_formed(s, len, i);
            if (k > 0) {
                memcpy(dst + j, s + i, (size_t)k);
                j += k;
                i += k;
            } else {
                bad = 1;
                memcpy(dst + j, "\xEF\xBF\xBD", 3);
                j += 3;
                i -= k;
            }
        }
        if (bad && mode == UTF8_VALIDATE) {
            char shown[4 * 64 + 4];
            int32_t b, at = 0;
            for (b = 0; b < len && b < 64; b++) /* Spark shows the bytes as \xHH */
                at += snprintf(shown + at, sizeof(shown) - (size_t)at, "\\x%02X", s[b]);
            rc = expr_eval_error(e, err, SILT_RUNTIME, "INVALID_UTF8_STRING",
                                 "Invalid UTF8 byte sequence found in string: %s%s.", shown,
                                 len > 64 ? "..." : "");
            break;
        }
        if (bad && mode == UTF8_TRY_VALIDATE)
            vec_set_null(o, r);
        else
            rc = vec_str_commit(&w, r, j, err);
        if (rc != SILT_OK)
            break;
    });
    vec_str_end(&w);
    *out = o;
    return rc;
}

static silt_status fn_make_valid_utf8(FN_ARGS) { return utf8_fn(FN_PASS, UTF8_MAKE_VALID); }
static silt_status fn_validate_utf8(FN_ARGS) { return utf8_fn(FN_PASS, UTF8_VALIDATE); }
static silt_status fn_try_validate_utf8(FN_ARGS) { return utf8_fn(FN_PASS, UTF8_TRY_VALIDATE); }

const expr_func_def engine_text_funcs[] = {
    {"levenshtein", 2, 3, res_levenshtein, fn_levenshtein, 0},
    {"soundex", 1, 1, res_soundex, fn_soundex, 0},
    {"translate", 3, 3, res_strs_to_str, fn_translate, 0},
    {"split_part", 3, 3, res_str_str_int, fn_split_part, 0},
    {"substring_index", 3, 3, res_str_str_int, fn_substring_index, 0},
    {"find_in_set", 2, 2, res_strs_to_int, fn_find_in_set, 0},
    {"btrim", 1, 2, res_strs_to_str, fn_btrim, 0},
    {"luhn_check", 1, 1, res_luhn, fn_luhn_check, 0},
    {"elt", 2, -1, res_elt, fn_elt, 1},
    {"quote", 1, 1, res_strs_to_str, fn_quote, 0},
    {"overlay", 3, 4, res_overlay, fn_overlay, 0},
    {"mask", 1, 5, res_mask, fn_mask, 0},
    {"url_encode", 1, 1, res_strs_to_str, fn_url_encode, 0},
    {"url_decode", 1, 1, res_strs_to_str, fn_url_decode, 0},
    {"try_url_decode", 1, 1, res_strs_to_str, fn_try_url_decode, 0},
    {"json_array_length", 1, 1, res_strs_to_int, fn_json_array_length, 0},
    {"is_valid_utf8", 1, 1, res_str_to_bool, fn_is_valid_utf8, 0},
    {"make_valid_utf8", 1, 1, res_strs_to_str, fn_make_valid_utf8, 0},
    {"validate_utf8", 1, 1, res_strs_to_str, fn_validate_utf8, 0},
    {"try_validate_utf8", 1, 1, res_strs_to_str, fn_try_validate_utf8, 0},
};
const size_t engine_n_text_funcs = sizeof(engine_text_funcs) / sizeof(engine_text_funcs[0]);
