/* cmd_embed.c - `ksample embed`: one GCL-Sampler embedding per kernel launch
 * of a trace folder, from a trained model, as CSV. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample embed --model MODEL.ksm --traces DIR -o EMB.csv\n\n"
           "Writes the embedding of every kernel launch of the trace folder (the mean\n"
           "over its warps of the trained encoder's node states, on the un-augmented\n"
           "graph built with the model's bounds): a header 'id,name,e0,...' and one row\n"
           "per launch in launch order (id 0-based).\n\n"
           "options:\n"
           "  --model FILE       a model written by 'ksample train' or 'sample\n"
           "                     --save-model'\n"
           "  --traces DIR       the trace folder\n"
           "  -o, --output FILE  the CSV (default: standard output); written atomically\n"
           "  -h, --help         this text\n");
}

typedef struct embedding {
    const ks_gcl_corpus *c;
    const double *emb;
    size_t n, dim;
} embedding;

static ks_status write_csv(const void *ctx, FILE *f, ks_error *err)
{
    const embedding *e = ctx;
    fputs("id,name", f);
    for (size_t d = 0; d < e->dim; d++)
        fprintf(f, ",e%zu", d);
    fputc('\n', f);
    for (size_t i = 0; i < e->n; i++) {
        fprintf(f, "%zu,\"", i);
        for (const char *c = ks_gcl_corpus_name(e->c, i); *c; c++)
            fputs(*c == '"' ? "\"\"" : (char[2]){*c, 0}, f);
        fputc('"', f);
        for (size_t d = 0; d < e->dim; d++)
            fprintf(f, ",%.9g", e->emb[i * e->dim + d]);
        fputc('\n', f);
    }
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed") : KS_OK;
}

int cmd_embed(int argc, char **argv)
{
    static const struct option longopts[] = {{"model", required_argument, NULL, 'm'},
                                             {"traces", required_argument, NULL, 't'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *model = NULL, *traces = NULL, *output = "-";
    cli_loop l = {.cmd = "embed", .longopts = longopts, .shortopts = "ho:", .help = help,
                  .operands = -1};
    int opt;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'm': model = optarg; break;
        case 't': traces = optarg; break;
        case 'o': output = optarg; break;
        }
    }
    if (l.exit >= 0)
        return l.exit;
    if (optind != argc || !model || !traces)
        return cli_usage_error("embed", "expected --model MODEL and --traces DIR");
    const char *inputs[] = {model, traces};
    int crc = cli_check_output("embed", output, inputs, 2);
    if (crc)
        return crc;
    ks_error err;
    ks_error_clear(&err);
    ks_gcl_model *m = NULL;
    ks_gcl_corpus *c = NULL;
    size_t n = 0;
    double *emb = NULL;
    int rc = 0;
    if (ks_gcl_model_load(model, &m, &err) != KS_OK ||
        ks_gcl_corpus_open(&traces, 1, ks_gcl_model_options(m), &c, &err) != KS_OK)
        rc = cli_fail(&err);
    size_t dim = m ? ks_gcl_embedding_dim(m) : 0;
    n = c ? ks_gcl_corpus_launches(c) : 0;
    if (!rc && !(emb = malloc((n ? n : 1) * dim * sizeof *emb)))
        rc = KS_ERR_NOMEM;
    if (!rc && ks_gcl_corpus_embed(c, m, emb, &err) != KS_OK)
        rc = cli_fail(&err);
    embedding e = {c, emb, n, dim};
    if (!rc && ks_write_atomic(output, write_csv, &e, &err) != KS_OK)
        rc = cli_fail(&err);
    free(emb);
    ks_gcl_corpus_free(c);
    ks_gcl_model_free(m);
    return rc;
}
