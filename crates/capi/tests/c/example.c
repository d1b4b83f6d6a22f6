/* Assemble a Neuron program, run it on a machine with the default profile's
 * memory, and print each write and the fault that stops the run. */
#include "xstore.h"

#include <stdio.h>

static int fail(const char *what, xstore_status s, const char *message) {
  fprintf(stderr, "%s: %s: %s\n", what, xstore_status_name(s), message);
  return 1;
}

int main(void) {
  xstore_isa *isa = NULL;
  xstore_machine *machine = NULL;
  xstore_program *program = NULL;
  xstore_effects *effects = NULL;
  xstore_fault fault;
  size_t writes = 0, i, k;
  xstore_status s;
  int rc = 0;

  if ((s = xstore_isa_new("neuron", &isa)) != XSTORE_OK) {
    rc = fail("isa", s, xstore_isa_last_error(isa));
    goto done;
  }
  if ((s = xstore_machine_new(isa, NULL, &machine)) != XSTORE_OK) {
    rc = fail("machine", s, xstore_machine_last_error(machine));
    goto done;
  }
  xstore_machine_reg_set(machine, "r1", 0x11223344);
  s = xstore_program_new_text(isa,
                              "tensor_store.u8 [0x400], num_elem=(2,1), reg=(r1,r1)\n"
                              "tensor_store.u32 [0x23ffffc], num_elem=(2,1), imm=(1,2)\n",
                              &program);
  if (s != XSTORE_OK) {
    rc = fail("program", s, xstore_program_last_error(program));
    goto done;
  }
  xstore_effects_new(&effects);
  s = xstore_machine_execute(machine, program, effects);
  if (s != XSTORE_OK && s != XSTORE_FAULT) {
    rc = fail("execute", s, xstore_machine_last_error(machine));
    goto done;
  }
  xstore_effects_write_count(effects, &writes);
  for (i = 0; i < writes; i++) {
    uint64_t addr;
    const uint8_t *data;
    size_t len;
    xstore_effects_write(effects, i, &addr, &data, &len);
    printf("write 0x%llx:", (unsigned long long)addr);
    for (k = 0; k < len; k++) printf(" %02x", data[k]);
    printf("\n");
  }
  xstore_effects_fault(effects, &fault);
  if (fault.faulted)
    printf("fault %s at 0x%llx in unit %zu: %s\n", fault.kind, (unsigned long long)fault.address,
           fault.unit, fault.message);

done:
  xstore_effects_free(effects);
  xstore_program_free(program);
  xstore_machine_free(machine);
  xstore_isa_free(isa);
  return rc;
}
