/*
 * rng.c - xoshiro256** (Blackman and Vigna, 2018), seeded through splitmix64.
 * Chosen over rand()/random() because it is the same on every platform and
 * libc, so a recorded seed reproduces a plan byte for byte anywhere.
 */
#include "internal.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ks_rng_seed(ks_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t ks_rng_next(ks_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Lemire's nearly-divisionless bounded integers: unbiased, no modulo bias. */
uint64_t ks_rng_below(ks_rng *rng, uint64_t bound)
{
    if (bound <= 1)
        return 0;
    __uint128_t m = (__uint128_t)ks_rng_next(rng) * bound;
    uint64_t low = (uint64_t)m;
    if (low < bound) {
        uint64_t threshold = -bound % bound;
        while (low < threshold) {
            m = (__uint128_t)ks_rng_next(rng) * bound;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double ks_rng_uniform(ks_rng *rng)
{
    return (double)(ks_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* Box-Muller without caching the second value, so the stream of draws
 * depends only on how many normals were asked for. */
double ks_rng_normal(ks_rng *rng)
{
    double u1;
    do
        u1 = ks_rng_uniform(rng);
    while (u1 <= 0.0);
    double u2 = ks_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}
