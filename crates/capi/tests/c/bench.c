/* The C ABI's per-step overhead: for each ISA, one unit executed at a time
 * through xstore_machine_execute (the call a C or C++ simulator makes per
 * instruction), against the same unit run the same number of times through
 * the Rust API directly (xstore_bench_rust_steps), on the same machine and
 * memory, in the same process. Each side is timed over several rounds,
 * alternating, and the fastest round of each is kept.
 *
 *   bench [--quick] [--json] [--steps N] [--rounds R] [--isa NAME]
 *
 * Prints, per ISA, ns per step through C and through Rust, their ratio, the
 * target (1.2) and whether it is met; --json prints one JSON object instead;
 * --isa measures that ISA alone (for callgrind: c_round and
 * xstore_bench_rust_steps hold the two loops).
 * Exits non-zero when any call fails (a ratio above the target is not a
 * failure). */
#define _POSIX_C_SOURCE 199309L
#include "xstore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TARGET 1.2

typedef struct {
  const char *isa;
  /* A scenario for the machine (null: the ISA's default profile). */
  const char *scenario;
  /* Registers to set, name then value, ending with a null name. */
  const char *regs[4];
  uint64_t values[2];
  const char *unit;
} bench_case;

static const bench_case cases[] = {
    {"neuron", NULL, {"r1", NULL}, {0x11223344, 0},
     "tensor_store.u8 [0x1000], num_elem=(4,1), reg=(r1,r1,r1,r1)"},
    {"pto",
     "isa = \"pto\"\n"
     "program = \"BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP\"\n"
     "[[tile]]\npe = 0\nreg = \"T#1\"\ndtype = \"U8\"\ncapacity = 128\ncols = 8\n"
     "valid_rows = 2\nvalid_cols = 3\ndata = [1, 2, 3, 4, 5, 6]\n",
     {"pe0.a0", "pe0.a1", NULL}, {0x100, 16},
     "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP"},
    {"q7", NULL, {"a3", NULL}, {0x100, 0}, "{ IVP_SV2NX8_I v0, a3, 0 ; nop }"},
};
#define CASES (sizeof cases / sizeof cases[0])

typedef struct {
  double c_ns, rust_ns;
  unsigned long long failures;
} result;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int fail(const char *isa, const char *what, xstore_status s, const char *message) {
  fprintf(stderr, "bench: %s: %s: %s: %s\n", isa, what, xstore_status_name(s), message);
  return 1;
}

/* Make the case's machine and program; 0 on success. */
static int setup(const bench_case *c, xstore_isa **isa, xstore_machine **m, xstore_program **p) {
  xstore_status s;
  size_t i;
  if ((s = xstore_isa_new(c->isa, isa)) != XSTORE_OK)
    return fail(c->isa, "isa", s, xstore_isa_last_error(*isa));
  s = c->scenario ? xstore_machine_new_scenario(*isa, c->scenario, "bench.toml", m)
                  : xstore_machine_new(*isa, NULL, m);
  if (s != XSTORE_OK) return fail(c->isa, "machine", s, xstore_machine_last_error(*m));
  for (i = 0; c->regs[i]; i++)
    if ((s = xstore_machine_reg_set(*m, c->regs[i], c->values[i])) != XSTORE_OK)
      return fail(c->isa, "reg_set", s, xstore_machine_last_error(*m));
  if ((s = xstore_program_new_text(*isa, c->unit, p)) != XSTORE_OK)
    return fail(c->isa, "program", s, xstore_program_last_error(*p));
  return 0;
}

/* One C round: n executes of the one-unit program; the failures counted. */
static uint64_t c_round(xstore_machine *m, xstore_program *p, xstore_effects *fx, uint64_t n,
                        unsigned long long *failures) {
  uint64_t i, t0 = now_ns();
  for (i = 0; i < n; i++)
    if (xstore_machine_execute(m, p, fx) != XSTORE_OK) ++*failures;
  return now_ns() - t0;
}

/* The case's best ns per step through C and through Rust. */
static int measure(const bench_case *c, uint64_t n, int rounds, result *r) {
  xstore_isa *isa = NULL;
  xstore_machine *m = NULL;
  xstore_program *p = NULL;
  xstore_effects *fx = NULL;
  xstore_outcome outcome;
  size_t executed = 0, writes = 0;
  uint64_t best_c = UINT64_MAX, best_rust = UINT64_MAX, ns, failed;
  xstore_status s;
  int k, rc = setup(c, &isa, &m, &p);
  r->failures = 0;
  if (rc == 0 && (s = xstore_effects_new(&fx)) != XSTORE_OK) rc = fail(c->isa, "effects", s, "");
  /* The unit runs to completion and writes memory, once before timing. */
  if (rc == 0 && (s = xstore_machine_execute(m, p, fx)) != XSTORE_OK)
    rc = fail(c->isa, "execute", s, xstore_machine_last_error(m));
  if (rc == 0) {
    xstore_effects_outcome(fx, &outcome, &executed);
    xstore_effects_write_count(fx, &writes);
    if (outcome != XSTORE_OUTCOME_OK || executed != 1 || writes == 0)
      rc = fail(c->isa, "execute", XSTORE_OK, "the unit did not complete with a write");
  }
  for (k = 0; rc == 0 && k < rounds; k++) {
    ns = c_round(m, p, fx, n, &r->failures);
    if (ns < best_c) best_c = ns;
    failed = 0;
    if ((s = xstore_bench_rust_steps(m, p, n, &ns, &failed)) != XSTORE_OK)
      rc = fail(c->isa, "xstore_bench_rust_steps", s, xstore_machine_last_error(m));
    r->failures += failed;
    if (ns < best_rust) best_rust = ns;
  }
  r->c_ns = (double)best_c / (double)n;
  r->rust_ns = (double)best_rust / (double)n;
  xstore_effects_free(fx);
  xstore_program_free(p);
  xstore_machine_free(m);
  xstore_isa_free(isa);
  return rc;
}

int main(int argc, char **argv) {
  uint64_t n = 200000;
  int rounds = 5, json = 0, rc = 0, i, first = 1;
  const char *only = NULL;
  size_t k;
  result r[CASES];
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      n = 2000;
      rounds = 2;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      n = strtoull(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: bench [--quick] [--json] [--steps N] [--rounds R] [--isa NAME]\n");
      return 2;
    }
  }
  for (k = 0; only && k < CASES && strcmp(only, cases[k].isa) != 0; k++) {
  }
  if (only && k == CASES) {
    fprintf(stderr, "bench: no ISA `%s` (neuron, pto, q7)\n", only);
    return 2;
  }
  if (n == 0 || rounds < 1) {
    fprintf(stderr, "bench: --steps and --rounds must be positive\n");
    return 2;
  }
  for (k = 0; k < CASES; k++) {
    if (only && strcmp(only, cases[k].isa) != 0) continue;
    if (measure(&cases[k], n, rounds, &r[k]) != 0) rc = 1;
    if (r[k].failures) {
      fprintf(stderr, "bench: %s: %llu steps failed\n", cases[k].isa, r[k].failures);
      rc = 1;
    }
  }
  if (json) printf("{\"steps\": %llu, \"rounds\": %d, \"target\": %.1f, \"isas\": [",
                   (unsigned long long)n, rounds, TARGET);
  for (k = 0; k < CASES; k++) {
    double ratio;
    const char *met;
    if (only && strcmp(only, cases[k].isa) != 0) continue;
    ratio = r[k].c_ns / r[k].rust_ns;
    met = ratio <= TARGET ? "met" : "not met";
    if (json)
      printf("%s{\"isa\": \"%s\", \"c_ns_per_step\": %.1f, \"rust_ns_per_step\": %.1f, "
             "\"ratio\": %.3f, \"target\": %.1f, \"met\": %s, \"failures\": %llu}",
             first ? "" : ", ", cases[k].isa, r[k].c_ns, r[k].rust_ns, ratio, TARGET,
             ratio <= TARGET ? "true" : "false", r[k].failures);
    else
      printf("%-6s  C %8.1f ns/step  Rust %8.1f ns/step  ratio %.3f  target %.1f  %s\n",
             cases[k].isa, r[k].c_ns, r[k].rust_ns, ratio, TARGET, met);
    first = 0;
  }
  if (json) printf("]}\n");
  return rc;
}
