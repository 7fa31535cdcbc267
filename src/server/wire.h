/*
 * wire.h - the messages of the PostgreSQL frontend/backend protocol 3.0:
 * parsing what a client sends, building what the server answers.
 *
 * PROTOCOL: PostgreSQL documentation, "Frontend/Backend Protocol",
 * "Message Formats". Every message after the start-up packet is a type
 * byte, an Int32 length that counts itself but not the type, and a body;
 * integers are big-endian; strings are NUL-terminated.
 *
 * The parsers here take bytes from the network: they never trust a length
 * or a count, check every read against the end of the body, and return
 * SILT_CORRUPT with a message that names the message and what is wrong.
 * Parsed strings and value pointers point into the body (borrowed; the
 * body outlives the parsed struct); arrays are allocated in a caller's
 * arena-less scratch (srv_bind_clear frees them). fuzz/fuzz_pgwire.c runs
 * every parser over arbitrary bytes.
 */
#ifndef SILT_SERVER_WIRE_H
#define SILT_SERVER_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

#define SRV_PROTOCOL_3_0 196608 /* 3 << 16 */
#define SRV_SSL_REQUEST 80877103
#define SRV_GSSENC_REQUEST 80877104
#define SRV_CANCEL_REQUEST 80877102
/* PostgreSQL refuses a start-up packet over 10,000 bytes (MAX_STARTUP_PACKET_LENGTH). */
#define SRV_MAX_STARTUP 10000

/* A cursor over one message body. */
typedef struct srv_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    const char *what; /* the message's name, for errors */
} srv_reader;

void srv_reader_init(srv_reader *r, const void *data, size_t len, const char *what);
silt_status srv_read_byte(srv_reader *r, uint8_t *out, silt_error *err);
silt_status srv_read_i16(srv_reader *r, int16_t *out, silt_error *err);
silt_status srv_read_i32(srv_reader *r, int32_t *out, silt_error *err);
/* A NUL-terminated string inside the body; *out is borrowed. */
silt_status srv_read_cstr(srv_reader *r, const char **out, silt_error *err);
/* n raw bytes; *out is borrowed. */
silt_status srv_read_bytes(srv_reader *r, size_t n, const uint8_t **out, silt_error *err);
/* Fails unless the whole body was read (trailing bytes are a malformed message). */
silt_status srv_read_end(srv_reader *r, silt_error *err);

/* ---- the start-up packet (length, then code, then the rest) ---------------- */

#define SRV_MAX_STARTUP_PARAMS 64

typedef struct srv_startup {
    int32_t code; /* SRV_PROTOCOL_3_0, SRV_SSL_REQUEST, SRV_GSSENC_REQUEST or SRV_CANCEL_REQUEST */
    /* protocol 3.0: name/value pairs (borrowed) */
    size_t n_params;
    const char *names[SRV_MAX_STARTUP_PARAMS];
    const char *values[SRV_MAX_STARTUP_PARAMS];
    /* CancelRequest */
    int32_t cancel_pid;
    int32_t cancel_key;
} srv_startup;

/*
 * Parses a start-up packet body (the bytes after its Int32 length). A 3.x
 * minor version above 0 is accepted as 3.0 (the server answers with
 * NegotiateProtocolVersion, srv_session); another major is SILT_UNSUPPORTED.
 */
silt_status srv_parse_startup(srv_startup *out, const uint8_t *body, size_t len,
                              silt_error *err);
/* The value of a start-up parameter, or NULL. */
const char *srv_startup_get(const srv_startup *s, const char *name);

/* ---- extended query messages ------------------------------------------------ */

typedef struct srv_parse_msg {
    const char *name;
    const char *query;
    int16_t n_types;
    uint32_t *types; /* n_types OIDs (0 = unspecified), allocated; srv_parse_msg_clear */
} srv_parse_msg;

silt_status srv_parse_parse(srv_parse_msg *out, const uint8_t *body, size_t len, silt_error *err);
void srv_parse_msg_clear(srv_parse_msg *m);

typedef struct srv_bind_msg {
    const char *portal;
    const char *stmt;
    int16_t n_param_formats;
    int16_t *param_formats;
    int16_t n_params;
    const uint8_t **values; /* NULL for SQL NULL */
    int32_t *lengths;
    int16_t n_result_formats;
    int16_t *result_formats;
} srv_bind_msg;

silt_status srv_parse_bind(srv_bind_msg *out, const uint8_t *body, size_t len, silt_error *err);
void srv_bind_msg_clear(srv_bind_msg *m);
/* The format code of parameter idx (0-based): one code for all, one each, or text. */
int srv_bind_param_format(const srv_bind_msg *m, int idx);

/* Describe and Close: 'S' (statement) or 'P' (portal) and a name. */
silt_status srv_parse_target(uint8_t *kind_out, const char **name_out, const uint8_t *body,
                             size_t len, const char *what, silt_error *err);
silt_status srv_parse_execute(const char **portal_out, int32_t *max_rows_out,
                              const uint8_t *body, size_t len, silt_error *err);

/* ---- SASL ----------------------------------------------------------------- */

/* SASLInitialResponse: mechanism, then the client's first message (borrowed, not NUL-ended). */
silt_status srv_parse_sasl_initial(const char **mech_out, const uint8_t **data_out,
                                   size_t *len_out, const uint8_t *body, size_t len,
                                   silt_error *err);

/* ---- building backend messages --------------------------------------------- */

/* Starts message type in b (type byte and a length placeholder); returns its offset. */
silt_status srv_msg_begin(buf *b, char type, size_t *start_out, silt_error *err);
/* Writes the length of the message that starts at start. */
void srv_msg_end(buf *b, size_t start);
silt_status srv_put_i16(buf *b, int16_t v, silt_error *err);
silt_status srv_put_i32(buf *b, int32_t v, silt_error *err);
silt_status srv_put_cstr(buf *b, const char *s, silt_error *err);

/*
 * ErrorResponse ('E') or NoticeResponse ('N'): severity (ERROR, FATAL,
 * NOTICE), SQLSTATE, message, and optional detail, hint and position
 * (1-based character position in the query, 0 = none).
 */
silt_status srv_put_error(buf *b, char type, const char *severity, const char *sqlstate,
                          const char *message, const char *detail, const char *hint,
                          int position, silt_error *err);

#endif
