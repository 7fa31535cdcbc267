/*
 * eval_text.c - more of Spark's string functions: levenshtein, soundex,
 * translate, split_part, substring_index, find_in_set, btrim, len and
 * luhn_check. Characters are Unicode code points (Spark's UTF8String);
 * substring_index and find_in_set compare bytes, as Spark does.
 * docs/functions.md lists what Spark has and silt does not.
 */
#include "engine/eval_int.h"

#include <string.h>

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

const expr_func_def engine_text_funcs[] = {
    {"levenshtein", 2, 3, res_levenshtein, fn_levenshtein, 0},
    {"soundex", 1, 1, res_soundex, fn_soundex, 0},
    {"translate", 3, 3, res_strs_to_str, fn_translate, 0},
    {"split_part", 3, 3, res_str_str_int, fn_split_part, 0},
    {"substring_index", 3, 3, res_str_str_int, fn_substring_index, 0},
    {"find_in_set", 2, 2, res_strs_to_int, fn_find_in_set, 0},
    {"btrim", 1, 2, res_strs_to_str, fn_btrim, 0},
    {"luhn_check", 1, 1, res_luhn, fn_luhn_check, 0},
};
const size_t engine_n_text_funcs = sizeof(engine_text_funcs) / sizeof(engine_text_funcs[0]);
