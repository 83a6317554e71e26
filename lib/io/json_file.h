/*
 * json_file.h - small JSON files (run manifests, estimate results) read
 * whole into a yajl tree.  Large inputs (Kineto traces) are streamed
 * instead; see read_kineto.c.
 */
#ifndef KS_JSON_FILE_H
#define KS_JSON_FILE_H

#include "ksample.h"

#include <yajl/yajl_tree.h>

/* Parses the file at path (at most max_bytes) into *root (free with
 * yajl_tree_free).  Errors name the file and, for syntax errors, the line. */
ks_status ks_json_file_parse(const char *path, size_t max_bytes, yajl_val *root,
                             ks_error *err);

#endif
