/*
 * source_bound.c - sources of batches a caller binds to a table name
 * (sql_session_bind_source), read by `FROM name` as a scan operator.
 *
 * The C API writes a caller's Arrow stream by binding it under a name and
 * running INSERT ... SELECT * FROM name (or CREATE TABLE ... AS SELECT):
 * the rows then take exactly the path of SQL writes (column mapping, casts,
 * schema enforcement and evolution, partitioning, commit and history), and
 * there is one writer in silt, not two. Bindings live in the session arena;
 * unbinding unlinks them (the small node stays until the session ends).
 */
#include <string.h>

#include "sql/binder_int.h"

static silt_status bind_any(sql_session *s, const char *name, const col_type *schema,
                            sql_batch_fn fn, sql_scan_open_fn open, void *payload,
                            silt_error *err)
{
    sql_bound_source *src;
    if (schema == NULL || schema->id != COL_STRUCT || (fn == NULL && open == NULL) || name == NULL)
        return err_set(err, SILT_INVALID, "a bound source needs a name, a struct schema and a "
                       "batch function");
    for (src = s->bound; src != NULL; src = src->next)
        if (util_str_casecmp(src->name, name) == 0)
            return err_set(err, SILT_EXISTS, "a source named \"%s\" is already bound", name);
    src = arena_calloc(s->arena, 1, sizeof(*src));
    if (src == NULL || (src->name = arena_strdup(s->arena, name)) == NULL)
        return err_nomem(err);
    src->schema = schema;
    src->fn = fn;
    src->open = open;
    src->payload = payload;
    src->next = s->bound;
    s->bound = src;
    return SILT_OK;
}

silt_status sql_session_bind_source(sql_session *s, const char *name, const col_type *schema,
                                    sql_batch_fn fn, void *payload, silt_error *err)
{
    return bind_any(s, name, schema, fn, NULL, payload, err);
}

silt_status sql_session_bind_scans(sql_session *s, const char *name, const col_type *schema,
                                   sql_scan_open_fn open, void *payload, silt_error *err)
{
    return bind_any(s, name, schema, NULL, open, payload, err);
}

void sql_session_unbind_source(sql_session *s, const char *name)
{
    sql_bound_source **slot = &s->bound;
    while (*slot != NULL) {
        if (util_str_casecmp((*slot)->name, name) == 0)
            *slot = (*slot)->next;
        else
            slot = &(*slot)->next;
    }
}

static const sql_bound_source *find_bound(const sql_session *s, const char *name)
{
    const sql_bound_source *src;
    for (src = s->bound; src != NULL; src = src->next)
        if (util_str_casecmp(src->name, name) == 0)
            return src;
    return NULL;
}

int sql_source_bound_exists(const sql_session *s, const char *name)
{
    return find_bound(s, name) != NULL;
}

silt_status sql_source_bound(binder *b, const sql_table_ref *ref, plan *out, int *found,
                         silt_error *err)
{
    const sql_name *n = &ref->u.named.name;
    const sql_bound_source *src;
    *found = 0;
    if (n->n_parts != 1 || n->is_path)
        return SILT_OK;
    src = find_bound(b->s, n->parts[0].name);
    if (src == NULL)
        return SILT_OK;
    *found = 1;
    if (ref->u.named.at.version != NULL || ref->u.named.at.timestamp != NULL ||
        ref->u.named.at.ref != NULL)
        return sql_bind_error(b, err, ref->pos, SILT_BIND, "source \"%s\" has no versions to "
                          "travel to", src->name);
    if (src->open != NULL) {
        sql_batch_fn fn;
        void *payload;
        SILT_RETURN_IF_ERROR(src->open(src->payload, b->a, &fn, &payload, err));
        SILT_RETURN_IF_ERROR(engine_op_scan(&out->op, b->ctx, src->schema, fn, payload, err));
    } else {
        SILT_RETURN_IF_ERROR(engine_op_scan(&out->op, b->ctx, src->schema, src->fn,
                                            src->payload, err));
    }
    memset(&out->morsels, 0, sizeof(out->morsels));
    return sql_scope_from_schema(b->a, src->schema, ref->alias.name ? ref->alias.name : src->name,
                             &out->scope, err);
}
