/*
 * json_stream.c - yajl's nine callbacks folded into json_stream.h's four.
 */
#include "json_stream.h"

static int on_null(void *c)
{
    ks_json_stream *s = c;
    return s->on->scalar(s->ctx, KS_JSON_NULL, "null", 4);
}

static int on_boolean(void *c, int b)
{
    ks_json_stream *s = c;
    return s->on->scalar(s->ctx, KS_JSON_BOOL, b ? "true" : "false", b ? 4 : 5);
}

static int on_number(void *c, const char *v, size_t n)
{
    ks_json_stream *s = c;
    return s->on->scalar(s->ctx, KS_JSON_NUMBER, v, n);
}

static int on_string(void *c, const unsigned char *v, size_t n)
{
    ks_json_stream *s = c;
    return s->on->scalar(s->ctx, KS_JSON_STRING, (const char *)v, n);
}

static int on_key(void *c, const unsigned char *v, size_t n)
{
    ks_json_stream *s = c;
    return s->on->key(s->ctx, (const char *)v, n);
}

static int on_start_map(void *c)
{
    ks_json_stream *s = c;
    return s->on->open(s->ctx, false);
}

static int on_end_map(void *c)
{
    ks_json_stream *s = c;
    return s->on->close(s->ctx, false);
}

static int on_start_array(void *c)
{
    ks_json_stream *s = c;
    return s->on->open(s->ctx, true);
}

static int on_end_array(void *c)
{
    ks_json_stream *s = c;
    return s->on->close(s->ctx, true);
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

yajl_handle ks_json_stream_alloc(ks_json_stream *s)
{
    return yajl_alloc(&callbacks, NULL, s);
}
