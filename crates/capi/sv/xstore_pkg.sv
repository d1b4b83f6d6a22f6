// xstore_pkg.sv: the C interface of libxstore (crates/capi/include/xstore.h)
// as SystemVerilog DPI-C imports, for benches that check RTL against the
// model (docs/cosim.md, "SystemVerilog and DPI-C").
//
// Each import is the C call itself, under its C name: link the bench with
// libxstore (target/release/libxstore.a with -lpthread -ldl -lm, or
// -lxstore); there is no other C to compile. The types map as IEEE 1800
// Annex H has them, on a 64-bit little-endian host:
//
//   an opaque handle (xstore_isa *, ...)  chandle
//   a handle's out pointer (T **)         output chandle
//   const char * / const char **          input string / output string
//   uint64_t, size_t                      longint unsigned
//   uint64_t *, size_t *                  output longint unsigned
//   xstore_status (the return value)      int, compared with XSTORE_OK ...
//   const uint8_t * bytes                 input bit [8*N-1:0], byte 0 in bits 7:0
//   uint8_t * buffer                      output bit [8*N-1:0], the same way
//
// The calls whose arguments are C structs (xstore_write arrays,
// xstore_mismatch, xstore_fault, xstore_reg) have DPI-friendly siblings
// here: xstore_cosim_push_write holds the DUT's writes one at a time for
// xstore_cosim_check, xstore_cosim_mismatch_report gives the mismatch as
// text, and xstore_program_unit_copy copies a unit's bytes into a vector.
//
// The rules of the header hold: every handle made is freed, a handle is used
// by one thread at a time, text a call hands out is valid until the next
// call on its handle (an output string is copied by the simulator at once).
package xstore_pkg;

  // The version of the interface this package was written for
  // (XSTORE_ABI_VERSION); compare with xstore_abi_version().
  localparam int unsigned XSTORE_PKG_ABI_VERSION = 1;

  // The largest write xstore_cosim_push_write takes, and the largest unit
  // xstore_program_unit_copy copies, in bytes (the vector widths below).
  localparam int XSTORE_WRITE_BYTES = 64;
  localparam int XSTORE_UNIT_BYTES = 256;

  // xstore_status.
  localparam int XSTORE_OK = 0;
  localparam int XSTORE_END = 1;
  localparam int XSTORE_FAULT = 2;
  localparam int XSTORE_MISMATCH = 3;
  localparam int XSTORE_ERR_NULL = 10;
  localparam int XSTORE_ERR_LENGTH = 11;
  localparam int XSTORE_ERR_UTF8 = 12;
  localparam int XSTORE_ERR_HANDLE = 13;
  localparam int XSTORE_ERR_UNKNOWN = 14;
  localparam int XSTORE_ERR_INPUT = 15;
  localparam int XSTORE_ERR_ACCESS = 16;
  localparam int XSTORE_ERR_STATE = 17;
  localparam int XSTORE_ERR_INTERNAL = 99;

  // xstore_outcome.
  localparam int XSTORE_OUTCOME_OK = 0;
  localparam int XSTORE_OUTCOME_FAULT = 1;
  localparam int XSTORE_OUTCOME_PENDING = 2;

  import "DPI-C" function int unsigned xstore_abi_version();
  import "DPI-C" function string xstore_status_name(input int status);

  // xstore_isa: an ISA of the registry.
  import "DPI-C" function int xstore_isa_new(input string name, output chandle isa);
  import "DPI-C" function int xstore_isa_free(input chandle isa);
  import "DPI-C" function string xstore_isa_last_error(input chandle isa);
  import "DPI-C" function int xstore_isa_name(input chandle isa, output string name);
  import "DPI-C" function int xstore_isa_explain_json(input chandle isa, input string input_text,
                                                     output string report);
  import "DPI-C" function int xstore_isa_run_json(input chandle isa, input string scenario_text,
                                                 input string file, output string report);
  import "DPI-C" function int xstore_isa_lint_json(input chandle isa, input string scenario_text,
                                                  input string file, output string report);

  // xstore_machine: an ISA's machine and its memory.
  import "DPI-C" function int xstore_machine_new(input chandle isa, input string profile,
                                                output chandle machine);
  import "DPI-C" function int xstore_machine_new_scenario(input chandle isa,
                                                         input string scenario_text,
                                                         input string file,
                                                         output chandle machine);
  import "DPI-C" function int xstore_machine_free(input chandle machine);
  import "DPI-C" function string xstore_machine_last_error(input chandle machine);
  import "DPI-C" function int xstore_machine_reg_count(input chandle machine,
                                                      output longint unsigned n);
  import "DPI-C" function int xstore_machine_reg_name(input chandle machine,
                                                     input longint unsigned i,
                                                     output string name);
  import "DPI-C" function int xstore_machine_reg_get(input chandle machine, input string name,
                                                    output longint unsigned value);
  import "DPI-C" function int xstore_machine_reg_get_text(input chandle machine,
                                                         input string name,
                                                         output string value);
  import "DPI-C" function int xstore_machine_reg_set(input chandle machine, input string name,
                                                    input longint unsigned value);
  import "DPI-C" function int xstore_machine_reg_set_text(input chandle machine,
                                                         input string name,
                                                         input string value);
  import "DPI-C" function int xstore_machine_execute(input chandle machine, input chandle prog,
                                                    input chandle effects);
  import "DPI-C" function int xstore_machine_step(input chandle machine, input chandle prog,
                                                 input chandle effects);
  import "DPI-C" function int xstore_machine_rewind(input chandle machine);

  // xstore_program: a decoded program, split into units.
  import "DPI-C" function int xstore_program_new_text(input chandle isa, input string source,
                                                     output chandle prog);
  import "DPI-C" function int xstore_program_new_scenario(input chandle isa,
                                                         input string scenario_text,
                                                         input string file,
                                                         output chandle prog);
  import "DPI-C" function int xstore_program_free(input chandle prog);
  import "DPI-C" function string xstore_program_last_error(input chandle prog);
  import "DPI-C" function int xstore_program_units(input chandle prog,
                                                  output longint unsigned units);
  import "DPI-C" function int xstore_program_unit(input chandle prog, input longint unsigned i,
                                                 output string source, output chandle bytes_out,
                                                 output longint unsigned len);
  // cap must be at most XSTORE_UNIT_BYTES: the vector is the buffer.
  import "DPI-C" function int xstore_program_unit_copy(input chandle prog,
                                                      input longint unsigned i,
                                                      output bit [8*XSTORE_UNIT_BYTES-1:0] buf_,
                                                      input longint unsigned cap,
                                                      output longint unsigned len);

  // xstore_effects: what a run or a step did.
  import "DPI-C" function int xstore_effects_new(output chandle effects);
  import "DPI-C" function int xstore_effects_free(input chandle effects);
  import "DPI-C" function string xstore_effects_last_error(input chandle effects);
  import "DPI-C" function int xstore_effects_outcome(input chandle effects, output int outcome,
                                                    output longint unsigned executed);
  import "DPI-C" function int xstore_effects_write_count(input chandle effects,
                                                        output longint unsigned n);
  import "DPI-C" function int xstore_effects_reg_count(input chandle effects,
                                                      output longint unsigned n);
  import "DPI-C" function int xstore_effects_json(input chandle effects, output string report);

  // xstore_cosim: the model's run, checked unit by unit against the DUT.
  import "DPI-C" function int xstore_cosim_new(input string scenario_text, input string file,
                                              output chandle cosim);
  import "DPI-C" function int xstore_cosim_new_program(input chandle isa, input string source,
                                                      output chandle cosim);
  import "DPI-C" function int xstore_cosim_free(input chandle cosim);
  import "DPI-C" function string xstore_cosim_last_error(input chandle cosim);
  import "DPI-C" function int xstore_cosim_units(input chandle cosim, output longint unsigned n);
  import "DPI-C" function int xstore_cosim_step(input chandle cosim, input chandle effects);
  // len must be at most XSTORE_WRITE_BYTES: byte j of the write is data[8*j +: 8].
  import "DPI-C" function int xstore_cosim_push_write(input chandle cosim,
                                                     input longint unsigned addr,
                                                     input bit [8*XSTORE_WRITE_BYTES-1:0] data,
                                                     input longint unsigned len);
  // From DPI-C: writes null and n 0 (the pushed writes are checked), fault
  // null (the DUT completed the unit).
  import "DPI-C" function int xstore_cosim_check(input chandle cosim, input chandle writes,
                                                input longint unsigned n, input chandle fault);
  import "DPI-C" function int xstore_cosim_mismatch_report(input chandle cosim,
                                                          output string report);
  import "DPI-C" function int xstore_cosim_mismatch_json(input chandle cosim,
                                                        output string report);

  // xstore_coverage: functional coverage of the scenarios a bench runs.
  import "DPI-C" function int xstore_coverage_new(input chandle isa, output chandle coverage);
  import "DPI-C" function int xstore_coverage_free(input chandle coverage);
  import "DPI-C" function string xstore_coverage_last_error(input chandle coverage);
  import "DPI-C" function int xstore_coverage_add(input chandle coverage, input string scenario_text,
                                                 input string file);
  import "DPI-C" function int xstore_coverage_totals(input chandle coverage,
                                                    output longint unsigned programs,
                                                    output longint unsigned hit,
                                                    output longint unsigned reachable);
  import "DPI-C" function int xstore_coverage_text(input chandle coverage, output string report);
  import "DPI-C" function int xstore_coverage_json(input chandle coverage, output string report);

  // A text file's contents (a scenario), or "" with an error when it cannot
  // be read.
  function automatic string xstore_read_text(input string path);
    string text = "";
    string line;
    int fd;
    fd = $fopen(path, "r");
    if (fd == 0) begin
      $error("xstore_pkg: cannot read %s", path);
      return "";
    end
    while ($fgets(line, fd) != 0) text = {text, line};
    $fclose(fd);
    return text;
  endfunction

endpackage
