/*
 * params.c - parameters: the ones every method shares (ks_params), the
 * settings of method parameters by name, and their resolution against a
 * method's table (ks_param_def), which is the one place a parameter's type,
 * range, default and help are written.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ks_params_init(ks_params *p)
{
    memset(p, 0, sizeof *p);
    p->method = ks_methods()[0]->name; /* the first row of the table is the default */
    p->key = KS_KEY_NAME;
    p->epsilon = 0.05;
    p->confidence = 0.95;
    p->seed = 1;
    p->strict = 1;
    p->shape_share = NAN;
}

double ks_params_shape_share(const ks_params *p)
{
    return isnan(p->shape_share) ? p->epsilon / 4 : p->shape_share;
}

ks_status ks_params_set(ks_params *p, const char *name, const char *value, ks_error *err)
{
    if (strlen(name) >= sizeof p->settings[0].name)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "unknown parameter '%.40s'", name);
    if (strlen(value) >= sizeof p->settings[0].value)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--%s: value too long", name);
    size_t i = 0;
    while (i < p->setting_count && strcmp(p->settings[i].name, name) != 0)
        i++;
    if (i == p->setting_count) {
        if (i == KS_MAX_SETTINGS)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "too many parameters");
        p->setting_count++;
    }
    snprintf(p->settings[i].name, sizeof p->settings[i].name, "%s", name);
    snprintf(p->settings[i].value, sizeof p->settings[i].value, "%s", value);
    return KS_OK;
}

/* Integers as users write them: 10000000 (exact to 2^64 - 1), 1e7 and 10M
 * (while exact in a double); never nan, inf, hex, a sign or a fraction. */
bool ks_parse_count(const char *s, uint64_t *v)
{
    char *end;
    while (*s == ' ')
        s++;
    if (*s == '-' || *s == '+')
        return false;
    /* plain digits exactly, to 2^64 - 1 (a seed above 2^53 must not round) */
    size_t digits = strspn(s, "0123456789");
    if (digits > 0 && s[digits] == '\0') {
        errno = 0;
        unsigned long long x = strtoull(s, &end, 10);
        if (errno == ERANGE || *end != '\0')
            return false;
        *v = x;
        return true;
    }
    /* also 1e7 and 10M, while exact in a double (below 2^53) */
    for (const char *c = s; *c; c++)
        if (!strchr("0123456789.eE+-kKMG", *c))
            return false; /* nan, inf, hex */
    errno = 0;
    double d = strtod(s, &end);
    if (end == s)
        return false;
    if (*end == 'k' || *end == 'K')
        d *= 1e3, end++;
    else if (*end == 'M')
        d *= 1e6, end++;
    else if (*end == 'G')
        d *= 1e9, end++;
    if (*end != '\0' || !(d >= 0 && d <= 9007199254740992.0) || d != floor(d))
        return false;
    *v = (uint64_t)d;
    return true;
}

static bool parse_uint(const char *s, double *v)
{
    uint64_t u;
    if (!ks_parse_count(s, &u))
        return false;
    *v = (double)u;
    return true;
}

static bool parse_real(const char *s, double *v)
{
    return ks_parse_decimal(s, strlen(s), 0, v) == NULL;
}

ks_status ks_param_parse(const ks_param_def *def, const char *value, double *out,
                         ks_error *err)
{
    switch (def->type) {
    case KS_PARAM_BOOL:
        if (*value == '\0' || strcasecmp(value, "true") == 0 || strcmp(value, "1") == 0 ||
            strcasecmp(value, "yes") == 0)
            *out = 1;
        else if (strcasecmp(value, "false") == 0 || strcmp(value, "0") == 0 ||
                 strcasecmp(value, "no") == 0)
            *out = 0;
        else
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "--%s takes true or false, got '%s'", def->name, value);
        return KS_OK;
    case KS_PARAM_CHOICE:
        for (int i = 0; def->choices[i]; i++)
            if (strcmp(def->choices[i], value) == 0) {
                *out = i;
                return KS_OK;
            }
        ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--%s must be one of", def->name);
        for (int i = 0; def->choices[i]; i++) {
            size_t n = strlen(err->message);
            snprintf(err->message + n, sizeof err->message - n, "%s%s", i ? ", " : " ",
                     def->choices[i]);
        }
        {
            size_t n = strlen(err->message);
            snprintf(err->message + n, sizeof err->message - n, "; got '%.60s'", value);
        }
        return KS_ERR_USAGE;
    case KS_PARAM_UINT:
        if (!parse_uint(value, out) || *out < def->min || *out > def->max)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "--%s must be an integer in %.17g..%.17g, got '%s'", def->name,
                                def->min, def->max, value);
        return KS_OK;
    case KS_PARAM_REAL:
        if (!parse_real(value, out) || *out < def->min || *out > def->max)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "--%s must be a number in [%g, %g], got '%s'", def->name,
                                def->min, def->max, value);
        return KS_OK;
    }
    return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "parameter type");
}

static void store(const ks_param_def *def, void *base, double v)
{
    unsigned char *at = (unsigned char *)base + def->offset;
    switch (def->type) {
    case KS_PARAM_BOOL:
    case KS_PARAM_CHOICE: {
        int x = (int)v;
        memcpy(at, &x, sizeof x);
        break;
    }
    case KS_PARAM_UINT: {
        uint64_t x = (uint64_t)v;
        memcpy(at, &x, sizeof x);
        break;
    }
    case KS_PARAM_REAL:
        memcpy(at, &v, sizeof v);
        break;
    }
}

ks_status ks_method_resolve(const ks_method *m, const ks_params *params, void *out,
                            ks_error *err)
{
    if (m->params_size > KS_METHOD_PARAMS_MAX)
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "%s: parameter struct too large",
                            m->name);
    memset(out, 0, m->params_size ? m->params_size : 1);
    for (size_t i = 0; i < m->param_count; i++)
        store(&m->params[i], out, m->params[i].def);
    for (size_t s = 0; s < params->setting_count; s++) {
        const ks_setting *set = &params->settings[s];
        const ks_param_def *def = NULL;
        for (size_t i = 0; i < m->param_count && !def; i++)
            if (strcmp(m->params[i].name, set->name) == 0)
                def = &m->params[i];
        if (!def) {
            if (!params->strict)
                continue;
            ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--%s is not a parameter of %s",
                         set->name, m->name);
            size_t n = strlen(err->message);
            if (m->param_count == 0)
                snprintf(err->message + n, sizeof err->message - n, " (it has none of its own)");
            for (size_t i = 0; i < m->param_count; i++) {
                n = strlen(err->message);
                snprintf(err->message + n, sizeof err->message - n, "%s--%s",
                         i ? ", " : " (its own: ", m->params[i].name);
            }
            if (m->param_count) {
                n = strlen(err->message);
                snprintf(err->message + n, sizeof err->message - n, ")");
            }
            return KS_ERR_USAGE;
        }
        double v;
        ks_status st = ks_param_parse(def, set->value, &v, err);
        if (st != KS_OK)
            return st;
        store(def, out, v);
    }
    return m->check ? m->check(out, err) : KS_OK;
}
