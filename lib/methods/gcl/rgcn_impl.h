/*
 * rgcn_impl.h - encoder, projection head and loss, written once for a scalar
 * type: rgcn.c includes it with REAL = float (training, embedding) and with
 * REAL = double (the finite-difference gradient checks).  Not a header to
 * include elsewhere.
 *
 * A layer (Schlichtkrull et al., ESWC 2018, with basis decomposition):
 *   h_i' = W_0 h_i + sum_r (1/|N_r(i)|) sum_{j in N_r(i)} W_r h_j + bias,
 *   W_r = sum_b a_rb V_b.
 * Since sum_r W_r m_r = sum_b V_b (sum_r a_rb m_r), each row is laid out as
 * [h_i | z_i1 .. z_iB] with z_ib = sum_r a_rb m_ir, and one GEMM with
 * [W_0; V_1; ..; V_B] does the dense work; the sparse mean m_ir is never
 * stored for all relations at once.
 */
#define GCL_CAT2(a, b) a##b
#define GCL_CAT(a, b) GCL_CAT2(a, b)
#define FN(name) GCL_CAT(name, SUF)
#define WORK FN(gcl_work_)

struct WORK {
    size_t cap_nodes, cap_graphs;
    REAL *cat[GCL_LAYERS];  /* N x (B+1) dim[l]: layer input, then its relation mixes */
    REAL *xhat[GCL_LAYERS]; /* N x dim[l+1]: normalised pre-activation (not the last) */
    REAL *rstd[GCL_LAYERS]; /* N */
    uint8_t *keep[GCL_LAYERS]; /* N x dim[l+1] dropout mask */
    REAL *out;              /* N x dim[3]: last layer's output */
    REAL *dy;               /* backward: N x widest feature */
    REAL *dcat;             /* backward: N x widest cat row */
    REAL *row;              /* one cat row */
    double dropout;
    int train;
};

static void FN(gemm)(int ta, int tb, size_t m, size_t n, size_t k, REAL alpha, const REAL *a,
                     size_t lda, const REAL *b, size_t ldb, REAL beta, REAL *c, size_t ldc)
{
    if (m == 0 || n == 0)
        return;
    GEMM(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
         (int)m, (int)n, (int)k, alpha, a, (int)lda, b, (int)ldb, beta, c,
         (int)ldc);
}

void FN(gcl_work_free_)(WORK *w)
{
    if (!w)
        return;
    for (int l = 0; l < GCL_LAYERS; l++)
        KS_FREE(w->cat[l], w->xhat[l], w->rstd[l], w->keep[l]);
    KS_FREE(w->out, w->dy, w->dcat, w->row);
    free(w);
}

static ks_status FN(work_reserve)(const gcl_dims *d, WORK **pw, size_t n, ks_error *err)
{
    WORK *w = *pw;
    if (!w) {
        w = calloc(1, sizeof *w);
        if (!w)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (encoder)");
        *pw = w;
    }
    if (n <= w->cap_nodes)
        return KS_OK;
    size_t widest = 0, feature = d->dim[0]; /* widest cat row; widest node feature */
    int ok = 1;
    for (int l = 0; l < GCL_LAYERS; l++) {
        size_t in = (size_t)(d->bases + 1) * d->dim[l], out = d->dim[l + 1];
        if (in > widest)
            widest = in;
        if (out > feature)
            feature = out;
        KS_FREE(w->cat[l], w->xhat[l], w->rstd[l], w->keep[l]);
        w->cat[l] = malloc(n * in * sizeof(REAL));
        w->xhat[l] = l + 1 < GCL_LAYERS ? malloc(n * out * sizeof(REAL)) : NULL;
        w->rstd[l] = malloc(n * sizeof(REAL));
        w->keep[l] = malloc(n * out);
        ok &= w->cat[l] && w->rstd[l] && w->keep[l] && (l + 1 == GCL_LAYERS || w->xhat[l]);
    }
    KS_FREE(w->out, w->dy, w->dcat, w->row);
    w->out = malloc(n * d->dim[GCL_LAYERS] * sizeof(REAL));
    w->dy = malloc(n * feature * sizeof(REAL));
    w->dcat = malloc(n * widest * sizeof(REAL));
    w->row = malloc(widest * sizeof(REAL));
    if (!ok || !w->out || !w->dy || !w->dcat || !w->row) {
        w->cap_nodes = 0;
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0,
                            "out of memory: a batch of %zu nodes (lower --batch or the graph "
                            "bounds)",
                            n);
    }
    w->cap_nodes = n;
    return KS_OK;
}

/* Input row: two token embeddings plus the projected scalar features. */
static void FN(input_rows)(const gcl_dims *d, const gcl_layout *l, const REAL *param,
                           const gcl_batch *b, REAL *x, size_t ld)
{
    size_t d0 = d->dim[0];
    const REAL *emb = param + l->emb, *wf = param + l->feat;
    for (size_t i = 0; i < b->n_nodes; i++) {
        REAL *xi = x + i * ld;
        const REAL *e0 = emb + (size_t)b->tok[2 * i] * d0;
        const REAL *e1 = emb + (size_t)b->tok[2 * i + 1] * d0;
        for (size_t j = 0; j < d0; j++)
            xi[j] = e0[j] + e1[j];
        for (size_t f = 0; f < GCL_FEATS; f++) {
            REAL v = (REAL)b->feat[i * GCL_FEATS + f];
            if (v != 0)
                for (size_t j = 0; j < d0; j++)
                    xi[j] += v * wf[f * d0 + j];
        }
        if (b->noise)
            for (size_t j = 0; j < d0; j++)
                xi[j] += (REAL)b->noise[i * d0 + j];
    }
}

/* Mean over node i's in-neighbours by relation r of the rows h (stride ld). */
static int FN(neighbour_mean)(const gcl_batch *b, uint32_t r, size_t i, const REAL *h,
                              size_t ld, size_t din, REAL *m)
{
    size_t s = b->rowptr[r][i], e = b->rowptr[r][i + 1];
    if (s == e)
        return 0;
    memset(m, 0, din * sizeof *m);
    for (size_t t = s; t < e; t++) {
        const REAL *hj = h + (size_t)b->col[r][t] * ld;
        for (size_t j = 0; j < din; j++)
            m[j] += hj[j];
    }
    REAL inv = (REAL)1 / (REAL)(e - s);
    for (size_t j = 0; j < din; j++)
        m[j] *= inv;
    return 1;
}

/* Fills blocks 1..B of every row of cat from block 0. */
static void FN(relation_mix)(const gcl_dims *d, const REAL *coef, const gcl_batch *b,
                             REAL *cat, size_t din, REAL *m)
{
    size_t ld = (size_t)(d->bases + 1) * din;
    for (size_t i = 0; i < b->n_nodes; i++)
        memset(cat + i * ld + din, 0, (size_t)d->bases * din * sizeof *cat);
    for (uint32_t r = 0; r < b->rels; r++)
        for (size_t i = 0; i < b->n_nodes; i++) {
            if (!FN(neighbour_mean)(b, r, i, cat, ld, din, m))
                continue;
            for (uint32_t k = 0; k < d->bases; k++) {
                REAL a = coef[r * d->bases + k];
                REAL *z = cat + i * ld + (size_t)(k + 1) * din;
                for (size_t j = 0; j < din; j++)
                    z[j] += a * m[j];
            }
        }
}

#define GCL_LN_EPS 1e-5

/* LayerNorm in place on y (it becomes x_hat), then gain, bias, ReLU and
 * dropout into the next layer's input block. */
static void FN(norm_activate)(const REAL *gain, const REAL *shift, size_t n, size_t dout,
                              REAL *y, REAL *rstd, uint8_t *keep, double p, ks_rng *rng,
                              REAL *next, size_t ld_next)
{
    REAL scale = p > 0 && rng ? (REAL)(1.0 / (1.0 - p)) : (REAL)1;
    for (size_t i = 0; i < n; i++) {
        REAL *yi = y + i * dout, mu = 0, var = 0;
        for (size_t j = 0; j < dout; j++)
            mu += yi[j];
        mu /= (REAL)dout;
        for (size_t j = 0; j < dout; j++)
            var += (yi[j] - mu) * (yi[j] - mu);
        var /= (REAL)dout;
        REAL rs = (REAL)(1.0 / sqrt((double)var + GCL_LN_EPS));
        rstd[i] = rs;
        REAL *o = next + i * ld_next;
        for (size_t j = 0; j < dout; j++) {
            yi[j] = (yi[j] - mu) * rs;
            REAL v = gain[j] * yi[j] + shift[j];
            uint8_t k = 1;
            if (p > 0 && rng)
                k = ks_rng_uniform(rng) >= p;
            keep[i * dout + j] = k;
            o[j] = v > 0 && k ? v * scale : 0;
        }
    }
}

ks_status FN(gcl_encode_)(const gcl_dims *d, const gcl_layout *l, const REAL *param,
                          const gcl_batch *b, double dropout, ks_rng *rng, WORK **pw, REAL *g,
                          ks_error *err)
{
    ks_status st = FN(work_reserve)(d, pw, b->n_nodes ? b->n_nodes : 1, err);
    if (st != KS_OK)
        return st;
    WORK *w = *pw;
    w->dropout = rng ? dropout : 0;
    w->train = rng != NULL;
    size_t n = b->n_nodes;
    FN(input_rows)(d, l, param, b, w->cat[0], (size_t)(d->bases + 1) * d->dim[0]);
    for (int k = 0; k < GCL_LAYERS; k++) {
        size_t din = d->dim[k], dout = d->dim[k + 1], ld = (size_t)(d->bases + 1) * din;
        FN(relation_mix)(d, param + l->coef[k], b, w->cat[k], din, w->row);
        int last = k + 1 == GCL_LAYERS;
        REAL *y = last ? w->out : w->xhat[k];
        for (size_t i = 0; i < n; i++)
            memcpy(y + i * dout, param + l->bias[k], dout * sizeof *y);
        FN(gemm)(0, 0, n, dout, ld, 1, w->cat[k], ld, param + l->wcat[k], dout, 1, y, dout);
        if (!last)
            FN(norm_activate)(param + l->ln_g[k], param + l->ln_b[k], n, dout, y, w->rstd[k],
                              w->keep[k], w->dropout, rng, w->cat[k + 1],
                              (size_t)(d->bases + 1) * dout);
    }
    size_t dl = d->dim[GCL_LAYERS];
    memset(g, 0, b->n_graphs * dl * sizeof *g);
    for (size_t i = 0; i < n; i++) {
        REAL c = (REAL)b->readout[i], *gi = g + (size_t)b->graph_of[i] * dl;
        const REAL *hi = w->out + i * dl;
        for (size_t j = 0; j < dl; j++)
            gi[j] += c * hi[j];
    }
    return KS_OK;
}

/* dy (N x dout) holds d/d(layer output after dropout); turns it into
 * d/d(pre-LayerNorm) and accumulates the gain and shift gradients. */
static void FN(norm_backward)(const REAL *gain, const REAL *shift, size_t n, size_t dout,
                              const REAL *xhat, const REAL *rstd, const uint8_t *keep, double p,
                              REAL *dy, REAL *dgain, REAL *dshift)
{
    REAL scale = p > 0 ? (REAL)(1.0 / (1.0 - p)) : (REAL)1;
    for (size_t i = 0; i < n; i++) {
        REAL *di = dy + i * dout, s1 = 0, s2 = 0;
        const REAL *xi = xhat + i * dout;
        for (size_t j = 0; j < dout; j++) {
            REAL v = gain[j] * xi[j] + shift[j];
            REAL dv = v > 0 && keep[i * dout + j] ? di[j] * scale : 0;
            dgain[j] += dv * xi[j];
            dshift[j] += dv;
            di[j] = dv * gain[j]; /* d x_hat */
            s1 += di[j];
            s2 += di[j] * xi[j];
        }
        s1 /= (REAL)dout;
        s2 /= (REAL)dout;
        for (size_t j = 0; j < dout; j++)
            di[j] = rstd[i] * (di[j] - s1 - xi[j] * s2);
    }
}

/* From d(cat) of layer k: the coefficient gradients, and d(input) of the
 * layer gathered into block 0 of dcat (scattered along the edges). */
static void FN(relation_backward)(const gcl_dims *d, const REAL *coef, const gcl_batch *b,
                                  const REAL *cat, REAL *dcat, size_t din, REAL *dcoef,
                                  REAL *m, REAL *dm)
{
    size_t ld = (size_t)(d->bases + 1) * din;
    for (uint32_t r = 0; r < b->rels; r++)
        for (size_t i = 0; i < b->n_nodes; i++) {
            size_t s = b->rowptr[r][i], e = b->rowptr[r][i + 1];
            if (s == e)
                continue;
            FN(neighbour_mean)(b, r, i, cat, ld, din, m);
            memset(dm, 0, din * sizeof *dm);
            for (uint32_t k = 0; k < d->bases; k++) {
                const REAL *dz = dcat + i * ld + (size_t)(k + 1) * din;
                REAL a = coef[r * d->bases + k], dot = 0;
                for (size_t j = 0; j < din; j++) {
                    dm[j] += a * dz[j];
                    dot += m[j] * dz[j];
                }
                dcoef[r * d->bases + k] += dot;
            }
            REAL inv = (REAL)1 / (REAL)(e - s);
            for (size_t t = s; t < e; t++) {
                REAL *dh = dcat + (size_t)b->col[r][t] * ld;
                for (size_t j = 0; j < din; j++)
                    dh[j] += inv * dm[j];
            }
        }
}

static void FN(input_backward)(const gcl_dims *d, const gcl_layout *l, const gcl_batch *b,
                               const REAL *dx, size_t ld, REAL *grad)
{
    size_t d0 = d->dim[0];
    REAL *demb = grad + l->emb, *dwf = grad + l->feat;
    for (size_t i = 0; i < b->n_nodes; i++) {
        const REAL *di = dx + i * ld;
        REAL *e0 = demb + (size_t)b->tok[2 * i] * d0, *e1 = demb + (size_t)b->tok[2 * i + 1] * d0;
        for (size_t j = 0; j < d0; j++) {
            e0[j] += di[j];
            e1[j] += di[j];
        }
        for (size_t f = 0; f < GCL_FEATS; f++) {
            REAL v = (REAL)b->feat[i * GCL_FEATS + f];
            if (v != 0)
                for (size_t j = 0; j < d0; j++)
                    dwf[f * d0 + j] += v * di[j];
        }
    }
}

void FN(gcl_encode_backward_)(const gcl_dims *d, const gcl_layout *l, const REAL *param,
                              const gcl_batch *b, WORK *w, const REAL *dg, REAL *grad)
{
    size_t n = b->n_nodes, dl = d->dim[GCL_LAYERS];
    for (size_t i = 0; i < n; i++) {
        REAL c = (REAL)b->readout[i];
        const REAL *gi = dg + (size_t)b->graph_of[i] * dl;
        for (size_t j = 0; j < dl; j++)
            w->dy[i * dl + j] = c * gi[j];
    }
    REAL *dm = w->row;
    for (int k = GCL_LAYERS - 1; k >= 0; k--) {
        size_t din = d->dim[k], dout = d->dim[k + 1], ld = (size_t)(d->bases + 1) * din;
        if (k + 1 < GCL_LAYERS)
            FN(norm_backward)(param + l->ln_g[k], param + l->ln_b[k], n, dout, w->xhat[k],
                              w->rstd[k], w->keep[k], w->train ? w->dropout : 0, w->dy,
                              grad + l->ln_g[k], grad + l->ln_b[k]);
        REAL *dbias = grad + l->bias[k];
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < dout; j++)
                dbias[j] += w->dy[i * dout + j];
        FN(gemm)(1, 0, ld, dout, n, 1, w->cat[k], ld, w->dy, dout, 1, grad + l->wcat[k], dout);
        FN(gemm)(0, 1, n, ld, dout, 1, w->dy, dout, param + l->wcat[k], dout, 0, w->dcat, ld);
        /* dy is spent once both products are taken: its first row holds the
         * neighbour mean while dcat is scattered */
        REAL *mrow = w->dy;
        FN(relation_backward)(d, param + l->coef[k], b, w->cat[k], w->dcat, din,
                              grad + l->coef[k], mrow, dm);
        if (k == 0) {
            FN(input_backward)(d, l, b, w->dcat, ld, grad);
            break;
        }
        for (size_t i = 0; i < n; i++)
            memcpy(w->dy + i * din, w->dcat + i * ld, din * sizeof *w->dy);
    }
}

void FN(gcl_head_forward_)(const gcl_dims *d, const gcl_layout *l, const REAL *param,
                           const REAL *g, size_t n, REAL *hidden, REAL *z)
{
    size_t din = d->dim[GCL_LAYERS], p0 = d->proj[0], p1 = d->proj[1];
    for (size_t i = 0; i < n; i++)
        memcpy(hidden + i * p0, param + l->b1, p0 * sizeof *hidden);
    FN(gemm)(0, 0, n, p0, din, 1, g, din, param + l->w1, p0, 1, hidden, p0);
    for (size_t i = 0; i < n * p0; i++)
        if (hidden[i] < 0)
            hidden[i] = 0;
    for (size_t i = 0; i < n; i++)
        memcpy(z + i * p1, param + l->b2, p1 * sizeof *z);
    FN(gemm)(0, 0, n, p1, p0, 1, hidden, p0, param + l->w2, p1, 1, z, p1);
}

void FN(gcl_head_backward_)(const gcl_dims *d, const gcl_layout *l, const REAL *param,
                            const REAL *g, size_t n, const REAL *hidden, const REAL *dz,
                            REAL *grad, REAL *dg, REAL *dh)
{
    size_t din = d->dim[GCL_LAYERS], p0 = d->proj[0], p1 = d->proj[1];
    FN(gemm)(1, 0, p0, p1, n, 1, hidden, p0, dz, p1, 1, grad + l->w2, p1);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < p1; j++)
            grad[l->b2 + j] += dz[i * p1 + j];
    FN(gemm)(0, 1, n, p0, p1, 1, dz, p1, param + l->w2, p1, 0, dh, p0);
    for (size_t i = 0; i < n * p0; i++)
        if (!(hidden[i] > 0))
            dh[i] = 0;
    FN(gemm)(1, 0, din, p0, n, 1, g, din, dh, p0, 1, grad + l->w1, p0);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < p0; j++)
            grad[l->b1 + j] += dh[i * p0 + j];
    FN(gemm)(0, 1, n, din, p0, 1, dh, p0, param + l->w1, p0, 0, dg, din);
}

/* Row-normalises z into u (returns the norms in nrm). */
static void FN(unit_rows)(const REAL *z, size_t n, size_t dim, REAL *u, REAL *nrm)
{
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t j = 0; j < dim; j++)
            s += (double)z[i * dim + j] * z[i * dim + j];
        double v = sqrt(s);
        if (v < 1e-12)
            v = 1e-12;
        nrm[i] = (REAL)v;
        for (size_t j = 0; j < dim; j++)
            u[i * dim + j] = (REAL)(z[i * dim + j] / v);
    }
}

/* d/dz of u = z / |z| applied to du: (du - u (u . du)) / |z|. */
static void FN(unit_backward)(const REAL *u, const REAL *nrm, size_t n, size_t dim,
                              const REAL *du, REAL *dz)
{
    for (size_t i = 0; i < n; i++) {
        REAL dot = 0;
        for (size_t j = 0; j < dim; j++)
            dot += u[i * dim + j] * du[i * dim + j];
        for (size_t j = 0; j < dim; j++)
            dz[i * dim + j] = (du[i * dim + j] - u[i * dim + j] * dot) / nrm[i];
    }
}

/* L = 1/(2n) sum_i [lse_j(s_ij) - s_ii] + 1/(2n) sum_j [lse_i(s_ij) - s_jj],
 * s = u1 u2^T / t: each view must pick its partner among the other view's
 * rows, in both directions (the other graphs of the batch are negatives). */
double FN(gcl_infonce_)(const REAL *z1, const REAL *z2, size_t n, size_t dim,
                        double temperature, REAL *dz1, REAL *dz2)
{
    size_t nn = n * n;
    REAL *u1 = malloc(n * dim * sizeof *u1), *u2 = malloc(n * dim * sizeof *u2);
    REAL *n1 = malloc(n * sizeof *n1), *n2 = malloc(n * sizeof *n2);
    REAL *s = malloc(nn * sizeof *s), *ds = calloc(nn, sizeof *ds);
    REAL *du1 = malloc(n * dim * sizeof *du1), *du2 = malloc(n * dim * sizeof *du2);
    if (!u1 || !u2 || !n1 || !n2 || !s || !ds || !du1 || !du2) {
        free(u1), free(u2), free(n1), free(n2), free(s), free(ds), free(du1), free(du2);
        return NAN;
    }
    FN(unit_rows)(z1, n, dim, u1, n1);
    FN(unit_rows)(z2, n, dim, u2, n2);
    REAL inv_t = (REAL)(1.0 / temperature);
    FN(gemm)(0, 1, n, n, dim, inv_t, u1, dim, u2, dim, 0, s, n);
    double loss = 0, half = 0.5 / (double)n;
    for (int dir = 0; dir < 2; dir++) /* rows (view 1 -> 2), then columns */
        for (size_t i = 0; i < n; i++) {
            size_t step = dir ? n : 1, base = dir ? i : i * n;
            double mx = -INFINITY, sum = 0;
            for (size_t j = 0; j < n; j++)
                if (s[base + j * step] > mx)
                    mx = s[base + j * step];
            for (size_t j = 0; j < n; j++)
                sum += exp(s[base + j * step] - mx);
            loss += half * (mx + log(sum) - s[i * n + i]);
            for (size_t j = 0; j < n; j++)
                ds[base + j * step] += (REAL)(half * exp(s[base + j * step] - mx) / sum);
            ds[i * n + i] -= (REAL)half;
        }
    FN(gemm)(0, 0, n, dim, n, inv_t, ds, n, u2, dim, 0, du1, dim);
    FN(gemm)(1, 0, n, dim, n, inv_t, ds, n, u1, dim, 0, du2, dim);
    FN(unit_backward)(u1, n1, n, dim, du1, dz1);
    FN(unit_backward)(u2, n2, n, dim, du2, dz2);
    free(u1), free(u2), free(n1), free(n2), free(s), free(ds), free(du1), free(du2);
    return loss;
}

#undef WORK
#undef FN
