/*
 * wire.c - parsing and building PostgreSQL protocol 3.0 messages (wire.h).
 *
 * PROTOCOL: "Message Formats" of the PostgreSQL documentation. Every read
 * is checked against the body's end; counts are checked before anything is
 * allocated (a Bind's parameter count is an Int16, so at most 32,767 slots,
 * and each needs at least four bytes of body).
 */
#include <stdio.h>
#include <string.h>

#include "server/wire.h"
#include "util/mem.h"

void srv_reader_init(srv_reader *r, const void *data, size_t len, const char *what)
{
    r->data = data;
    r->len = len;
    r->pos = 0;
    r->what = what;
}

static silt_status short_msg(const srv_reader *r, silt_error *err)
{
    return err_set(err, SILT_CORRUPT, "invalid %s message: unexpected end of message at byte %zu",
                   r->what, r->pos);
}

silt_status srv_read_byte(srv_reader *r, uint8_t *out, silt_error *err)
{
    if (r->len - r->pos < 1)
        return short_msg(r, err);
    *out = r->data[r->pos++];
    return SILT_OK;
}

silt_status srv_read_i16(srv_reader *r, int16_t *out, silt_error *err)
{
    if (r->len - r->pos < 2)
        return short_msg(r, err);
    *out = (int16_t)(((uint16_t)r->data[r->pos] << 8) | r->data[r->pos + 1]);
    r->pos += 2;
    return SILT_OK;
}

silt_status srv_read_i32(srv_reader *r, int32_t *out, silt_error *err)
{
    const uint8_t *p = r->data + r->pos;
    if (r->len - r->pos < 4)
        return short_msg(r, err);
    *out = (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
                     (uint32_t)p[3]);
    r->pos += 4;
    return SILT_OK;
}

silt_status srv_read_cstr(srv_reader *r, const char **out, silt_error *err)
{
    const uint8_t *end = memchr(r->data + r->pos, 0, r->len - r->pos);
    if (end == NULL)
        return err_set(err, SILT_CORRUPT, "invalid %s message: string at byte %zu has no "
                       "terminating zero byte", r->what, r->pos);
    *out = (const char *)(r->data + r->pos);
    r->pos = (size_t)(end - r->data) + 1;
    return SILT_OK;
}

silt_status srv_read_bytes(srv_reader *r, size_t n, const uint8_t **out, silt_error *err)
{
    if (r->len - r->pos < n)
        return short_msg(r, err);
    *out = r->data + r->pos;
    r->pos += n;
    return SILT_OK;
}

silt_status srv_read_end(srv_reader *r, silt_error *err)
{
    if (r->pos != r->len)
        return err_set(err, SILT_CORRUPT, "invalid %s message: %zu bytes left after its end",
                       r->what, r->len - r->pos);
    return SILT_OK;
}

/* ------------------------------------------------------------------ start-up */

silt_status srv_parse_startup(srv_startup *out, const uint8_t *body, size_t len,
                              silt_error *err)
{
    srv_reader r;
    memset(out, 0, sizeof(*out));
    srv_reader_init(&r, body, len, "startup packet");
    SILT_RETURN_IF_ERROR(srv_read_i32(&r, &out->code, err));
    if (out->code == SRV_SSL_REQUEST || out->code == SRV_GSSENC_REQUEST)
        return srv_read_end(&r, err);
    if (out->code == SRV_CANCEL_REQUEST) {
        SILT_RETURN_IF_ERROR(srv_read_i32(&r, &out->cancel_pid, err));
        SILT_RETURN_IF_ERROR(srv_read_i32(&r, &out->cancel_key, err));
        return srv_read_end(&r, err);
    }
    if ((out->code >> 16) != 3)
        return err_set(err, SILT_UNSUPPORTED, "unsupported frontend protocol %d.%d: server "
                       "supports 3.0", out->code >> 16, out->code & 0xffff);
    for (;;) {
        const char *name = NULL, *value = NULL;
        SILT_RETURN_IF_ERROR(srv_read_cstr(&r, &name, err));
        if (name[0] == '\0')
            break;
        SILT_RETURN_IF_ERROR(srv_read_cstr(&r, &value, err));
        if (out->n_params == SRV_MAX_STARTUP_PARAMS)
            return err_set(err, SILT_CORRUPT, "invalid startup packet: more than %d parameters",
                           SRV_MAX_STARTUP_PARAMS);
        out->names[out->n_params] = name;
        out->values[out->n_params] = value;
        out->n_params++;
    }
    return srv_read_end(&r, err);
}

const char *srv_startup_get(const srv_startup *s, const char *name)
{
    for (size_t idx = 0; idx < s->n_params; idx++)
        if (strcmp(s->names[idx], name) == 0)
            return s->values[idx];
    return NULL;
}

/* ------------------------------------------------------------ extended query */

/* A count read from the wire: never negative, and each item needs min_bytes of what is left. */
static silt_status check_count(srv_reader *r, int16_t n, size_t min_bytes, const char *what,
                               silt_error *err)
{
    if (n < 0 || (size_t)n * min_bytes > r->len - r->pos)
        return err_set(err, SILT_CORRUPT, "invalid %s message: %s count %d does not fit the "
                       "message", r->what, what, (int)n);
    return SILT_OK;
}

silt_status srv_parse_parse(srv_parse_msg *out, const uint8_t *body, size_t len, silt_error *err)
{
    srv_reader r;
    silt_status rc;
    memset(out, 0, sizeof(*out));
    srv_reader_init(&r, body, len, "Parse");
    rc = srv_read_cstr(&r, &out->name, err);
    if (rc == SILT_OK)
        rc = srv_read_cstr(&r, &out->query, err);
    if (rc == SILT_OK)
        rc = srv_read_i16(&r, &out->n_types, err);
    if (rc == SILT_OK)
        rc = check_count(&r, out->n_types, 4, "parameter type", err);
    if (rc == SILT_OK && out->n_types > 0) {
        out->types = mem_alloc((size_t)out->n_types * sizeof(uint32_t));
        if (out->types == NULL)
            rc = err_nomem(err);
        for (int idx = 0; rc == SILT_OK && idx < out->n_types; idx++) {
            int32_t oid = 0;
            rc = srv_read_i32(&r, &oid, err);
            out->types[idx] = (uint32_t)oid;
        }
    }
    if (rc == SILT_OK)
        rc = srv_read_end(&r, err);
    if (rc != SILT_OK)
        srv_parse_msg_clear(out);
    return rc;
}

void srv_parse_msg_clear(srv_parse_msg *m)
{
    mem_free(m->types);
    memset(m, 0, sizeof(*m));
}

static silt_status read_formats(srv_reader *r, int16_t *n_out, int16_t **out, const char *what,
                                silt_error *err)
{
    SILT_RETURN_IF_ERROR(srv_read_i16(r, n_out, err));
    SILT_RETURN_IF_ERROR(check_count(r, *n_out, 2, what, err));
    if (*n_out == 0)
        return SILT_OK;
    *out = mem_alloc((size_t)*n_out * sizeof(int16_t));
    if (*out == NULL)
        return err_nomem(err);
    for (int idx = 0; idx < *n_out; idx++) {
        SILT_RETURN_IF_ERROR(srv_read_i16(r, &(*out)[idx], err));
        if ((*out)[idx] != 0 && (*out)[idx] != 1)
            return err_set(err, SILT_CORRUPT, "invalid %s message: %s code %d is neither 0 "
                           "(text) nor 1 (binary)", r->what, what, (int)(*out)[idx]);
    }
    return SILT_OK;
}

static silt_status read_values(srv_reader *r, srv_bind_msg *m, silt_error *err)
{
    SILT_RETURN_IF_ERROR(srv_read_i16(r, &m->n_params, err));
    SILT_RETURN_IF_ERROR(check_count(r, m->n_params, 4, "parameter", err));
    if (m->n_param_formats > 1 && m->n_param_formats != m->n_params)
        return err_set(err, SILT_CORRUPT, "invalid Bind message: %d parameter formats for %d "
                       "parameters", (int)m->n_param_formats, (int)m->n_params);
    if (m->n_params == 0)
        return SILT_OK;
    m->values = mem_calloc((size_t)m->n_params, sizeof(*m->values));
    m->lengths = mem_calloc((size_t)m->n_params, sizeof(*m->lengths));
    if (m->values == NULL || m->lengths == NULL)
        return err_nomem(err);
    for (int idx = 0; idx < m->n_params; idx++) {
        SILT_RETURN_IF_ERROR(srv_read_i32(r, &m->lengths[idx], err));
        if (m->lengths[idx] == -1)
            continue;
        if (m->lengths[idx] < 0)
            return err_set(err, SILT_CORRUPT, "invalid Bind message: parameter %d has length %d",
                           idx + 1, (int)m->lengths[idx]);
        SILT_RETURN_IF_ERROR(srv_read_bytes(r, (size_t)m->lengths[idx], &m->values[idx], err));
    }
    return SILT_OK;
}

silt_status srv_parse_bind(srv_bind_msg *out, const uint8_t *body, size_t len, silt_error *err)
{
    srv_reader r;
    silt_status rc;
    memset(out, 0, sizeof(*out));
    srv_reader_init(&r, body, len, "Bind");
    rc = srv_read_cstr(&r, &out->portal, err);
    if (rc == SILT_OK)
        rc = srv_read_cstr(&r, &out->stmt, err);
    if (rc == SILT_OK)
        rc = read_formats(&r, &out->n_param_formats, &out->param_formats, "parameter format",
                          err);
    if (rc == SILT_OK)
        rc = read_values(&r, out, err);
    if (rc == SILT_OK)
        rc = read_formats(&r, &out->n_result_formats, &out->result_formats, "result format",
                          err);
    if (rc == SILT_OK)
        rc = srv_read_end(&r, err);
    if (rc != SILT_OK)
        srv_bind_msg_clear(out);
    return rc;
}

void srv_bind_msg_clear(srv_bind_msg *m)
{
    mem_free(m->param_formats);
    mem_free((void *)m->values);
    mem_free(m->lengths);
    mem_free(m->result_formats);
    memset(m, 0, sizeof(*m));
}

int srv_bind_param_format(const srv_bind_msg *m, int idx)
{
    if (m->n_param_formats == 0)
        return 0;
    if (m->n_param_formats == 1)
        return m->param_formats[0];
    return idx < m->n_param_formats ? m->param_formats[idx] : 0;
}

silt_status srv_parse_target(uint8_t *kind_out, const char **name_out, const uint8_t *body,
                             size_t len, const char *what, silt_error *err)
{
    srv_reader r;
    srv_reader_init(&r, body, len, what);
    SILT_RETURN_IF_ERROR(srv_read_byte(&r, kind_out, err));
    if (*kind_out != 'S' && *kind_out != 'P')
        return err_set(err, SILT_CORRUPT, "invalid %s message: target type %d is neither 'S' "
                       "nor 'P'", what, (int)*kind_out);
    SILT_RETURN_IF_ERROR(srv_read_cstr(&r, name_out, err));
    return srv_read_end(&r, err);
}

silt_status srv_parse_execute(const char **portal_out, int32_t *max_rows_out,
                              const uint8_t *body, size_t len, silt_error *err)
{
    srv_reader r;
    srv_reader_init(&r, body, len, "Execute");
    SILT_RETURN_IF_ERROR(srv_read_cstr(&r, portal_out, err));
    SILT_RETURN_IF_ERROR(srv_read_i32(&r, max_rows_out, err));
    return srv_read_end(&r, err);
}

silt_status srv_parse_sasl_initial(const char **mech_out, const uint8_t **data_out,
                                   size_t *len_out, const uint8_t *body, size_t len,
                                   silt_error *err)
{
    srv_reader r;
    int32_t n = 0;
    srv_reader_init(&r, body, len, "SASLInitialResponse");
    SILT_RETURN_IF_ERROR(srv_read_cstr(&r, mech_out, err));
    SILT_RETURN_IF_ERROR(srv_read_i32(&r, &n, err));
    if (n < 0) { /* -1: no initial response; SCRAM needs one */
        *data_out = NULL;
        *len_out = 0;
        return srv_read_end(&r, err);
    }
    SILT_RETURN_IF_ERROR(srv_read_bytes(&r, (size_t)n, data_out, err));
    *len_out = (size_t)n;
    return srv_read_end(&r, err);
}

/* ------------------------------------------------------------------ building */

silt_status srv_msg_begin(buf *b, char type, size_t *start_out, silt_error *err)
{
    static const char zero[4] = {0, 0, 0, 0};
    SILT_RETURN_IF_ERROR(buf_append_char(b, type, err));
    *start_out = b->len;
    return buf_append(b, zero, 4, err);
}

void srv_msg_end(buf *b, size_t start)
{
    uint32_t n = (uint32_t)(b->len - start);
    uint8_t *p = (uint8_t *)b->data + start;
    p[0] = (uint8_t)(n >> 24);
    p[1] = (uint8_t)(n >> 16);
    p[2] = (uint8_t)(n >> 8);
    p[3] = (uint8_t)n;
}

silt_status srv_put_i16(buf *b, int16_t v, silt_error *err)
{
    uint8_t p[2] = {(uint8_t)((uint16_t)v >> 8), (uint8_t)v};
    return buf_append(b, p, 2, err);
}

silt_status srv_put_i32(buf *b, int32_t v, silt_error *err)
{
    uint32_t u = (uint32_t)v;
    uint8_t p[4] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u};
    return buf_append(b, p, 4, err);
}

silt_status srv_put_cstr(buf *b, const char *s, silt_error *err)
{
    return buf_append(b, s, strlen(s) + 1, err);
}

static silt_status put_field(buf *b, char code, const char *value, silt_error *err)
{
    if (value == NULL || value[0] == '\0')
        return SILT_OK;
    SILT_RETURN_IF_ERROR(buf_append_char(b, code, err));
    return srv_put_cstr(b, value, err);
}

silt_status srv_put_error(buf *b, char type, const char *severity, const char *sqlstate,
                          const char *message, const char *detail, const char *hint,
                          int position, silt_error *err)
{
    size_t start;
    char pos[16];
    SILT_RETURN_IF_ERROR(srv_msg_begin(b, type, &start, err));
    SILT_RETURN_IF_ERROR(put_field(b, 'S', severity, err));
    SILT_RETURN_IF_ERROR(put_field(b, 'V', severity, err));
    SILT_RETURN_IF_ERROR(put_field(b, 'C', sqlstate, err));
    SILT_RETURN_IF_ERROR(put_field(b, 'M', message, err));
    SILT_RETURN_IF_ERROR(put_field(b, 'D', detail, err));
    SILT_RETURN_IF_ERROR(put_field(b, 'H', hint, err));
    if (position > 0) {
        snprintf(pos, sizeof(pos), "%d", position);
        SILT_RETURN_IF_ERROR(put_field(b, 'P', pos, err));
    }
    SILT_RETURN_IF_ERROR(buf_append_char(b, '\0', err));
    srv_msg_end(b, start);
    return SILT_OK;
}
