// tb_dpi.sv: the DPI-C bench of examples/cosim. It runs the programs of a
// campaign (the scenario files listed in +list=FILE, one path a line, from
// `xstore gen neuron --config examples/cosim/subset.toml`) on the example
// store engine (examples/cosim/rtl/neuron_store.sv) and checks, instruction
// by instruction, every write it makes against the model's step, through
// xstore_pkg (crates/capi/sv/xstore_pkg.sv).
//
// For each program: the model's run (xstore_cosim_new), the registers of the
// scenario loaded into the engine, then for each instruction its 64 bytes
// into the engine, each cycle's byte-enabled write pushed to the model as
// its runs of enabled bytes (xstore_cosim_push_write), the model stepped
// (xstore_cosim_step) and the unit checked (xstore_cosim_check). The first
// mismatch of a program is printed as `xstore compare` reports it: the unit,
// the class, the expected and actual bytes, the instruction's fields; the
// bench goes on with the next program (+stop_at_first: it stops there).
//
// It ends with one line to parse, `tb_dpi: N programs, M writes checked,
// U units, F mismatches, C cycles`, and the coverage of the programs run.
module tb_dpi;
  import xstore_pkg::*;

  logic         clk = 1'b0;
  logic         rst_n = 1'b0;
  logic         rf_we = 1'b0;
  logic [5:0]   rf_waddr = '0;
  logic [31:0]  rf_wdata = '0;
  logic         inst_valid = 1'b0;
  logic [511:0] inst = '0;
  logic         inst_ready;
  logic         wr_valid;
  logic [63:0]  wr_addr, wr_data;
  logic [7:0]   wr_be;

  neuron_store dut (.*);

  always #5 clk = ~clk;

  chandle isa, coverage, effects;
  longint unsigned programs = 0, writes = 0, units = 0, mismatches = 0, cycles = 0;

  // Stop the run when a library call fails (not a mismatch: a broken bench).
  function automatic void ok(input int s, input string what, input string message);
    if (s != XSTORE_OK) $fatal(1, "tb_dpi: %s: %s: %s", what, xstore_status_name(s), message);
  endfunction

  // The scenario's registers r0..r63 into the engine's register file.
  task automatic load_registers(input chandle machine);
    longint unsigned v;
    for (int r = 0; r < 64; r++) begin
      ok(xstore_machine_reg_get(machine, $sformatf("r%0d", r), v), "reg_get",
         xstore_machine_last_error(machine));
      @(negedge clk);
      rf_we = 1'b1;
      rf_waddr = r[5:0];
      rf_wdata = v[31:0];
    end
    @(negedge clk);
    rf_we = 1'b0;
  endtask

  // This cycle's write as its runs of enabled bytes, each pushed to the model.
  function automatic void push_beat(input chandle cosim);
    int j = 0;
    while (j < 8) begin
      if (wr_be[j]) begin
        int n = 0;
        bit [8*XSTORE_WRITE_BYTES-1:0] data = '0;
        while (j + n < 8 && wr_be[j+n]) begin
          data[8*n +: 8] = wr_data[8*(j+n) +: 8];
          n++;
        end
        ok(xstore_cosim_push_write(cosim, wr_addr + 64'(j), data, 64'(n)), "push_write",
           xstore_cosim_last_error(cosim));
        j += n;
      end else begin
        j++;
      end
    end
  endfunction

  // One instruction through the engine: its bytes in, every write pushed.
  task automatic issue(input chandle cosim, input bit [511:0] bytes_in);
    int waited = 0;
    @(negedge clk);
    inst = bytes_in;
    inst_valid = 1'b1;
    do begin
      @(negedge clk);
      inst_valid = 1'b0;
      cycles++;
      if (wr_valid) begin
        writes++;
        push_beat(cosim);
      end
      if (++waited > 1000) $fatal(1, "tb_dpi: the engine never finished an instruction");
    end while (!inst_ready);
  endtask

  // Run one program of the campaign; 1 when it mismatched.
  task automatic run_program(input string path, output bit mismatched);
    string text = xstore_read_text(path);
    chandle cosim, machine, prog;
    longint unsigned n, model_units, len;
    bit [8*XSTORE_UNIT_BYTES-1:0] unit_bytes;
    string report;
    mismatched = 1'b0;
    ok(xstore_cosim_new(text, path, cosim), path, xstore_cosim_last_error(cosim));
    ok(xstore_machine_new_scenario(isa, text, path, machine), path,
       xstore_machine_last_error(machine));
    ok(xstore_program_new_scenario(isa, text, path, prog), path,
       xstore_program_last_error(prog));
    ok(xstore_coverage_add(coverage, text, path), path, xstore_coverage_last_error(coverage));
    load_registers(machine);
    void'(xstore_machine_free(machine));
    ok(xstore_program_units(prog, n), "units", xstore_program_last_error(prog));
    ok(xstore_cosim_units(cosim, model_units), "units", xstore_cosim_last_error(cosim));
    if (model_units != n)
      $fatal(1, "tb_dpi: %s: the model stops after %0d of %0d instructions: not a program of the engine's subset",
             path, model_units, n);
    for (longint unsigned u = 0; u < n; u++) begin
      ok(xstore_program_unit_copy(prog, u, unit_bytes, XSTORE_UNIT_BYTES, len), "unit_copy",
         xstore_program_last_error(prog));
      if (len != 64) $fatal(1, "tb_dpi: %s: unit %0d has %0d bytes, not 64", path, u, len);
      issue(cosim, unit_bytes[511:0]);
      ok(xstore_cosim_step(cosim, effects), "step", xstore_cosim_last_error(cosim));
      units++;
      if (xstore_cosim_check(cosim, null, 0, null) == XSTORE_MISMATCH) begin
        ok(xstore_cosim_mismatch_report(cosim, report), "mismatch", xstore_cosim_last_error(cosim));
        $display("tb_dpi: MISMATCH in %s\n%s", path, report);
        mismatched = 1'b1;
        break;
      end
    end
    void'(xstore_program_free(prog));
    void'(xstore_cosim_free(cosim));
  endtask

  initial begin
    string list, path, report;
    int fd;
    bit mismatched;
    longint unsigned counted, hit, reachable;
    if (xstore_abi_version() != XSTORE_PKG_ABI_VERSION)
      $fatal(1, "tb_dpi: libxstore's interface is version %0d; xstore_pkg was written for %0d",
             xstore_abi_version(), XSTORE_PKG_ABI_VERSION);
    if (!$value$plusargs("list=%s", list)) $fatal(1, "tb_dpi: +list=FILE names the campaign");
    ok(xstore_isa_new("neuron", isa), "isa", xstore_isa_last_error(isa));
    ok(xstore_coverage_new(isa, coverage), "coverage", xstore_coverage_last_error(coverage));
    ok(xstore_effects_new(effects), "effects", xstore_effects_last_error(effects));
    repeat (2) @(negedge clk);
    rst_n = 1'b1;
    fd = $fopen(list, "r");
    if (fd == 0) $fatal(1, "tb_dpi: cannot read %s", list);
    while ($fgets(path, fd) != 0) begin
      while (path.len() > 0 && (path[path.len()-1] == "\n" || path[path.len()-1] == "\r"))
        path = path.substr(0, path.len() - 2);
      if (path.len() == 0) continue;
      run_program(path, mismatched);
      programs++;
      if (mismatched) begin
        mismatches++;
        if ($test$plusargs("stop_at_first")) break;
      end
    end
    $fclose(fd);
    ok(xstore_coverage_totals(coverage, counted, hit, reachable), "coverage",
       xstore_coverage_last_error(coverage));
    $display("tb_dpi: coverage: %0d of %0d reachable bins hit by %0d program(s)", hit, reachable,
             counted);
    if ($test$plusargs("coverage_report")) begin
      ok(xstore_coverage_text(coverage, report), "coverage", xstore_coverage_last_error(coverage));
      $write("%s", report);
    end
    $display("tb_dpi: %0d programs, %0d writes checked, %0d units, %0d mismatches, %0d cycles",
             programs, writes, units, mismatches, cycles);
    void'(xstore_effects_free(effects));
    void'(xstore_coverage_free(coverage));
    void'(xstore_isa_free(isa));
    $finish;
  end
endmodule
