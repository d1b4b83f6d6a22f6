// The DPI-C package in one module: the model's run of a two-element u16
// store, the device's writes pushed as it would make them, and the
// lockstep check's report of the byte it got wrong.
module example;
  import xstore_pkg::*;

  initial begin
    chandle isa, cosim, effects;
    longint unsigned n;
    string report;
    bit [8*XSTORE_WRITE_BYTES-1:0] data;
    if (xstore_isa_new("neuron", isa) != XSTORE_OK) $fatal(1, "%s", xstore_isa_last_error(isa));
    if (xstore_cosim_new_program(isa, "tensor_store.u16 [0x1000], num_elem=(2,1), imm=(0x1234,0x5678)\n",
                                 cosim) != XSTORE_OK)
      $fatal(1, "%s", xstore_cosim_last_error(cosim));
    void'(xstore_effects_new(effects));
    void'(xstore_cosim_step(cosim, effects));
    void'(xstore_effects_write_count(effects, n));
    $display("the model writes %0d time(s)", n);
    // The device's two element writes, the second one's high byte wrong.
    data = '0;
    data[15:0] = 16'h1234;  // byte 0 of the write in bits 7:0
    void'(xstore_cosim_push_write(cosim, 64'h1000, data, 2));
    data[15:0] = 16'h5679;
    void'(xstore_cosim_push_write(cosim, 64'h1002, data, 2));
    if (xstore_cosim_check(cosim, null, 0, null) == XSTORE_MISMATCH) begin
      void'(xstore_cosim_mismatch_report(cosim, report));
      $write("%s", report);
    end
    void'(xstore_effects_free(effects));
    void'(xstore_cosim_free(cosim));
    void'(xstore_isa_free(isa));
    $finish;
  end
endmodule
