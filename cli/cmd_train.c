/* cmd_train.c - `ksample train`: a GCL-Sampler model trained on the trace
 * graphs of one or more workloads, kept in a versioned model file that
 * `ksample embed` and `ksample sample --method gcl --model` use on others. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample train --traces DIR [--traces DIR...] -o MODEL.ksm [options]\n\n"
           "Builds the trace graph of every kernel launch of each Accel-Sim trace folder\n"
           "and trains GCL-Sampler's relational GCN on the distinct ones (at most\n"
           "--train-graphs of them) by contrastive learning (two augmented views per\n"
           "graph, symmetric InfoNCE, Adam).  The model\n"
           "file records the options it was trained with; 'ksample embed' and 'ksample\n"
           "sample --method gcl --model' use it on other workloads.  Progress (epoch,\n"
           "loss, seconds) on stderr; -q silences it.\n\n"
           "options:\n"
           "  --traces DIR       a trace folder (kernelslist.g or kernelslist); repeat\n"
           "                     to train on several workloads at once\n"
           "  -o, --output FILE  the model file (written atomically)\n"
           "  -q, --quiet        no progress\n"
           "  -h, --help         this text\n"
           "\nthe gcl method's parameters (the model file records them; --k-max and\n"
           "--launch-weight are clustering options, which 'ksample sample --model'\n"
           "takes from its own command line):\n");
    cli_method_params_help("gcl");
}

static void progress(void *ctx, unsigned epoch, double loss, double seconds)
{
    if (!*(bool *)ctx)
        fprintf(stderr, "ksample train: epoch %u, loss %.6f, %.1f s\n", epoch, loss, seconds);
}

static int train(const char *const *dirs, int ndirs, const char *output, const ks_params *pa,
                 bool quiet)
{
    ks_error err;
    ks_error_clear(&err);
    ks_gcl_options o;
    if (ks_gcl_options_from_params(pa, &o, &err) != KS_OK)
        return cli_fail(&err);
    ks_gcl_corpus *c = NULL;
    ks_gcl_model *m = NULL;
    int rc = 0;
    if (ks_gcl_corpus_open(dirs, (size_t)ndirs, &o, &c, &err) != KS_OK)
        rc = cli_fail(&err);
    if (!rc && !quiet)
        fprintf(stderr, "ksample train: %zu launches, %zu distinct graphs\n",
                ks_gcl_corpus_launches(c), ks_gcl_corpus_distinct(c));
    if (!rc && ks_gcl_corpus_train(c, progress, &quiet, &m, &err) != KS_OK)
        rc = cli_fail(&err);
    if (!rc && ks_gcl_model_save(m, output, &err) != KS_OK)
        rc = cli_fail(&err);
    ks_gcl_model_free(m);
    ks_gcl_corpus_free(c);
    return rc;
}

static int train_main(int argc, char **argv, const struct option *longopts);

int cmd_train(int argc, char **argv)
{
    static const struct option own[] = {{"traces", required_argument, NULL, 'X'},
                                        {"output", required_argument, NULL, 'o'},
                                        {"quiet", no_argument, NULL, 'q'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
    /* its own options and the gcl method's parameters, nothing else */
    struct option *longopts = cli_method_options(own, "gcl");
    if (!longopts)
        return KS_ERR_NOMEM;
    int code = train_main(argc, argv, longopts);
    free(longopts);
    return code;
}

static int train_main(int argc, char **argv, const struct option *longopts)
{
    const char *dirs[64], *output = NULL;
    int ndirs = 0, opt, rc = 0;
    bool quiet = false;
    ks_params pa;
    ks_params_init(&pa);
    pa.method = "gcl";
    /* no input options: --traces is the command's own, repeatable */
    cli_loop l = {.cmd = "train", .longopts = longopts, .shortopts = "ho:q", .help = help,
                  .params = &pa, .operands = -1};
    while (!rc && (opt = cli_loop_next(&l, argc, argv)) != -1) {
        switch (opt) {
        case 'X':
            if (ndirs == 64)
                rc = cli_usage_error("train", "at most 64 --traces");
            else
                dirs[ndirs++] = optarg;
            break;
        case 'o': output = optarg; break;
        case 'q': quiet = true; break;
        default: rc = cli_usage_error("train", "unknown option");
        }
    }
    if (rc)
        return rc;
    if (l.exit >= 0)
        return l.exit;
    if (optind != argc || ndirs == 0 || !output)
        return cli_usage_error("train", "expected --traces DIR (one or more) and -o MODEL");
    if ((rc = cli_check_output("train", output, dirs, (size_t)ndirs)))
        return rc;
    return train(dirs, ndirs, output, &pa, quiet);
}
