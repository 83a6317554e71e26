/*
 * docgen.c - `ksample --write-docs DIR` (not listed in the usage): the man
 * pages and the bash completion, derived from what the command already has,
 * so that nothing is written twice:
 *   DIR/man/man1/ksample.1 from the usage text, and ksample-CMD.1 for every
 *     command of the table in main.c, converted from what `ksample CMD --help`
 *     prints (whose method parameters come from the methods' tables);
 *   DIR/bash-completion/completions/ksample: the commands, each command's
 *     options as its getopt table declares them (handed over by the shared
 *     option loop, cli_options_hook), and the values the library's tables
 *     define (methods, keys, input formats, exporters, synth presets, the
 *     choices of every method parameter).
 * It refuses (exit 6) when a command accepts an option that its --help does
 * not mention, or documents one that it does not accept.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------- a command's text */

/* What fn(argc, argv) prints on standard output (malloc'd), or NULL. */
static char *capture(int (*fn)(int, char **), int argc, char **argv)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    int saved = dup(STDOUT_FILENO);
    if (!tmp || saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
        if (tmp)
            fclose(tmp);
        if (saved >= 0)
            close(saved);
        return NULL;
    }
    fn(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    long size = ftell(tmp);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    rewind(tmp);
    if (text && fread(text, 1, (size_t)size, tmp) != (size_t)size) {
        free(text);
        text = NULL;
    }
    if (text)
        text[size] = '\0';
    fclose(tmp);
    return text;
}

static int usage_stdout(int argc, char **argv)
{
    cli_usage(stdout);
    return 0;
}

/* ------------------------------------------------------ options of a command */

enum { MAX_OPTS = 128, OPT_NAME = 40 };

typedef struct doc_options {
    size_t count;
    char name[MAX_OPTS][OPT_NAME]; /* long options, without "--" */
    bool has_arg[MAX_OPTS];
    char shorts[32];               /* short option letters */
    bool seen;                     /* the command went through the loop */
} doc_options;

static doc_options *collecting;

static void collect_options(const struct option *longopts, const char *shortopts)
{
    doc_options *o = collecting;
    o->seen = true;
    for (const struct option *lo = longopts; lo && lo->name; lo++) {
        size_t k = 0;
        while (k < o->count && strcmp(o->name[k], lo->name) != 0)
            k++;
        if (k < o->count || o->count == MAX_OPTS || strlen(lo->name) >= OPT_NAME)
            continue;
        snprintf(o->name[o->count], OPT_NAME, "%s", lo->name);
        o->has_arg[o->count++] = lo->has_arg != no_argument;
    }
    size_t n = 0;
    for (const char *c = shortopts; c && *c && n + 1 < sizeof o->shorts; c++)
        if (*c != ':')
            o->shorts[n++] = *c;
    o->shorts[n] = '\0';
}

/* The command's option table: what its loop is given when it runs. */
static void command_options(const cli_command *c, doc_options *o)
{
    memset(o, 0, sizeof *o);
    collecting = o;
    cli_options_hook = collect_options;
    char *argv[] = {(char *)c->name, "--help", NULL};
    free(capture(c->run, 2, argv)); /* a command without the loop prints its help */
    cli_options_hook = NULL;
    collecting = NULL;
    if (!o->seen) { /* it takes --help alone */
        snprintf(o->name[0], OPT_NAME, "help");
        o->count = 1;
        snprintf(o->shorts, sizeof o->shorts, "h");
    }
}

/* ------------------------------------------------------ help text -> roff */

static void roff_text(FILE *f, const char *s, size_t len, bool line_start)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (line_start && i == 0 && (c == '.' || c == '\''))
            fputs("\\&", f);
        if (c == '\\')
            fputs("\\e", f);
        else if (c == '-')
            fputs("\\-", f);
        else
            fputc(c, f);
    }
}

/* Where the description starts in an entry line "  TERM  description", or 0
 * when the line is a term alone: after the first run of two spaces, or at
 * column 21 (--help's description column) after a term of 18 characters. */
static size_t entry_split(const char *line, size_t len, size_t *term_len)
{
    for (size_t p = 2; p + 1 < len; p++)
        if (line[p] == ' ' && (line[p + 1] == ' ' || (p == 20 && line[p + 1] != ' '))) {
            *term_len = p;
            size_t d = p;
            while (d < len && line[d] == ' ')
                d++;
            return d < len ? d : 0;
        }
    *term_len = len;
    return 0;
}

/* An entry's term: options bold, their arguments italic; a term without
 * options (a format, a command, an exit code) bold. */
static void roff_term(FILE *f, const char *t, size_t len)
{
    bool options = t[0] == '-';
    size_t i = 0;
    while (i < len) {
        size_t w = i;
        while (w < len && t[w] != ' ')
            w++;
        size_t word = w, comma = 0;
        if (word > i && t[word - 1] == ',')
            word--, comma = 1;
        if (i)
            fputc(' ', f);
        fputs(!options || t[i] == '-' ? "\\fB" : "\\fI", f);
        roff_text(f, t + i, word - i, false);
        fputs("\\fR", f);
        if (comma)
            fputc(',', f);
        i = w;
        while (i < len && t[i] == ' ')
            i++;
    }
    fputc('\n', f);
}

static bool is_heading(const char *line, size_t len, bool after_blank, const char *next)
{
    return after_blank && len > 1 && line[0] != ' ' && line[len - 1] == ':' && len < 40 &&
           next && strncmp(next, "  ", 2) == 0;
}

/* Writes the man page of `name` (e.g. "ksample-sample") from its --help
 * text; a NULL summary is the main page (see_also lists every command). */
static int help_to_man(FILE *f, const char *name, const char *summary, const char *help)
{
    if (strncmp(help, "usage: ", 7) != 0)
        return -1;
    const char *usage = help + 7, *eol = strchr(usage, '\n');
    if (!eol)
        return -1;
    char upper[64];
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < sizeof upper; c++)
        upper[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
    upper[n] = '\0';
    fprintf(f, ".\\\" Written by 'ksample --write-docs' from '%s --help'; do not edit.\n",
            summary ? name : "ksample");
    fputs(".TH \"", f);
    roff_text(f, upper, n, false);
    fprintf(f, "\" \"1\" \"\" \"ksample %s\" \"ksample manual\"\n.SH NAME\n", KS_VERSION);
    roff_text(f, name, strlen(name), true);
    fputs(" \\- ", f);
    const char *what = summary ? summary : "kernel-level sampled GPU simulation";
    roff_text(f, what, strlen(what), false);
    fputs("\n.SH SYNOPSIS\n.B ", f);
    /* "ksample CMD" bold, the rest as written */
    size_t words = summary ? 2 : 1, b = 0;
    for (size_t w = 0; w < words && b < (size_t)(eol - usage); w++) {
        while (b < (size_t)(eol - usage) && usage[b] != ' ')
            b++;
        if (w + 1 < words && b < (size_t)(eol - usage))
            b++;
    }
    roff_text(f, usage, b, false);
    fputc('\n', f);
    while (b < (size_t)(eol - usage) && usage[b] == ' ')
        b++;
    if (b < (size_t)(eol - usage)) {
        roff_text(f, usage + b, (size_t)(eol - usage) - b, true);
        fputc('\n', f);
    }
    enum { NONE, PARAGRAPH, ENTRY } open = NONE;
    bool after_blank = true, section = false;
    for (const char *line = eol + 1; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *next = end ? end + 1 : NULL;
        bool heading = len && is_heading(line, len, after_blank, next);
        if (len && !heading && !section)
            fputs(".SH DESCRIPTION\n", f); /* text before the first heading */
        section |= len > 0;
        if (len == 0) {
            open = NONE;
            after_blank = true;
        } else if (heading) {
            fputs(".SH \"", f);
            for (size_t i = 0; i + 1 < len; i++) {
                char c = line[i];
                fputc(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c, f);
            }
            fputs("\"\n", f);
            open = NONE;
            after_blank = false;
        } else if (line[0] != ' ' || (len > 2 && line[2] == ' ' && open != ENTRY)) {
            size_t s = 0;
            while (s < len && line[s] == ' ')
                s++;
            if (open != PARAGRAPH) {
                fputs(".PP\n", f);
                open = PARAGRAPH;
            }
            roff_text(f, line + s, len - s, true);
            fputc('\n', f);
            after_blank = false;
        } else if (line[2] != ' ') {
            size_t term_len, desc = entry_split(line, len, &term_len);
            while (term_len > 2 && line[term_len - 1] == ' ')
                term_len--;
            fputs(".TP\n", f);
            roff_term(f, line + 2, term_len - 2);
            if (desc) {
                roff_text(f, line + desc, len - desc, true);
                fputc('\n', f);
            }
            open = ENTRY;
            after_blank = false;
        } else { /* the entry's description goes on */
            size_t s = 0;
            while (s < len && line[s] == ' ')
                s++;
            roff_text(f, line + s, len - s, true);
            fputc('\n', f);
        }
        line = next ? next : line + len;
    }
    fputs(".SH \"SEE ALSO\"\n", f);
    if (summary) {
        fputs("\\fBksample\\fR(1)\n", f);
    } else {
        for (size_t i = 0; i < cli_command_count; i++)
            fprintf(f, "\\fBksample\\-%s\\fR(1)%s\n", cli_commands[i].name,
                    i + 1 < cli_command_count ? "," : "");
    }
    return ferror(f) ? -1 : 0;
}

/* ---------------------------------------------------- help <-> option table */

/* Whether text names --name as a whole option. */
static bool mentions(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, "--"); p; p = strstr(p + 2, "--")) {
        char after = p[2 + n];
        if (strncmp(p + 2, name, n) == 0 && !(after == '-' || (after >= 'a' && after <= 'z') ||
                                               (after >= '0' && after <= '9')))
            return true;
    }
    return false;
}

/* Every option the table has is in the help, and every option an entry of
 * the help documents is in the table. */
static int check_documented(const char *cmd, const char *help, const doc_options *o)
{
    int bad = 0;
    for (size_t k = 0; k < o->count; k++)
        if (!mentions(help, o->name[k])) {
            fprintf(stderr, "ksample --write-docs: 'ksample %s' accepts --%s but its --help "
                            "does not say so\n", cmd, o->name[k]);
            bad = 1;
        }
    for (const char *line = help; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "  -", 3) != 0)
            continue;
        size_t len = strcspn(line, "\n"), term_len;
        entry_split(line, len, &term_len);
        for (const char *p = line + 2; p < line + term_len;) {
            size_t w = strcspn(p, " ,\n");
            if (w > 2 && p[0] == '-' && p[1] == '-' && w - 2 < OPT_NAME) {
                char name[OPT_NAME];
                snprintf(name, sizeof name, "%.*s", (int)(w - 2), p + 2);
                size_t k = 0;
                while (k < o->count && strcmp(o->name[k], name) != 0)
                    k++;
                if (k == o->count) {
                    fprintf(stderr, "ksample --write-docs: 'ksample %s --help' documents --%s, "
                                    "which it does not accept\n", cmd, name);
                    bad = 1;
                }
            }
            p += w;
            while (p < line + term_len && (*p == ' ' || *p == ','))
                p++;
        }
    }
    return bad;
}

/* ------------------------------------------------------------ completion */

/* The values an option takes, from the library's tables ("" if open);
 * *list: a comma-separated list of them. */
static void option_values(const char *opt, char *buf, size_t size, bool *list)
{
    buf[0] = '\0';
    *list = false;
    size_t n = 0;
#define ADD(s) (n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? " " : "", (s)))
    if (strcmp(opt, "method") == 0 || strcmp(opt, "methods") == 0) {
        *list = opt[6] == 's';
        for (const ks_method *const *m = ks_methods(); *m; m++)
            ADD((*m)->name);
    } else if (strcmp(opt, "key") == 0) {
        for (int k = 0; strcmp(ks_key_to_string((ks_key)k), "?") != 0; k++)
            ADD(ks_key_to_string((ks_key)k));
    } else if (strcmp(opt, "format") == 0 || strcmp(opt, "truth-format") == 0) {
        for (const char *const *r = ks_reader_names(); *r; r++)
            ADD(*r);
    } else if (strcmp(opt, "to") == 0) {
        for (const ks_exporter *const *e = ks_exporters(); *e; e++)
            ADD((*e)->name);
    } else if (strcmp(opt, "preset") == 0) {
        for (const char *const *p = ks_synth_presets(); *p; p += 2)
            ADD(*p);
        for (const char *const *p = ks_synth_traces_presets(); *p; p += 2)
            ADD(*p); /* with --traces */
    } else if (strcmp(opt, "estimator") == 0) {
        for (int e = 0; strcmp(ks_estimator_name((ks_estimator)e), "?") != 0; e++)
            ADD(ks_estimator_name((ks_estimator)e));
    } else if (strcmp(opt, "fit") == 0) {
        for (int e = 0; strcmp(ks_estimator_fit_name((ks_estimator_fit)e), "?") != 0; e++)
            ADD(ks_estimator_fit_name((ks_estimator_fit)e));
    } else if (strcmp(opt, "warmup") == 0) {
        /* each mode as the library writes it, with the default counts */
        static const ks_warmup modes[] = {
            {.mode = KS_WARMUP_NONE},
            {.mode = KS_WARMUP_SELF, .count = 1, .depth = 1},
            {.mode = KS_WARMUP_SAME, .count = 1, .depth = 1},
            {.mode = KS_WARMUP_PREV, .count = 1, .depth = 1},
            {.mode = KS_WARMUP_SINCE_SAME, .count = KS_WARMUP_DEFAULT_COUNT,
             .depth = KS_WARMUP_DEFAULT_DEPTH},
            {.mode = KS_WARMUP_SINCE_SAME, .count = 16, .depth = 2},
            {.mode = KS_WARMUP_STATE, .carrier = KS_STATE_KERNEL},
            {.mode = KS_WARMUP_STATE, .carrier = KS_STATE_MEMCPY},
            {.mode = KS_WARMUP_STATE, .carrier = KS_STATE_MEMCPY32},
            {.mode = KS_WARMUP_STATE, .carrier = KS_STATE_MEMCPY32_STORES},
            {.mode = KS_WARMUP_STATE, .carrier = KS_STATE_SPLIT}};
        ADD("state"); /* run's default: state:split on Accel-Sim, else the kernel */
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            char text[32];
            ks_warmup_format(&modes[i], text, sizeof text);
            ADD(text);
        }
        ADD("context"); /* estimate: values of a whole-program run */
    } else if (strcmp(opt, "state-lines") == 0) {
        ADD("all");
        ADD("auto");
        ADD("dirty");
        ADD("touched");
    } else if (strcmp(opt, "engine") == 0) {
        ADD("local");
        ADD("slurm");
    } else if (strcmp(opt, "single-sample") == 0) {
        ADD("plan");
        ADD("calibrate");
        ADD("collapse");
        ADD("profile-cv");
    } else if (strcmp(opt, "concurrent") == 0) {
        ADD("refuse");
        ADD("split");
    } else if (strcmp(opt, "name-kind") == 0) {
        ADD("demangled");
        ADD("short");
        ADD("mangled");
    } else {
        for (const ks_method *const *m = ks_methods(); *m && n == 0; m++)
            for (size_t i = 0; i < (*m)->param_count && n == 0; i++) {
                const ks_param_def *d = &(*m)->params[i];
                if (d->type == KS_PARAM_CHOICE && strcmp(d->name, opt) == 0)
                    for (size_t c = 0; d->choices[c]; c++)
                        ADD(d->choices[c]);
            }
    }
#undef ADD
}

static int write_completion(FILE *f, const doc_options *opts)
{
    fputs("# bash completion for ksample, written by 'ksample --write-docs' from its\n"
          "# commands, each command's option table and the library's tables (methods,\n"
          "# keys, input formats, exporters, presets, method parameter choices).\n"
          "_ksample()\n{\n"
          "    local cur prev words=\"\" list=0 opts=\"\"\n"
          "    cur=${COMP_WORDS[COMP_CWORD]}\n"
          "    prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    if [ \"$cur\" = \"=\" ]; then\n"
          "        cur=\"\"\n"
          "    elif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
          "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
          "    fi\n"
          "    COMPREPLY=()\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          f);
    for (size_t i = 0; i < cli_command_count; i++)
        fprintf(f, "%s ", cli_commands[i].name);
    fputs("--help --version\" -- \"$cur\"))\n"
          "        return 0\n"
          "    fi\n"
          "    case \"$prev\" in\n",
          f);
    /* every option with values of its own, once */
    char done[MAX_OPTS * 4][OPT_NAME];
    size_t ndone = 0;
    for (size_t c = 0; c < cli_command_count; c++)
        for (size_t k = 0; k < opts[c].count; k++) {
            if (!opts[c].has_arg[k])
                continue;
            size_t d = 0;
            while (d < ndone && strcmp(done[d], opts[c].name[k]) != 0)
                d++;
            if (d < ndone || ndone == sizeof done / sizeof done[0])
                continue;
            snprintf(done[ndone++], OPT_NAME, "%s", opts[c].name[k]);
            char values[1024];
            bool list;
            option_values(opts[c].name[k], values, sizeof values, &list);
            if (values[0])
                fprintf(f, "        --%s) words=\"%s\"%s;;\n", opts[c].name[k], values,
                        list ? "; list=1" : "");
        }
    fputs("    esac\n"
          "    if [ -n \"$words\" ]; then\n"
          "        if [ \"$list\" = 1 ] && [[ \"$cur\" == *,* ]]; then\n"
          "            COMPREPLY=($(compgen -P \"${cur%,*},\" -W \"$words\" -- \"${cur##*,}\"))\n"
          "        else\n"
          "            COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
          "        fi\n"
          "        return 0\n"
          "    fi\n"
          "    case \"${COMP_WORDS[1]}\" in\n",
          f);
    for (size_t c = 0; c < cli_command_count; c++) {
        fprintf(f, "        %s) opts=\"", cli_commands[c].name);
        for (size_t k = 0; k < opts[c].count; k++)
            fprintf(f, "%s--%s", k ? " " : "", opts[c].name[k]);
        for (const char *s = opts[c].shorts; *s; s++)
            fprintf(f, " -%c", *s);
        fputs("\";;\n", f);
    }
    fputs("    esac\n"
          "    if [[ \"$cur\" == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "        return 0\n"
          "    fi\n"
          "    compopt -o filenames 2>/dev/null\n"
          "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    return 0\n"
          "}\n"
          "complete -F _ksample ksample\n",
          f);
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------ files */

static int make_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static FILE *create(const char *dir, const char *sub, const char *name, char *path,
                    size_t size)
{
    snprintf(path, size, "%s/%s", dir, sub);
    if (make_dirs(path) != 0)
        return NULL;
    snprintf(path, size, "%s/%s/%s", dir, sub, name);
    return fopen(path, "w");
}

static int close_checked(FILE *f, const char *path)
{
    if (fclose(f) != 0) {
        fprintf(stderr, "ksample --write-docs: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

int cli_write_docs(const char *dir)
{
    char path[4096];
    int bad = 0;
    doc_options *opts = calloc(cli_command_count, sizeof *opts);
    char *usage = capture(usage_stdout, 0, NULL);
    FILE *f = opts && usage ? create(dir, "man/man1", "ksample.1", path, sizeof path) : NULL;
    if (!f) {
        fprintf(stderr, "ksample --write-docs: cannot write %s/man/man1/ksample.1: %s\n", dir,
                strerror(errno));
        free(opts);
        free(usage);
        return KS_ERR_IO;
    }
    bad |= help_to_man(f, "ksample", NULL, usage) != 0;
    bad |= close_checked(f, path);
    free(usage);
    for (size_t i = 0; i < cli_command_count; i++) {
        const cli_command *c = &cli_commands[i];
        char *argv[] = {(char *)c->name, "--help", NULL};
        char *help = capture(c->run, 2, argv), name[64], file[80];
        command_options(c, &opts[i]);
        snprintf(name, sizeof name, "ksample-%s", c->name);
        snprintf(file, sizeof file, "%s.1", name);
        if (!help || !(f = create(dir, "man/man1", file, path, sizeof path))) {
            fprintf(stderr, "ksample --write-docs: cannot write the page of %s\n", c->name);
            free(help);
            bad = 1;
            break;
        }
        if (help_to_man(f, name, c->summary, help) != 0) {
            fprintf(stderr, "ksample --write-docs: 'ksample %s --help' does not start with "
                            "'usage: '\n", c->name);
            bad = 1;
        }
        bad |= close_checked(f, path);
        bad |= check_documented(c->name, help, &opts[i]);
        free(help);
    }
    if (!bad) {
        f = create(dir, "bash-completion/completions", "ksample", path, sizeof path);
        bad = !f || write_completion(f, opts) != 0;
        if (f)
            bad |= close_checked(f, path);
    }
    free(opts);
    return bad ? KS_ERR_INTERNAL : 0;
}
