/*
 * ast.h - the syntax tree of Spark SQL statements, as the parser builds it.
 *
 * The tree says what was written, not what it means: names are not
 * resolved, types of expressions are not known, and `delta.`/path`` is a
 * two-part table name that the binder recognises as a path. Every node
 * records `pos`, the byte offset in the statement text where it starts, so
 * that binder errors can point at the text like parse errors do.
 *
 * Memory: every node, list and string of a tree lives in the arena given to
 * sql_parse() and dies with it. Strings are NUL-terminated copies (decoded:
 * escapes in string literals resolved, backquotes removed). Lists are a
 * count and an array. Optional parts are NULL (or 0 for counts).
 *
 * Identifiers keep their original spelling; comparing them is the binder's
 * job and is case-insensitive (Spark's default).
 */
#ifndef SILT_SQL_AST_H
#define SILT_SQL_AST_H

#include <stddef.h>
#include <stdint.h>

#include "formats/columnar.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

typedef struct sql_expr sql_expr;
typedef struct sql_query sql_query;
typedef struct sql_table_ref sql_table_ref;
typedef struct sql_stmt sql_stmt;

typedef struct sql_ident {
    const char *name; /* unquoted, original spelling */
    uint32_t pos;
    uint8_t quoted;   /* written with backquotes */
} sql_ident;

/* A possibly qualified name: db.t, a.b.c, delta.`/path`. */
typedef struct sql_name {
    size_t n_parts;
    sql_ident *parts;
    uint32_t pos;
    /* Written as a string where a table may be a path (VACUUM '/p', DESCRIBE
     * HISTORY '/p', REFRESH '/p'): one part, the path. */
    uint8_t is_path;
} sql_name;

typedef struct sql_expr_list {
    size_t n;
    sql_expr **items;
} sql_expr_list;

typedef struct sql_ident_list {
    size_t n;
    sql_ident *items;
} sql_ident_list;

/* A written type, resolved to a Delta type when there is one. */
typedef struct sql_type {
    const col_type *type;   /* never NULL after a successful parse */
    int32_t char_len;       /* VARCHAR(n) / CHAR(n): n; -1 otherwise */
    uint8_t is_char;        /* 1 VARCHAR, 2 CHAR (both are strings in Delta) */
    uint32_t pos;
} sql_type;

/* ---------------------------------------------------------------- expressions */

typedef enum sql_lit_kind {
    SQL_LIT_NULL,
    SQL_LIT_BOOL,
    SQL_LIT_BYTE,      /* 1Y */
    SQL_LIT_SHORT,     /* 1S */
    SQL_LIT_INT,       /* 1 (fits an int) */
    SQL_LIT_LONG,      /* 1L, or a plain integer beyond the int range */
    SQL_LIT_DECIMAL,   /* 1.5, 1.5BD, an integer beyond the long range */
    SQL_LIT_DOUBLE,    /* 1.5D, 1e10 */
    SQL_LIT_FLOAT,     /* 1.5F */
    SQL_LIT_STRING,
    SQL_LIT_BINARY,    /* X'0AFF' */
    SQL_LIT_DATE,      /* DATE '...' */
    SQL_LIT_TIMESTAMP, /* TIMESTAMP '...' / TIMESTAMP_LTZ '...' */
    SQL_LIT_TIMESTAMP_NTZ,
    SQL_LIT_INTERVAL
} sql_lit_kind;

typedef struct sql_interval_part {
    const char *value; /* the number or string as written (sign included) */
    const char *unit;  /* canonical singular lower case ("day"); NULL for INTERVAL '1 day' */
} sql_interval_part;

typedef struct sql_literal {
    sql_lit_kind kind;
    /*
     * BOOL (0/1), BYTE..LONG, DATE (days since 1970-01-01), TIMESTAMP* (micros;
     * a TIMESTAMP without a zone is read in UTC, silt's session zone; the text
     * stays in str for a binder that applies another zone).
     */
    int64_t i64;
    double f64;           /* DOUBLE, FLOAT */
    /* DECIMAL: the digits without sign, point or suffix, plus precision/scale. */
    const char *digits;
    int32_t precision, scale;
    uint8_t negative;     /* DECIMAL sign */
    /* STRING (decoded; may hold NUL bytes, see str_len), BINARY (bytes), DATE/TIMESTAMP text. */
    const char *str;
    size_t str_len;
    /* INTERVAL */
    size_t n_parts;
    sql_interval_part *parts;
    const char *to_unit;  /* INTERVAL '1-2' YEAR TO MONTH */
} sql_literal;

typedef enum sql_expr_kind {
    SQL_EXPR_LITERAL,
    SQL_EXPR_COLUMN,    /* name: a, t.a, a.b.c (field access resolved by the binder) */
    SQL_EXPR_STAR,      /* *, t.* (name = qualifier, n_parts 0 for plain *) */
    SQL_EXPR_UNARY,     /* op: - + ~ NOT */
    SQL_EXPR_BINARY,    /* op: arithmetic, comparison, AND, OR, ||, bitwise */
    SQL_EXPR_IS,        /* IS [NOT] NULL/TRUE/FALSE/UNKNOWN */
    SQL_EXPR_BETWEEN,
    SQL_EXPR_IN_LIST,
    SQL_EXPR_IN_QUERY,
    SQL_EXPR_EXISTS,
    SQL_EXPR_LIKE,      /* LIKE, ILIKE, RLIKE/REGEXP, with ANY/ALL */
    SQL_EXPR_CASE,
    SQL_EXPR_CAST,      /* CAST, TRY_CAST, x::type */
    SQL_EXPR_FUNC,
    SQL_EXPR_SUBQUERY,  /* scalar subquery */
    SQL_EXPR_FIELD,     /* expr.field where expr is not a plain name */
    SQL_EXPR_SUBSCRIPT, /* expr[index] */
    SQL_EXPR_LAMBDA,    /* x -> ..., (x, y) -> ... */
    SQL_EXPR_ROW,       /* (a, b) */
    SQL_EXPR_NAMED_ARG, /* name => value, in function arguments */
    SQL_EXPR_ALIAS,     /* value AS name, in function arguments (struct(1 AS a)) */
    SQL_EXPR_EXTRACT,   /* EXTRACT(field FROM expr) */
    SQL_EXPR_PARAM      /* ? or :name */
} sql_expr_kind;

typedef enum sql_op {
    SQL_OP_NONE,
    SQL_OP_NEG, SQL_OP_PLUS, SQL_OP_BITNOT, SQL_OP_NOT,
    SQL_OP_ADD, SQL_OP_SUB, SQL_OP_MUL, SQL_OP_DIV, SQL_OP_MOD, SQL_OP_INTDIV, SQL_OP_CONCAT,
    SQL_OP_BITAND, SQL_OP_BITOR, SQL_OP_BITXOR, SQL_OP_SHL, SQL_OP_SHR, SQL_OP_USHR,
    SQL_OP_EQ, SQL_OP_NEQ, SQL_OP_LT, SQL_OP_LE, SQL_OP_GT, SQL_OP_GE,
    SQL_OP_NSEQ,          /* <=>, also IS NOT DISTINCT FROM */
    SQL_OP_DISTINCT_FROM, /* IS DISTINCT FROM */
    SQL_OP_AND, SQL_OP_OR
} sql_op;

typedef enum sql_is_kind { SQL_IS_NULL, SQL_IS_TRUE, SQL_IS_FALSE, SQL_IS_UNKNOWN } sql_is_kind;

typedef enum sql_like_kind { SQL_LIKE, SQL_ILIKE, SQL_RLIKE } sql_like_kind;

typedef enum sql_quantifier { SQL_QUANT_NONE, SQL_QUANT_ANY, SQL_QUANT_ALL } sql_quantifier;

typedef struct sql_order_item {
    sql_expr *expr;
    uint8_t desc;
    uint8_t nulls;  /* 0 default, 1 NULLS FIRST, 2 NULLS LAST */
} sql_order_item;

typedef struct sql_order_list {
    size_t n;
    sql_order_item *items;
} sql_order_list;

typedef enum sql_frame_bound_kind {
    SQL_BOUND_NONE,
    SQL_BOUND_UNBOUNDED_PRECEDING,
    SQL_BOUND_PRECEDING,
    SQL_BOUND_CURRENT_ROW,
    SQL_BOUND_FOLLOWING,
    SQL_BOUND_UNBOUNDED_FOLLOWING
} sql_frame_bound_kind;

typedef struct sql_frame_bound {
    sql_frame_bound_kind kind;
    sql_expr *offset; /* PRECEDING/FOLLOWING */
} sql_frame_bound;

typedef struct sql_window {
    const char *base_name;      /* OVER (w ORDER BY ...): the window it refines */
    sql_expr_list partition_by;
    sql_order_list order_by;
    uint8_t frame;              /* 0 none, 1 ROWS, 2 RANGE */
    sql_frame_bound start, end; /* end.kind NONE when no BETWEEN */
    uint32_t pos;
} sql_window;

typedef struct sql_when {
    sql_expr *cond;
    sql_expr *result;
} sql_when;

struct sql_expr {
    sql_expr_kind kind;
    uint32_t pos;
    union {
        sql_literal lit;
        sql_name column;                 /* COLUMN; STAR qualifier */
        struct {
            sql_op op;
            sql_expr *left, *right;      /* UNARY uses left */
        } op;
        struct {
            sql_expr *arg;
            sql_is_kind what;
            uint8_t negated;
        } is;
        struct {
            sql_expr *arg, *low, *high;
            uint8_t negated;
        } between;
        struct {
            sql_expr *arg;
            sql_expr_list list;
            sql_query *query;            /* IN_QUERY, EXISTS, SUBQUERY */
            uint8_t negated;
        } in;
        struct {
            sql_expr *arg;
            sql_like_kind like;
            sql_quantifier quant;
            sql_expr_list patterns;      /* one unless ANY/ALL */
            sql_expr *escape;
            uint8_t negated;
        } like;
        struct {
            sql_expr *operand;           /* simple CASE; NULL for searched */
            size_t n_whens;
            sql_when *whens;
            sql_expr *else_result;
        } case_;
        struct {
            sql_expr *arg;
            sql_type type;
            uint8_t is_try;
        } cast;
        struct {
            sql_name name;
            sql_expr_list args;
            uint8_t distinct;
            uint8_t star;                /* count(*) */
            uint8_t nulls;               /* 0, 1 IGNORE NULLS, 2 RESPECT NULLS */
            /*
             * TRIM([BOTH|LEADING|TRAILING] [chars] FROM str): args are (str[, chars])
             * and trim is 1 BOTH, 2 LEADING, 3 TRAILING; 0 for every other call.
             */
            uint8_t trim;
            sql_expr *filter;            /* FILTER (WHERE ...) */
            sql_window *over;            /* OVER (...) */
            const char *over_name;       /* OVER w */
        } func;
        struct {
            sql_expr *base;
            sql_ident field;             /* FIELD */
            sql_expr *index;             /* SUBSCRIPT */
        } access;
        struct {
            sql_ident_list params;
            sql_expr *body;
        } lambda;
        sql_expr_list row;
        struct {
            sql_ident name;
            sql_expr *value;
        } named;                         /* NAMED_ARG, ALIAS */
        struct {
            sql_ident field;
            sql_expr *arg;
        } extract;
        struct {
            const char *name;            /* NULL for ? */
        } param;
    } u;
};

/* ---------------------------------------------------------------- queries */

typedef enum sql_join_kind {
    SQL_JOIN_INNER,
    SQL_JOIN_LEFT,
    SQL_JOIN_RIGHT,
    SQL_JOIN_FULL,
    SQL_JOIN_CROSS,
    SQL_JOIN_SEMI,
    SQL_JOIN_ANTI
} sql_join_kind;

typedef enum sql_table_kind {
    SQL_TABLE_NAMED,    /* a catalog name or format.`path` */
    SQL_TABLE_FUNC,     /* read_files(...), table_changes(...) */
    SQL_TABLE_SUBQUERY, /* (query) alias, VALUES ... */
    SQL_TABLE_JOIN,
    SQL_TABLE_PIVOT,    /* source PIVOT (aggs FOR cols IN (values)) */
    SQL_TABLE_UNPIVOT   /* source UNPIVOT (values FOR name IN (cols)) */
} sql_table_kind;

typedef enum sql_sample_kind {
    SQL_SAMPLE_PERCENT,
    SQL_SAMPLE_ROWS,
    SQL_SAMPLE_BUCKET
} sql_sample_kind;

/* TABLESAMPLE (n PERCENT | n ROWS | BUCKET x OUT OF y) [REPEATABLE (seed)] */
typedef struct sql_sample {
    sql_sample_kind kind;
    sql_expr *amount;    /* PERCENT, ROWS; BUCKET: x */
    sql_expr *out_of;    /* BUCKET: y */
    sql_expr *seed;      /* REPEATABLE */
} sql_sample;

typedef struct sql_alias {
    const char *name;       /* NULL when none */
    sql_ident_list columns; /* t(a, b) */
} sql_alias;

/* Time travel and references on a table name. */
typedef struct sql_table_version {
    sql_expr *version;   /* VERSION AS OF n */
    sql_expr *timestamp; /* TIMESTAMP AS OF expr */
    const char *ref;     /* t@ref (branch, tag or v<n>), NULL when none */
} sql_table_version;

typedef struct sql_kv {
    const char *key;   /* dotted keys joined with '.', or a string */
    const char *value; /* the literal as text (strings decoded); NULL when absent */
    uint32_t pos;
} sql_kv;

typedef struct sql_kv_list {
    size_t n;
    sql_kv *items;
} sql_kv_list;

struct sql_table_ref {
    sql_table_kind kind;
    uint32_t pos;
    sql_alias alias;
    sql_sample *sample;  /* NAMED, SUBQUERY: TABLESAMPLE, NULL when none */
    /* STREAM name [WITH (options)] / STREAM read_files(...): a streaming source (stream/) */
    uint8_t stream;
    sql_kv_list stream_options;
    /*
     * STREAM ... WATERMARK expr [AS name] DELAY OF interval (Databricks SQL's
     * watermark clause): the event-time expression (an ALIAS node when named)
     * and the delay (an interval literal); NULL when absent.
     */
    sql_expr *watermark;
    sql_expr *watermark_delay;
    union {
        struct {
            sql_name name;
            sql_table_version at;
        } named;
        struct {
            sql_name name;
            sql_expr_list args; /* named arguments are SQL_EXPR_NAMED_ARG */
            /* T-SQL's OPENROWSET(BULK ...): rowset 1, its WITH (...) columns when given */
            uint8_t rowset;
            struct sql_column_list *with_cols;
        } func;
        struct {
            sql_query *query;
            uint8_t lateral;
        } subquery;
        struct {
            sql_join_kind join;
            uint8_t natural;
            sql_table_ref *left, *right;
            sql_expr *on;
            sql_ident_list using_cols;
        } join;
        struct {
            sql_table_ref *source;
            sql_expr_list aggregates;  /* AS aliases are SQL_EXPR_ALIAS */
            sql_ident_list columns;    /* FOR col | FOR (c1, c2) */
            sql_expr_list values;      /* IN (v [AS a], (v1, v2) [AS a], ...) */
        } pivot;
        struct {
            sql_table_ref *source;
            uint8_t include_nulls;
            sql_ident_list value_columns; /* v | (v1, v2) */
            sql_ident name_column;
            sql_expr_list columns;        /* IN (c [AS a], (c1, c2) [AS a], ...) */
        } unpivot;
    } u;
};

typedef struct sql_select_item {
    sql_expr *expr;
    const char *alias; /* NULL when none */
} sql_select_item;

typedef enum sql_group_kind {
    SQL_GROUP_EXPR,          /* a plain expression (or an ordinal) */
    SQL_GROUP_ROLLUP,
    SQL_GROUP_CUBE,
    SQL_GROUP_GROUPING_SETS
} sql_group_kind;

typedef struct sql_group_item {
    sql_group_kind kind;
    sql_expr *expr;      /* EXPR */
    size_t n_sets;       /* ROLLUP/CUBE: one set per element; GROUPING SETS: the sets */
    sql_expr_list *sets;
} sql_group_item;

/* LATERAL VIEW [OUTER] explode(xs) t AS a, b (Hive syntax Spark keeps). */
typedef struct sql_lateral_view {
    uint8_t outer;
    sql_expr *func;
    const char *table_alias;
    sql_ident_list columns;
} sql_lateral_view;

typedef struct sql_named_window {
    const char *name;
    sql_window *window;
} sql_named_window;

typedef struct sql_select {
    uint8_t distinct;
    size_t n_items;
    sql_select_item *items;
    size_t n_from;
    sql_table_ref **from;   /* comma-separated items; joins inside */
    sql_expr *where;
    uint8_t group_all;      /* GROUP BY ALL */
    size_t n_group;
    sql_group_item *group;
    sql_expr *having;
    size_t n_windows;
    sql_named_window *windows;
    sql_expr *qualify;
    size_t n_lateral_views;
    struct sql_lateral_view *lateral_views;
} sql_select;

typedef enum sql_query_kind {
    SQL_QUERY_SELECT,
    SQL_QUERY_SETOP,
    SQL_QUERY_VALUES,
    SQL_QUERY_TABLE,  /* TABLE t */
    SQL_QUERY_NESTED  /* (query) that carries its own ORDER BY/LIMIT under an outer one */
} sql_query_kind;

typedef enum sql_setop { SQL_SETOP_UNION, SQL_SETOP_INTERSECT, SQL_SETOP_EXCEPT } sql_setop;

typedef struct sql_cte {
    const char *name;
    sql_ident_list columns;
    sql_query *query;
} sql_cte;

struct sql_query {
    sql_query_kind kind;
    uint32_t pos;
    size_t n_ctes;
    sql_cte *ctes;
    union {
        sql_select select;
        struct {
            sql_setop op;
            uint8_t all;        /* UNION ALL */
            sql_query *left, *right;
        } setop;
        struct {
            size_t n_rows;
            sql_expr_list *rows;
        } values;
        sql_name table;
        sql_query *nested;
    } u;
    sql_order_list order_by;
    /*
     * Spark's partition-level clauses, kept apart from ORDER BY because they
     * mean something else: SORT BY sorts within each partition, DISTRIBUTE BY
     * repartitions, CLUSTER BY is both.
     */
    sql_order_list sort_by;
    sql_expr_list distribute_by;
    sql_expr_list cluster_by;
    sql_expr *limit;   /* NULL = none (also LIMIT ALL) */
    sql_expr *offset;
    /* limit came from T-SQL's SELECT TOP n: an ORDER BY after the block sorts before it */
    uint8_t limit_from_top;
};

/* ---------------------------------------------------------------- statements */


typedef enum sql_column_position {
    SQL_POSITION_DEFAULT, /* appended at the end */
    SQL_POSITION_FIRST,
    SQL_POSITION_AFTER
} sql_column_position;

typedef struct sql_column_def {
    sql_name parent;      /* ADD COLUMNS (s.inner INT): the struct path "s"; empty otherwise */
    sql_ident name;
    sql_type type;
    uint8_t not_null;
    const char *comment;
    sql_expr *generated;  /* GENERATED ALWAYS AS (expr) */
    const char *generated_text; /* ... its text as written (delta.generationExpression) */
    sql_expr *default_value;
    uint8_t identity;     /* GENERATED ... AS IDENTITY */
    uint8_t identity_always;
    int64_t identity_start, identity_step;
    sql_column_position position; /* ADD COLUMNS / ALTER COLUMN: FIRST or AFTER x */
    sql_ident after;
    /* OPENROWSET ... WITH (c type [COLLATE x] [n | 'path']): T-SQL only */
    const char *collate;
    int32_t ordinal;        /* 0 when none */
    const char *json_path;
} sql_column_def;

typedef struct sql_column_list {
    size_t n;
    sql_column_def *items;
} sql_column_list;

typedef struct sql_assignment {
    sql_name target;
    sql_expr *value;
} sql_assignment;

typedef struct sql_assignment_list {
    size_t n;
    sql_assignment *items;
} sql_assignment_list;

typedef enum sql_merge_match {
    SQL_MERGE_MATCHED,
    SQL_MERGE_NOT_MATCHED,          /* [BY TARGET] */
    SQL_MERGE_NOT_MATCHED_BY_SOURCE
} sql_merge_match;

typedef enum sql_merge_action {
    SQL_MERGE_UPDATE,
    SQL_MERGE_UPDATE_ALL,  /* UPDATE SET * */
    SQL_MERGE_DELETE,
    SQL_MERGE_INSERT,
    SQL_MERGE_INSERT_ALL   /* INSERT * */
} sql_merge_action;

typedef struct sql_merge_clause {
    sql_merge_match match;
    sql_expr *cond;
    sql_merge_action action;
    sql_assignment_list set;   /* UPDATE */
    sql_ident_list insert_cols;
    sql_expr_list insert_values;
    uint32_t pos;
} sql_merge_clause;

typedef enum sql_stmt_kind {
    SQL_STMT_QUERY,
    SQL_STMT_CREATE_TABLE,
    SQL_STMT_CREATE_VIEW,
    SQL_STMT_CREATE_DATABASE,
    SQL_STMT_DROP,
    SQL_STMT_USE,
    SQL_STMT_SHOW,
    SQL_STMT_DESCRIBE,
    SQL_STMT_INSERT,
    SQL_STMT_UPDATE,
    SQL_STMT_DELETE,
    SQL_STMT_MERGE,
    SQL_STMT_ALTER_TABLE,
    SQL_STMT_RESTORE,
    SQL_STMT_VACUUM,
    SQL_STMT_OPTIMIZE,
    SQL_STMT_GENERATE,
    SQL_STMT_CONVERT,
    SQL_STMT_SET,
    SQL_STMT_RESET,
    SQL_STMT_EXPLAIN,
    SQL_STMT_CACHE,
    SQL_STMT_UNCACHE,
    SQL_STMT_CREATE_REF,   /* CREATE BRANCH / CREATE TAG */
    SQL_STMT_DROP_REF,
    SQL_STMT_USE_REF,
    SQL_STMT_LIST_REFS,
    SQL_STMT_MERGE_BRANCH,
    SQL_STMT_REFRESH,      /* REFRESH [TABLE] t */
    SQL_STMT_TRUNCATE,     /* TRUNCATE TABLE t [PARTITION (...)] */
    SQL_STMT_REFRESH_STREAMING, /* REFRESH STREAMING TABLE t (truncate.name) */
    SQL_STMT_CREATE_EXTERNAL,  /* T-SQL: CREATE EXTERNAL DATA SOURCE | FILE FORMAT | TABLE ... WITH */
    SQL_STMT_ASSIGN_REF,   /* ASSIGN BRANCH|TAG x [TO ref [AT hash]] */
    SQL_STMT_SHOW_REF,     /* SHOW REFERENCE */
    SQL_STMT_SHOW_LOG      /* SHOW LOG [ref] */
} sql_stmt_kind;

typedef enum sql_object_kind {
    SQL_OBJ_TABLE,
    SQL_OBJ_VIEW,
    SQL_OBJ_DATABASE,
    SQL_OBJ_BRANCH,
    SQL_OBJ_TAG,
    SQL_OBJ_REFERENCE,
    SQL_OBJ_EXTERNAL_DATA_SOURCE, /* T-SQL's database-scoped objects (docs/serverless.md) */
    SQL_OBJ_EXTERNAL_FILE_FORMAT
} sql_object_kind;

typedef enum sql_show_kind {
    SQL_SHOW_DATABASES,
    SQL_SHOW_TABLES,
    SQL_SHOW_VIEWS,
    SQL_SHOW_COLUMNS,
    SQL_SHOW_TBLPROPERTIES,
    SQL_SHOW_CREATE_TABLE,
    SQL_SHOW_PARTITIONS,
    SQL_SHOW_FUNCTIONS
} sql_show_kind;

typedef enum sql_describe_kind {
    SQL_DESCRIBE_TABLE,
    SQL_DESCRIBE_HISTORY,
    SQL_DESCRIBE_DETAIL,
    SQL_DESCRIBE_DATABASE,
    SQL_DESCRIBE_QUERY
} sql_describe_kind;

typedef enum sql_alter_kind {
    SQL_ALTER_ADD_COLUMNS,
    SQL_ALTER_DROP_COLUMNS,
    SQL_ALTER_RENAME_COLUMN,
    SQL_ALTER_ALTER_COLUMN,
    SQL_ALTER_SET_PROPERTIES,
    SQL_ALTER_UNSET_PROPERTIES,
    SQL_ALTER_RENAME_TO,
    SQL_ALTER_SET_LOCATION,
    SQL_ALTER_ADD_CONSTRAINT,  /* Delta CHECK constraints */
    SQL_ALTER_DROP_CONSTRAINT
} sql_alter_kind;

typedef enum sql_column_change {
    SQL_CHANGE_NONE,
    SQL_CHANGE_TYPE,          /* ALTER COLUMN c TYPE t */
    SQL_CHANGE_COMMENT,       /* ALTER COLUMN c COMMENT '...' */
    SQL_CHANGE_SET_NOT_NULL,
    SQL_CHANGE_DROP_NOT_NULL,
    SQL_CHANGE_POSITION,      /* ALTER COLUMN c FIRST | AFTER x */
    SQL_CHANGE_SET_DEFAULT,
    SQL_CHANGE_DROP_DEFAULT
} sql_column_change;

typedef enum sql_explain_mode {
    SQL_EXPLAIN_SIMPLE,
    SQL_EXPLAIN_EXTENDED,
    SQL_EXPLAIN_FORMATTED,
    SQL_EXPLAIN_CODEGEN,
    SQL_EXPLAIN_COST,
    SQL_EXPLAIN_ANALYZE /* not Spark's: runs the query and shows rows and time per operator */
} sql_explain_mode;

struct sql_stmt {
    sql_stmt_kind kind;
    uint32_t pos;      /* first byte of the statement */
    uint32_t end;      /* one past its last byte (before ';') */
    /* WITH c AS (...) INSERT/UPDATE/DELETE/MERGE ...: CTEs visible to the whole statement */
    size_t n_ctes;
    sql_cte *ctes;
    union {
        sql_query *query;
        struct {
            uint8_t or_replace, replace, if_not_exists, external, temporary;
            /* CREATE [OR REFRESH] STREAMING TABLE (or_replace: OR REFRESH); run by stream/ */
            uint8_t streaming;
            sql_name name;
            sql_column_list columns;
            const char *using_fmt;
            sql_ident_list partitioned_by;
            sql_ident_list cluster_by;
            /* CLUSTERED BY (cols) [SORTED BY (...)] INTO n BUCKETS (Delta refuses buckets) */
            sql_ident_list bucket_by;
            sql_order_list bucket_sort;
            int64_t n_buckets;
            const char *location;
            const char *comment;
            sql_kv_list properties;
            sql_kv_list options;
            sql_query *as_query;
            sql_name like;         /* CREATE TABLE t LIKE source */
            /* CREATE TABLE t [SHALLOW|DEEP] CLONE source [VERSION AS OF n]: 1 shallow, 2 deep */
            uint8_t clone;
            sql_name clone_source;
            sql_table_version clone_at;
        } create_table;
        struct {
            uint8_t or_replace, temporary, global, if_not_exists;
            sql_name name;
            sql_ident_list columns;
            const char **column_comments; /* columns.n entries, NULL when none */
            sql_type *column_types;       /* columns.n entries when typed_columns */
            uint8_t typed_columns;        /* (a INT, b STRING) USING fmt: the schema */
            const char *comment;
            sql_kv_list properties;
            sql_query *query;      /* AS query */
            const char *using_fmt; /* CREATE TEMPORARY VIEW v USING fmt OPTIONS (...) */
            sql_kv_list options;
        } create_view;
        struct {
            uint8_t if_not_exists;
            sql_name name;
            const char *location;
            const char *comment;
            sql_kv_list properties;
        } create_database;
        struct {
            sql_object_kind what;  /* EXTERNAL_DATA_SOURCE, EXTERNAL_FILE_FORMAT or TABLE */
            sql_name name;
            sql_column_list columns; /* TABLE */
            /* WITH ( KEY = value, ... ): keys upper-case as written, FORMAT_OPTIONS (...)
             * flattened to FORMAT_OPTIONS.KEY; values decoded strings or the word/number */
            sql_kv_list with;
        } create_external;
        struct {
            sql_object_kind what;
            uint8_t if_exists, cascade, purge;
            sql_name name;
            sql_name in;           /* DROP BRANCH b IN catalog */
        } drop;
        struct {
            sql_name name;
        } use;
        struct {
            sql_show_kind what;
            sql_name name;         /* table (COLUMNS, TBLPROPERTIES, ...) */
            sql_name in;           /* IN/FROM database */
            const char *like;
            const char *key;       /* SHOW TBLPROPERTIES t (key) */
        } show;
        struct {
            sql_describe_kind what;
            uint8_t extended;      /* EXTENDED or FORMATTED */
            sql_name name;
            sql_name column;       /* DESCRIBE t col */
            sql_query *query;      /* DESCRIBE QUERY */
            sql_expr *limit;       /* DESCRIBE HISTORY t LIMIT n */
        } describe;
        struct {
            uint8_t overwrite, by_name, schema_evolution, if_not_exists;
            sql_name table;
            sql_table_version at;
            sql_ident_list columns;
            size_t n_partition;
            sql_assignment *partition; /* PARTITION (p = v, q): value NULL when dynamic */
            sql_expr *replace_where;
            sql_query *query;
        } insert;
        struct {
            sql_table_ref *table;  /* NAMED with optional alias */
            sql_assignment_list set;
            sql_expr *where;
        } update;
        struct {
            sql_table_ref *table;
            sql_expr *where;
        } delete_;
        struct {
            uint8_t schema_evolution;
            sql_table_ref *target;
            sql_table_ref *source;
            sql_expr *on;
            size_t n_clauses;
            sql_merge_clause *clauses;
        } merge;
        struct {
            sql_alter_kind what;
            uint8_t if_exists;
            sql_name name;
            sql_column_list columns;  /* ADD COLUMNS; ALTER COLUMN (one, type/comment) */
            sql_ident_list drop_columns; /* DROP COLUMN(S): each path's first part */
            sql_name *drop_paths;        /* ... and each whole path (s.y), drop_columns.n */
            sql_name column;          /* RENAME/ALTER COLUMN target */
            sql_name new_name;        /* RENAME TO, RENAME COLUMN ... TO */
            sql_kv_list properties;
            const char *location;
            /* ALTER COLUMN: the change, its value in columns.items[0] (type, comment,
             * position, default_value) */
            sql_column_change column_change;
            const char *constraint;   /* ADD/DROP CONSTRAINT name */
            sql_expr *check;          /* ADD CONSTRAINT name CHECK (expr) */
        } alter;
        struct {
            sql_name name;
            sql_table_version at;
        } restore;
        struct {
            sql_name name;
            sql_expr *retain_hours;
            uint8_t dry_run;
        } vacuum;
        struct {
            sql_name name;
            sql_expr *where;
            sql_ident_list zorder_by;
            uint8_t purge; /* REORG TABLE ... APPLY (PURGE) */
        } optimize;
        struct {
            const char *mode;
            sql_name name;
        } generate;
        struct {
            sql_name name;
            sql_column_list partitioned_by;
        } convert;
        struct {
            const char *key;   /* NULL for a bare SET (list), or RESET of all */
            const char *value; /* NULL for SET key (show one) */
        } set;
        struct {
            sql_explain_mode mode;
            sql_stmt *stmt;
        } explain;
        struct {
            uint8_t lazy, if_exists;
            sql_name name;
            sql_query *query;
        } cache;
        struct {
            sql_object_kind what;  /* BRANCH, TAG or REFERENCE */
            uint8_t if_not_exists;
            sql_name name;
            sql_name from;         /* FROM ref */
            sql_name in;           /* IN catalog */
            sql_name into;         /* MERGE BRANCH b INTO main */
            const char *hash;      /* USE REFERENCE r AT hash; FROM/TO r AT hash */
            uint8_t dry_run;       /* MERGE BRANCH ... DRY RUN */
        } ref;
        struct {
            sql_name name;
            size_t n_partition;
            sql_assignment *partition;
        } truncate;              /* TRUNCATE; REFRESH uses name only */
    } u;
};

typedef struct sql_stmt_list {
    size_t n;
    sql_stmt **items;
} sql_stmt_list;

/*
 * Prints a tree as a deterministic S-expression, one statement per line,
 * appended to out. Used by the tests; also handy in a debugger.
 */
silt_status sql_stmt_print(const sql_stmt *stmt, buf *out, silt_error *err);
silt_status sql_expr_print(const sql_expr *expr, buf *out, silt_error *err);

const char *sql_op_name(sql_op op);
/*
 * The conjuncts of e (a AND b AND ...) appended to out[*n..cap); those past
 * cap are dropped and *n stops at cap, so callers treat *n == cap as
 * "possibly more" (they push nothing down, or refuse).
 */
void sql_split_and(const sql_expr *e, const sql_expr **out, size_t *n, size_t cap);

#endif
