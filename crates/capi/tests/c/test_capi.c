/* Every call of xstore.h, and its error paths, from C99. Run by
 * crates/capi/tests/run.sh (plain, and under AddressSanitizer with its leak
 * checker and UndefinedBehaviorSanitizer). Exit 0 when every check holds. */
#include "xstore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    checks++;                                                                    \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

#define EXPECT(call, want)                                                       \
  do {                                                                           \
    xstore_status got_ = (call);                                                 \
    checks++;                                                                    \
    if (got_ != (want)) {                                                        \
      fprintf(stderr, "%s:%d: %s: got %s, want %s\n", __FILE__, __LINE__, #call, \
              xstore_status_name(got_), xstore_status_name(want));               \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

#define OK(call) EXPECT(call, XSTORE_OK)

static int contains(const char *text, const char *part) { return strstr(text, part) != NULL; }

static const char *PROGRAM =
    "tensor_store.u8 [0x400], num_elem=(2,1), reg=(r1,r2)\n"
    "tensor_store.u16 [0x410], num_elem=(2,1), reg=(r2,r1)\n";

static const char *SCENARIO =
    "isa = \"neuron\"\n"
    "program = \"\"\"\n"
    "tensor_store.u8 [0x400], num_elem=(2,1), reg=(r1,r2)\n"
    "tensor_store.u16 [0x410], num_elem=(2,1), reg=(r2,r1)\n"
    "\"\"\"\n"
    "[regs]\n"
    "r1 = 0x11223344\n"
    "r2 = 0xaabbccdd\n"
    "[expect]\n"
    "outcome = \"ok\"\n";

/* The ABI version, status names. */
static void test_version(void) {
  CHECK(xstore_abi_version() == XSTORE_ABI_VERSION);
  CHECK(strcmp(xstore_status_name(XSTORE_ERR_NULL), "XSTORE_ERR_NULL") == 0);
  CHECK(strcmp(xstore_status_name(XSTORE_OK), "XSTORE_OK") == 0);
}

/* ISA handles: a known name, an unknown one, null and bad UTF-8. */
static void test_isa_handles(void) {
  xstore_isa *isa = NULL;
  const char *name = NULL;
  OK(xstore_isa_new("pto", &isa));
  OK(xstore_isa_name(isa, &name));
  CHECK(strcmp(name, "pto") == 0);
  CHECK(strcmp(xstore_isa_last_error(isa), "") == 0);
  OK(xstore_isa_free(isa));

  EXPECT(xstore_isa_new("q8", &isa), XSTORE_ERR_UNKNOWN);
  CHECK(contains(xstore_isa_last_error(isa), "unknown isa `q8`"));
  EXPECT(xstore_isa_name(isa, &name), XSTORE_ERR_HANDLE);
  CHECK(contains(xstore_isa_last_error(isa), "unknown isa"));
  OK(xstore_isa_free(isa));

  EXPECT(xstore_isa_new(NULL, &isa), XSTORE_ERR_NULL);
  CHECK(contains(xstore_isa_last_error(isa), "null"));
  OK(xstore_isa_free(isa));
  EXPECT(xstore_isa_new("neuron", NULL), XSTORE_ERR_NULL);
  EXPECT(xstore_isa_new("\xff\xfe", &isa), XSTORE_ERR_UTF8);
  CHECK(contains(xstore_isa_last_error(isa), "UTF-8"));
  OK(xstore_isa_free(isa));
  OK(xstore_isa_free(NULL));
  EXPECT(xstore_isa_name(NULL, &name), XSTORE_ERR_NULL);
  CHECK(strcmp(xstore_isa_last_error(NULL), "a null handle") == 0);
}

/* Assemble, disassemble, validate, explain, run and lint. */
static void test_isa_calls(xstore_isa *isa) {
  const uint8_t *bytes = NULL;
  size_t len = 0;
  const char *text = NULL;
  bool valid = false;
  uint8_t copy[64];

  OK(xstore_isa_assemble(isa, "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)", &bytes, &len));
  CHECK(len == 64);
  memcpy(copy, bytes, sizeof copy);
  EXPECT(xstore_isa_assemble(isa, "tensor_store.u9 [0x100]", &bytes, &len), XSTORE_ERR_INPUT);
  CHECK(contains(xstore_isa_last_error(isa), "error:"));
  EXPECT(xstore_isa_assemble(isa, "tensor_store.u8", NULL, &len), XSTORE_ERR_NULL);
  EXPECT(xstore_isa_assemble(isa, "\xc3\x28", &bytes, &len), XSTORE_ERR_UTF8);

  OK(xstore_isa_disassemble(isa, copy, sizeof copy, &text));
  CHECK(contains(text, "tensor_store.u8 [0x100]"));
  CHECK(strcmp(xstore_isa_last_error(isa), "") == 0);
  EXPECT(xstore_isa_disassemble(isa, copy, 63, &text), XSTORE_ERR_INPUT);
  CHECK(strlen(xstore_isa_last_error(isa)) > 0);
  EXPECT(xstore_isa_disassemble(isa, NULL, 64, &text), XSTORE_ERR_NULL);
  EXPECT(xstore_isa_disassemble(isa, copy, (size_t)-1, &text), XSTORE_ERR_LENGTH);

  OK(xstore_isa_validate(isa, copy, sizeof copy, &valid, &text));
  CHECK(valid);
  CHECK(strcmp(text, "") == 0);
  OK(xstore_isa_validate_json(isa, copy, sizeof copy, &text));
  CHECK(contains(text, "\"valid\":true"));
  {
    uint8_t bad[64];
    const uint8_t *b2 = NULL;
    size_t n2 = 0;
    OK(xstore_isa_assemble(isa, "tensor_store.u8 [0x100], num_elem=(0,1), imm=()", &b2, &n2));
    memcpy(bad, b2, sizeof bad);
    OK(xstore_isa_validate(isa, bad, sizeof bad, &valid, &text));
    CHECK(!valid);
    CHECK(strlen(text) > 0 && text[strlen(text) - 1] == '\n');
  }
  EXPECT(xstore_isa_validate(isa, copy, sizeof copy, NULL, &text), XSTORE_ERR_NULL);

  {
    char hex[2 * sizeof copy + 1];
    size_t i;
    for (i = 0; i < sizeof copy; i++) sprintf(hex + 2 * i, "%02x", copy[i]);
    OK(xstore_isa_explain_json(isa, hex, &text));
  }
  CHECK(text[0] == '[');
  EXPECT(xstore_isa_explain_json(isa, "   ", &text), XSTORE_ERR_INPUT);
  CHECK(contains(xstore_isa_last_error(isa), "nothing to explain"));

  OK(xstore_isa_run_json(isa, SCENARIO, "sc.toml", &text));
  CHECK(contains(text, "\"outcome\":\"ok\""));
  CHECK(contains(text, "\"passed\":true"));
  EXPECT(xstore_isa_run_json(isa, "isa = \"pto\"\n", "other.toml", &text), XSTORE_ERR_INPUT);
  CHECK(contains(xstore_isa_last_error(isa), "other.toml"));
  OK(xstore_isa_lint_json(isa, SCENARIO, NULL, &text));
  CHECK(contains(text, "\"findings\""));
}

/* Memories: regions, profiles, reads and loads, and their errors. */
static void test_memory(xstore_isa *isa) {
  xstore_region regions[2] = {{0x1000, 0x100, true, "data"}, {0x2000, 0x100, false, NULL}};
  xstore_region overlap[2] = {{0x1000, 0x100, true, NULL}, {0x1080, 0x100, true, NULL}};
  xstore_memory *mem = NULL;
  uint8_t buf[4] = {0};
  const uint8_t init[4] = {1, 2, 3, 4};

  OK(xstore_memory_new(regions, 2, &mem));
  OK(xstore_memory_load(mem, 0x2000, init, sizeof init));
  OK(xstore_memory_read(mem, 0x2000, buf, sizeof buf));
  CHECK(memcmp(buf, init, 4) == 0);
  EXPECT(xstore_memory_read(mem, 0x3000, buf, sizeof buf), XSTORE_ERR_ACCESS);
  CHECK(contains(xstore_memory_last_error(mem), "0x3000"));
  EXPECT(xstore_memory_read(mem, 0x1000, buf, (size_t)1 << 30), XSTORE_ERR_LENGTH);
  EXPECT(xstore_memory_load(mem, 0x10fe, init, sizeof init), XSTORE_ERR_ACCESS);
  EXPECT(xstore_memory_read(mem, 0x1000, NULL, 4), XSTORE_ERR_NULL);
  OK(xstore_memory_free(mem));

  EXPECT(xstore_memory_new(overlap, 2, &mem), XSTORE_ERR_INPUT);
  CHECK(contains(xstore_memory_last_error(mem), "memory map"));
  OK(xstore_memory_free(mem));
  EXPECT(xstore_memory_new(NULL, 2, &mem), XSTORE_ERR_NULL);
  OK(xstore_memory_free(mem));

  OK(xstore_memory_new_profile(isa, "nc-v5", &mem));
  OK(xstore_memory_free(mem));
  OK(xstore_memory_new_profile(isa, NULL, &mem));
  OK(xstore_memory_free(mem));
  EXPECT(xstore_memory_new_profile(isa, "nc-v9", &mem), XSTORE_ERR_UNKNOWN);
  CHECK(contains(xstore_memory_last_error(mem), "nc-v9"));
  OK(xstore_memory_free(mem));
}

/* Registers by name. */
static void test_registers(xstore_machine *m) {
  size_t n = 0;
  const char *name = NULL;
  const char *text = NULL;
  uint64_t v = 0;

  OK(xstore_machine_reg_count(m, &n));
  CHECK(n > 2);
  OK(xstore_machine_reg_name(m, 1, &name));
  CHECK(strcmp(name, "r1") == 0);
  EXPECT(xstore_machine_reg_name(m, n, &name), XSTORE_ERR_LENGTH);
  OK(xstore_machine_reg_set(m, "r1", 0x11223344));
  OK(xstore_machine_reg_get(m, "r1", &v));
  CHECK(v == 0x11223344);
  OK(xstore_machine_reg_set_text(m, "r2", "0xaabbccdd"));
  OK(xstore_machine_reg_get_text(m, "r2", &text));
  CHECK(strcmp(text, "0xaabbccdd") == 0);
  EXPECT(xstore_machine_reg_get(m, "r99", &v), XSTORE_ERR_UNKNOWN);
  CHECK(contains(xstore_machine_last_error(m), "r99"));
  EXPECT(xstore_machine_reg_set(m, "x1", 1), XSTORE_ERR_UNKNOWN);
  EXPECT(xstore_machine_reg_set_text(m, "r2", "many"), XSTORE_ERR_INPUT);
  EXPECT(xstore_machine_reg_get(m, "\xff", &v), XSTORE_ERR_UTF8);
  EXPECT(xstore_machine_reg_get(m, NULL, &v), XSTORE_ERR_NULL);
}

/* The effects of a clean run of PROGRAM. */
static void check_clean_effects(xstore_effects *fx) {
  xstore_outcome outcome;
  size_t executed = 0, n = 0, len = 0;
  uint64_t addr = 0;
  const uint8_t *data = NULL;
  xstore_fault fault;
  const char *json = NULL;

  OK(xstore_effects_outcome(fx, &outcome, &executed));
  CHECK(outcome == XSTORE_OUTCOME_OK && executed == 2);
  OK(xstore_effects_write_count(fx, &n));
  CHECK(n == 2);
  OK(xstore_effects_write(fx, 0, &addr, &data, &len));
  CHECK(addr == 0x400 && len == 2 && data[0] == 0x44 && data[1] == 0xdd);
  OK(xstore_effects_write(fx, 1, &addr, &data, &len));
  CHECK(addr == 0x410 && len == 4 && data[0] == 0xdd && data[3] == 0x33);
  EXPECT(xstore_effects_write(fx, 2, &addr, &data, &len), XSTORE_ERR_LENGTH);
  OK(xstore_effects_reg_count(fx, &n));
  CHECK(n == 0);
  OK(xstore_effects_fault(fx, &fault));
  CHECK(!fault.faulted);
  OK(xstore_effects_json(fx, &json));
  CHECK(contains(json, "{\"addr\":1024,\"hex\":\"44dd\"}"));
}

/* A machine on a profile's memory: execute, step, rewind, and a fault. */
static void test_machine(xstore_isa *isa) {
  xstore_machine *m = NULL;
  xstore_program *prog = NULL, *bad = NULL;
  xstore_effects *fx = NULL;
  xstore_memory *mem = NULL;
  xstore_fault fault;
  size_t units = 0, len = 0, steps = 0;
  const char *text = NULL;
  const uint8_t *bytes = NULL;
  uint8_t buf[2];
  xstore_status s;

  OK(xstore_machine_new(isa, NULL, &m));
  test_registers(m);
  OK(xstore_program_new_text(isa, PROGRAM, &prog));
  OK(xstore_program_units(prog, &units));
  CHECK(units == 2);
  OK(xstore_program_unit(prog, 1, &text, &bytes, &len));
  CHECK(contains(text, "tensor_store.u16") && len == 64);
  EXPECT(xstore_program_unit(prog, 2, &text, &bytes, &len), XSTORE_ERR_LENGTH);
  OK(xstore_effects_new(&fx));

  OK(xstore_machine_execute(m, prog, fx));
  check_clean_effects(fx);
  OK(xstore_machine_memory(m, &mem));
  OK(xstore_memory_read(mem, 0x400, buf, 2));
  CHECK(buf[0] == 0x44 && buf[1] == 0xdd);
  EXPECT(xstore_memory_free(mem), XSTORE_ERR_STATE);
  CHECK(contains(xstore_memory_last_error(mem), "belongs to a machine"));

  while ((s = xstore_machine_step(m, prog, fx)) == XSTORE_OK) steps++;
  EXPECT(s, XSTORE_END);
  CHECK(steps == 2);
  OK(xstore_machine_rewind(m));
  OK(xstore_machine_step(m, prog, fx));

  EXPECT(xstore_program_new_text(isa, "tensor_store.u8 [0x23ffff0], num_elem=(2,1), imm=(1,2)\n"
                                      "tensor_store.u32 [0x23ffff8], num_elem=(4,1), imm=(1,2,3,4)\n",
                                 &bad), XSTORE_OK);
  EXPECT(xstore_machine_execute(m, bad, fx), XSTORE_FAULT);
  CHECK(strlen(xstore_machine_last_error(m)) > 0);
  OK(xstore_effects_fault(fx, &fault));
  CHECK(fault.faulted && strcmp(fault.kind, "unmapped") == 0);
  CHECK(fault.has_address && fault.address == 0x2400000 && fault.unit == 1);
  CHECK(strcmp(fault.message, xstore_machine_last_error(m)) == 0);
  OK(xstore_program_free(bad));

  EXPECT(xstore_program_new_text(isa, "no such thing", &bad), XSTORE_ERR_INPUT);
  EXPECT(xstore_machine_execute(m, bad, fx), XSTORE_ERR_HANDLE);
  OK(xstore_program_free(bad));
  OK(xstore_program_new(isa, bytes, 64, &bad));
  OK(xstore_program_free(bad));
  EXPECT(xstore_program_new(isa, bytes, 10, &bad), XSTORE_ERR_INPUT);
  OK(xstore_program_free(bad));
  EXPECT(xstore_machine_execute(m, prog, NULL), XSTORE_ERR_NULL);

  OK(xstore_program_free(prog));
  OK(xstore_effects_free(fx));
  OK(xstore_machine_free(m));
  EXPECT(xstore_machine_new(isa, "nc-v9", &m), XSTORE_ERR_UNKNOWN);
  OK(xstore_machine_free(m));
}

/* An embedder's memory: 256 bytes at 0x1000, counting its calls. */
typedef struct {
  uint8_t bytes[256];
  int commits;
  int probes;
} flat;

static int32_t flat_read(void *user, uint64_t addr, uint8_t *buf, size_t len, uint64_t *fault_addr) {
  flat *f = (flat *)user;
  if (addr < 0x1000 || addr + len > 0x1100) {
    *fault_addr = addr < 0x1000 ? addr : 0x1100;
    return XSTORE_ACCESS_UNMAPPED;
  }
  memcpy(buf, f->bytes + (addr - 0x1000), len);
  return XSTORE_ACCESS_OK;
}

static int32_t flat_probe(void *user, uint64_t addr, uint64_t last, uint64_t *fault_addr) {
  flat *f = (flat *)user;
  f->probes++;
  if (addr < 0x1000 || addr >= 0x1100) return XSTORE_ACCESS_UNMAPPED;
  if (last >= 0x1100) {
    *fault_addr = 0x1100;
    return XSTORE_ACCESS_UNMAPPED;
  }
  return XSTORE_ACCESS_OK;
}

static void flat_commit(void *user, uint64_t addr, const uint8_t *data, size_t len) {
  flat *f = (flat *)user;
  f->commits++;
  memcpy(f->bytes + (addr - 0x1000), data, len);
}

static void test_callbacks(xstore_isa *isa) {
  flat f;
  xstore_memory_callbacks cb;
  xstore_memory *mem = NULL;
  xstore_machine *m = NULL, *m2 = NULL;
  xstore_program *prog = NULL;
  xstore_effects *fx = NULL;
  xstore_fault fault;
  uint8_t buf[4];
  int commits;

  memset(&f, 0, sizeof f);
  cb.user = &f;
  cb.read = flat_read;
  cb.probe = flat_probe;
  cb.commit = NULL;
  EXPECT(xstore_memory_new_callbacks(&cb, &mem), XSTORE_ERR_NULL);
  CHECK(contains(xstore_memory_last_error(mem), "callbacks.commit"));
  OK(xstore_memory_free(mem));
  cb.commit = flat_commit;
  OK(xstore_memory_new_callbacks(&cb, &mem));
  EXPECT(xstore_memory_load(mem, 0x1000, buf, 1), XSTORE_ERR_STATE);
  OK(xstore_machine_new_with_memory(isa, mem, &m));
  EXPECT(xstore_machine_new_with_memory(isa, mem, &m2), XSTORE_ERR_STATE);
  OK(xstore_machine_free(m2));
  OK(xstore_effects_new(&fx));

  OK(xstore_program_new_text(isa, "tensor_store.u8 [0x1010], num_elem=(4,1), imm=(9,8,7,6)", &prog));
  OK(xstore_machine_execute(m, prog, fx));
  OK(xstore_program_free(prog));
  CHECK(f.commits == 1 && f.bytes[0x10] == 9 && f.bytes[0x13] == 6);
  OK(xstore_memory_read(mem, 0x1010, buf, 4));
  CHECK(buf[1] == 8);

  /* Row 0 lies inside, row 1 past the end: the unit faults and commits nothing. */
  commits = f.commits;
  f.probes = 0;
  OK(xstore_program_new_text(isa,
                             "tensor_store.u8 [0x10f0], num_elem=(4,2), step_elem=(1,32), imm=(1,2,3,4,5,6,7,8)\n"
                             "tensor_store.u8 [0x1000], num_elem=(1,1), imm=(1)\n",
                             &prog));
  EXPECT(xstore_machine_execute(m, prog, fx), XSTORE_FAULT);
  OK(xstore_effects_fault(fx, &fault));
  CHECK(fault.faulted && fault.unit == 0 && fault.address == 0x1110);
  CHECK(f.probes > 0);
  CHECK(f.commits == commits);
  CHECK(f.bytes[0xf0] == 0 && f.bytes[0] == 0);
  OK(xstore_program_free(prog));

  OK(xstore_effects_free(fx));
  OK(xstore_machine_free(m));
}

/* Q7: a wide register as text, and a changed register in the effects. */
static void test_wide_registers(void) {
  xstore_isa *q7 = NULL;
  xstore_machine *m = NULL;
  xstore_program *prog = NULL;
  xstore_effects *fx = NULL;
  xstore_reg reg;
  const char *text = NULL;
  const uint8_t *data = NULL;
  char hex[129];
  uint64_t v = 0, addr = 0;
  size_t n = 0, len = 0;

  OK(xstore_isa_new("q7", &q7));
  OK(xstore_machine_new(q7, NULL, &m));
  OK(xstore_machine_reg_set(m, "a3", 0x100));
  EXPECT(xstore_machine_reg_get(m, "v0", &v), XSTORE_ERR_STATE);
  OK(xstore_machine_reg_get_text(m, "v0", &text));
  CHECK(strlen(text) == 128);
  memset(hex, '1', 128);
  hex[128] = 0;
  OK(xstore_machine_reg_set_text(m, "v0", hex));
  OK(xstore_program_new_text(q7, "{ IVP_SV2NX8_IP v0, a3, 64 ; nop }", &prog));
  OK(xstore_effects_new(&fx));
  OK(xstore_machine_execute(m, prog, fx));
  OK(xstore_effects_reg_count(fx, &n));
  CHECK(n == 1);
  OK(xstore_effects_reg(fx, 0, &reg));
  CHECK(strcmp(reg.name, "a3") == 0 && reg.value == 0x140 && !reg.wide && strcmp(reg.text, "0x140") == 0);
  EXPECT(xstore_effects_reg(fx, 1, &reg), XSTORE_ERR_LENGTH);
  CHECK(contains(xstore_effects_last_error(fx), "past the last"));
  EXPECT(xstore_effects_reg(fx, 0, NULL), XSTORE_ERR_NULL);
  OK(xstore_effects_write(fx, 0, &addr, &data, &len));
  CHECK(addr == 0x100 && len == 64 && data[0] == 0x11 && data[63] == 0x11);
  CHECK(strcmp(xstore_effects_last_error(fx), "") == 0);
  OK(xstore_effects_free(fx));
  OK(xstore_program_free(prog));
  OK(xstore_machine_free(m));
  OK(xstore_isa_free(q7));
}

/* Handles of another type, and a block of zeros, are refused. */
static void test_wrong_handles(xstore_isa *isa) {
  uint64_t zeros[16] = {0};
  size_t n = 0;
  EXPECT(xstore_machine_reg_count((xstore_machine *)isa, &n), XSTORE_ERR_HANDLE);
  EXPECT(xstore_program_units((xstore_program *)zeros, &n), XSTORE_ERR_HANDLE);
  EXPECT(xstore_effects_free((xstore_effects *)zeros), XSTORE_ERR_HANDLE);
  CHECK(contains(xstore_program_last_error((xstore_program *)zeros), "not a live handle"));
}

/* A scenario's machine and program. */
static void test_scenario(xstore_isa *isa) {
  xstore_machine *m = NULL, *failed = NULL;
  xstore_program *prog = NULL, *other = NULL;
  xstore_effects *fx = NULL;
  xstore_isa *pto = NULL;
  uint64_t r1 = 0;

  OK(xstore_machine_new_scenario(isa, SCENARIO, "sc.toml", &m));
  OK(xstore_machine_reg_get(m, "r1", &r1));
  CHECK(r1 == 0x11223344);
  OK(xstore_program_new_scenario(isa, SCENARIO, "sc.toml", &prog));
  OK(xstore_effects_new(&fx));
  OK(xstore_machine_execute(m, prog, fx));
  check_clean_effects(fx);

  OK(xstore_isa_new("pto", &pto));
  OK(xstore_program_new_text(pto, "BSTART.TSTORE U8\nB.DIM LB0, 64\nB.DIM LB1, 8\nB.DIM LB2, 64\n"
                                  "B.IOR a0, a1\nB.IOT T1, mask=1111, last\nBSTOP", &other));
  EXPECT(xstore_machine_execute(m, other, fx), XSTORE_ERR_STATE);
  CHECK(contains(xstore_machine_last_error(m), "isa `pto`"));
  EXPECT(xstore_machine_new_scenario(isa, "isa = \"neuron\"\nprogram = 3\n", "bad.toml", &failed),
         XSTORE_ERR_INPUT);
  CHECK(contains(xstore_machine_last_error(failed), "bad.toml"));
  OK(xstore_machine_free(failed));
  OK(xstore_machine_free(m));
  OK(xstore_program_free(other));
  OK(xstore_isa_free(pto));
  OK(xstore_program_free(prog));
  OK(xstore_effects_free(fx));
}

/* The lockstep check: the model's effects, a matching unit, a wrong byte. */
static void test_cosim(xstore_isa *isa) {
  xstore_cosim *c = NULL;
  xstore_effects *fx = NULL;
  xstore_mismatch mm;
  xstore_write w;
  size_t units = 0, n = 0, len = 0;
  uint64_t addr = 0;
  const uint8_t *data = NULL;
  const char *json = NULL;
  uint8_t wrong[4] = {0xdd, 0xcc, 0x44, 0x00};
  xstore_dut_fault fault = {"unmapped", true, 0x1234};

  OK(xstore_cosim_new(SCENARIO, "sc.toml", &c));
  OK(xstore_cosim_units(c, &units));
  CHECK(units == 2);
  OK(xstore_effects_new(&fx));
  OK(xstore_cosim_step(c, fx));
  OK(xstore_effects_write_count(fx, &n));
  CHECK(n == 1);
  OK(xstore_effects_write(fx, 0, &addr, &data, &len));
  w.addr = addr;
  w.data = data;
  w.len = len;
  OK(xstore_cosim_check(c, &w, 1, NULL));
  EXPECT(xstore_cosim_mismatch(c, &mm), XSTORE_ERR_STATE);

  OK(xstore_cosim_step(c, fx));
  w.addr = 0x410;
  w.data = wrong;
  w.len = 4;
  EXPECT(xstore_cosim_check(c, &w, 1, NULL), XSTORE_MISMATCH);
  CHECK(contains(xstore_cosim_last_error(c), "wrong_byte"));
  OK(xstore_cosim_mismatch(c, &mm));
  CHECK(strcmp(mm.class_name, "wrong_byte") == 0 && mm.unit == 1);
  CHECK(contains(mm.expected, "0x410:ddcc4433") && contains(mm.actual, "0x410:ddcc4400"));
  CHECK(contains(mm.report, "divergence at unit 1"));
  OK(xstore_cosim_mismatch_json(c, &json));
  CHECK(contains(json, "\"class\":\"wrong_byte\""));
  EXPECT(xstore_cosim_step(c, fx), XSTORE_END);
  EXPECT(xstore_cosim_check(c, NULL, 1, NULL), XSTORE_ERR_NULL);
  OK(xstore_cosim_free(c));

  OK(xstore_cosim_new_program(isa, "tensor_store.u8 [0x100], num_elem=(1,1), imm=(5)", &c));
  EXPECT(xstore_cosim_check(c, NULL, 0, &fault), XSTORE_MISMATCH);
  OK(xstore_cosim_mismatch(c, &mm));
  CHECK(strcmp(mm.class_name, "unexpected_fault") == 0);
  OK(xstore_cosim_free(c));
  EXPECT(xstore_cosim_new("isa = \"q8\"\n", NULL, &c), XSTORE_ERR_INPUT);
  OK(xstore_cosim_free(c));
  OK(xstore_effects_free(fx));
}

/* Writes pushed one at a time (as DPI-C benches give them), checked with
 * the writes given to the check; the mismatch as text. */
static void test_pushed_writes(void) {
  xstore_cosim *c = NULL;
  xstore_effects *fx = NULL;
  xstore_write w;
  const char *report = NULL;
  const uint8_t lo[2] = {0x44, 0xdd}, first[2] = {0xdd, 0xcc}, rest[2] = {0x44, 0x33};
  const uint8_t wrong[2] = {0x44, 0x00};

  OK(xstore_cosim_new(SCENARIO, "sc.toml", &c));
  OK(xstore_effects_new(&fx));
  EXPECT(xstore_cosim_mismatch_report(c, &report), XSTORE_ERR_STATE);
  OK(xstore_cosim_step(c, fx));
  OK(xstore_cosim_push_write(c, 0x401, lo + 1, 1)); /* the two bytes in reverse order */
  OK(xstore_cosim_push_write(c, 0x400, lo, 1));
  OK(xstore_cosim_check(c, NULL, 0, NULL));
  /* Unit 1: half pushed, half given to the check. */
  OK(xstore_cosim_step(c, fx));
  OK(xstore_cosim_push_write(c, 0x410, first, 2));
  w.addr = 0x412;
  w.data = rest;
  w.len = 2;
  OK(xstore_cosim_check(c, &w, 1, NULL));
  EXPECT(xstore_cosim_push_write(c, 0x400, NULL, 1), XSTORE_ERR_NULL);
  OK(xstore_cosim_push_write(c, 0x400, NULL, 0));
  EXPECT(xstore_cosim_push_write(NULL, 0x400, lo, 1), XSTORE_ERR_NULL);
  EXPECT(xstore_cosim_mismatch_report(c, NULL), XSTORE_ERR_NULL);
  OK(xstore_cosim_free(c));

  /* A wrong byte pushed: the report names the unit and both bytes; the
   * pushed writes are let go, so the next check sees none. */
  OK(xstore_cosim_new(SCENARIO, "sc.toml", &c));
  OK(xstore_cosim_step(c, fx));
  OK(xstore_cosim_push_write(c, 0x400, wrong, 2));
  EXPECT(xstore_cosim_check(c, NULL, 0, NULL), XSTORE_MISMATCH);
  OK(xstore_cosim_mismatch_report(c, &report));
  CHECK(contains(report, "divergence at unit 0 (wrong_byte)"));
  CHECK(contains(report, "expected 44 dd") && contains(report, "actual   44 00"));
  CHECK(contains(report, "the unit's fields:"));
  OK(xstore_cosim_step(c, fx));
  EXPECT(xstore_cosim_check(c, NULL, 0, NULL), XSTORE_MISMATCH);
  CHECK(contains(xstore_cosim_last_error(c), "missing_write"));
  OK(xstore_cosim_free(c));
  OK(xstore_effects_free(fx));
}

/* A unit's bytes copied into the caller's buffer. */
static void test_unit_copy(xstore_isa *isa) {
  xstore_program *prog = NULL;
  const char *text = NULL;
  const uint8_t *bytes = NULL;
  uint8_t buf[80];
  size_t len = 0, n = 0;

  OK(xstore_program_new_text(isa, PROGRAM, &prog));
  OK(xstore_program_unit(prog, 1, &text, &bytes, &n));
  memset(buf, 0xee, sizeof buf);
  OK(xstore_program_unit_copy(prog, 1, buf, sizeof buf, &len));
  CHECK(len == 64 && n == 64 && memcmp(buf, bytes, 64) == 0 && buf[64] == 0xee);
  len = 0;
  EXPECT(xstore_program_unit_copy(prog, 0, buf, 63, &len), XSTORE_ERR_LENGTH);
  CHECK(len == 64 && contains(xstore_program_last_error(prog), "buf holds 63"));
  EXPECT(xstore_program_unit_copy(prog, 0, NULL, 0, &len), XSTORE_ERR_LENGTH);
  EXPECT(xstore_program_unit_copy(prog, 0, NULL, 64, &len), XSTORE_ERR_NULL);
  EXPECT(xstore_program_unit_copy(prog, 2, buf, sizeof buf, &len), XSTORE_ERR_LENGTH);
  EXPECT(xstore_program_unit_copy(prog, 0, buf, sizeof buf, NULL), XSTORE_ERR_NULL);
  OK(xstore_program_free(prog));
}

/* Functional coverage of scenarios, as `xstore cover` counts it. */
static void test_coverage(xstore_isa *isa) {
  xstore_coverage *cov = NULL, *failed = NULL;
  xstore_isa *pto = NULL;
  size_t programs = 0, hit = 0, reachable = 0;
  const char *report = NULL;

  OK(xstore_coverage_new(isa, &cov));
  OK(xstore_coverage_totals(cov, &programs, &hit, &reachable));
  CHECK(programs == 0 && hit == 0 && reachable > 100);
  OK(xstore_coverage_add(cov, SCENARIO, "sc.toml"));
  OK(xstore_coverage_add(cov, SCENARIO, NULL));
  OK(xstore_coverage_totals(cov, &programs, &hit, &reachable));
  CHECK(programs == 2 && hit > 0 && hit < reachable);
  OK(xstore_coverage_text(cov, &report));
  CHECK(contains(report, "neuron: 2 program(s);") && contains(report, "holes ("));
  OK(xstore_coverage_json(cov, &report));
  CHECK(contains(report, "\"programs\":2") && contains(report, "\"holes\":["));
  EXPECT(xstore_coverage_add(cov, "isa = \"pto\"\nprogram = \"\"\n", "pto.toml"), XSTORE_ERR_INPUT);
  CHECK(contains(xstore_coverage_last_error(cov), "pto.toml"));
  EXPECT(xstore_coverage_add(cov, "isa = \"neuron\"\nprogram = 3\n", "bad.toml"), XSTORE_ERR_INPUT);
  EXPECT(xstore_coverage_add(cov, NULL, NULL), XSTORE_ERR_NULL);
  EXPECT(xstore_coverage_add(cov, "\xff", NULL), XSTORE_ERR_UTF8);
  OK(xstore_coverage_totals(cov, &programs, &hit, &reachable));
  CHECK(programs == 2);
  EXPECT(xstore_coverage_totals(cov, NULL, &hit, &reachable), XSTORE_ERR_NULL);
  EXPECT(xstore_coverage_text(cov, NULL), XSTORE_ERR_NULL);
  EXPECT(xstore_coverage_json(cov, NULL), XSTORE_ERR_NULL);
  OK(xstore_coverage_free(cov));
  OK(xstore_isa_new("pto", &pto));
  OK(xstore_coverage_new(pto, &cov));
  OK(xstore_coverage_totals(cov, &programs, &hit, &reachable));
  CHECK(programs == 0 && reachable > 100);
  OK(xstore_coverage_free(cov));
  OK(xstore_isa_free(pto));
  EXPECT(xstore_coverage_new(NULL, &failed), XSTORE_ERR_NULL);
  EXPECT(xstore_coverage_totals(failed, &programs, &hit, &reachable), XSTORE_ERR_HANDLE);
  OK(xstore_coverage_free(failed));
  EXPECT(xstore_coverage_new(isa, NULL), XSTORE_ERR_NULL);
}

int main(void) {
  xstore_isa *isa = NULL;
  test_version();
  test_isa_handles();
  OK(xstore_isa_new("neuron", &isa));
  test_isa_calls(isa);
  test_memory(isa);
  test_machine(isa);
  test_callbacks(isa);
  test_wide_registers();
  test_wrong_handles(isa);
  test_scenario(isa);
  test_cosim(isa);
  test_pushed_writes();
  test_unit_copy(isa);
  test_coverage(isa);
  OK(xstore_isa_free(isa));
  printf("test_capi: %d checks passed\n", checks);
  return 0;
}
