/*
 * json_stream.h - a streaming JSON parser (yajl) whose events arrive in four
 * callbacks: each scalar with its kind and text, each key, and containers
 * opening and closing.  The streamed readers (Kineto traces, plans) share
 * the one yajl callback table in json_stream.c.
 */
#ifndef KS_JSON_STREAM_H
#define KS_JSON_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <yajl/yajl_parse.h>

typedef enum { KS_JSON_NULL, KS_JSON_BOOL, KS_JSON_NUMBER, KS_JSON_STRING } ks_json_kind;

/* Each returns 1 to go on, 0 to stop the parse (yajl then reports a client
 * cancel).  A scalar's text is the number or the string's bytes as yajl
 * gives them, "true"/"false" for a boolean, "null" for null. */
typedef struct ks_json_events {
    int (*scalar)(void *ctx, ks_json_kind kind, const char *s, size_t n);
    int (*key)(void *ctx, const char *s, size_t n);
    int (*open)(void *ctx, bool is_list);
    int (*close)(void *ctx, bool is_list);
} ks_json_events;

typedef struct ks_json_stream {
    const ks_json_events *on;
    void *ctx;
} ks_json_stream;

/* A yajl parser reporting to s->on with s->ctx (s must outlive it; free it
 * with yajl_free); NULL when out of memory. */
yajl_handle ks_json_stream_alloc(ks_json_stream *s);

#endif
