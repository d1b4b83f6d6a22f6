// neuron_store.sv: an example device under test, a Neuron TensorStore engine,
// written from docs/neuron.md ("Fields of the 64-byte instruction",
// "DTYPE values", "Execution"). It stands in for a user's RTL in the example
// benches of examples/cosim (docs/cosim.md): the model is the reference, this
// is the implementation checked against it.
//
// The subset it implements: TENSOR_STORE (opcode 0xab) with the immediate
// ADDR8 form (marker 0), every dtype of the 8-type set (u8 i8 u16 i16 u32 i32
// f32 u64), a register source (src_datasrc 0; u64 from the pair R[n],
// R[n+1]) or immediates (src_datasrc 1; element k at data[k*w .. k*w+w),
// little-endian), num_elem (n0, n1) and signed step_elem (s0, s1) in
// elements. The instruction is taken as legal: the engine checks none of
// validate's rules and sees no memory faults (the benches feed it the
// programs of examples/cosim/subset.toml, which has none). Events and debug
// bytes are carried by the instruction and ignored here.
//
// Timing: while inst_ready is high, inst_valid latches inst. From the next
// cycle on, the engine issues one element a cycle in the order
// k = i1*n0 + i0, each as one registered byte-enabled write of the 8-byte
// aligned beat that holds it (wr_addr, wr_data, wr_be: byte lane j is
// address wr_addr + j). inst_ready is high again with the last write.
//
// The engine holds the 64 sequencer registers r0..r63 (32 bits each); the
// bench loads them through rf_we, rf_waddr, rf_wdata before a program.
//
// Injected bugs, one define each (for the benches' bug campaigns):
//   BUG_STRIDE_SIGN      a negative stride walks forward (its sign dropped)
//   BUG_COUNT_OFF_BY_ONE the element count is one short: the last element of
//                        an instruction of two or more is not written
//   BUG_DROPPED_BE       the byte enable of a u64 element's highest byte is
//                        dropped
//   BUG_U64_PAIR_SWAP    a u64 from registers takes R[n+1] as its low half
module neuron_store (
    input  logic         clk,
    input  logic         rst_n,
    // Register file load.
    input  logic         rf_we,
    input  logic [5:0]   rf_waddr,
    input  logic [31:0]  rf_wdata,
    // The instruction: byte b of the 64 is inst[8*b +: 8].
    input  logic         inst_valid,
    /* verilator lint_off UNUSEDSIGNAL */  // the header, events and debug bytes
    input  logic [511:0] inst,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic         inst_ready,
    // One element's write a cycle.
    output logic         wr_valid,
    output logic [63:0]  wr_addr,
    output logic [63:0]  wr_data,
    output logic [7:0]   wr_be
);
  logic [31:0]  rf [0:63];
  logic         busy;
  logic [7:0]   n0, i0, i1, k;
  logic [1:0]   lg;         // log2 of the element width
  logic         imm;        // src_datasrc == 1
  logic [255:0] data;       // the 32 data bytes
  logic [63:0]  s0w, s1w;   // strides in bytes, sign-extended
  logic [63:0]  addr, row;  // this element's address; this row's first

  // log2 of the width of a dtype of the 8-type set (docs/neuron.md, DTYPE values).
  function automatic logic [1:0] log2_width(input logic [7:0] dtype);
    case (dtype)
      8'h01:                log2_width = 2'd3;  // u64
      8'h02, 8'h03:         log2_width = 2'd0;  // i8, u8
      8'h04, 8'h05:         log2_width = 2'd1;  // i16, u16
      default:              log2_width = 2'd2;  // i32, u32, f32
    endcase
  endfunction

  // A stride in elements as a signed byte offset.
  function automatic logic [63:0] stride_bytes(input logic [31:0] s, input logic [1:0] l);
    logic [63:0] e;
`ifdef BUG_STRIDE_SIGN
    e = s[31] ? {32'd0, -s} : {32'd0, s};
`else
    e = {{32{s[31]}}, s};
`endif
    stride_bytes = e << l;
  endfunction

  // The byte enables of one element, before its lane shift.
  function automatic logic [7:0] width_mask(input logic [1:0] l);
    case (l)
      2'd0: width_mask = 8'h01;
      2'd1: width_mask = 8'h03;
      2'd2: width_mask = 8'h0f;
`ifdef BUG_DROPPED_BE
      default: width_mask = 8'h7f;
`else
      default: width_mask = 8'hff;
`endif
    endcase
  endfunction

  // Element k's value: the k-th immediate, or the register its data slot
  // names (the pair R[n], R[n+1] for u64), in the low bytes.
  /* verilator lint_off UNUSEDSIGNAL */  // a legal slot names r0..r63
  logic [7:0]  slot;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [63:0] value, regval;
  /* verilator lint_off UNUSEDSIGNAL */  // the low 64 bits hold element k
  logic [255:0] immval;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [5:0]  hi;         // the register after the slot's: a u64's high half
  assign slot = data[8*k +: 8];
  assign hi = slot[5:0] + 6'd1;
`ifdef BUG_U64_PAIR_SWAP
  assign regval = lg == 2'd3 ? {rf[slot[5:0]], rf[hi]} : {rf[hi], rf[slot[5:0]]};
`else
  assign regval = {rf[hi], rf[slot[5:0]]};
`endif
  assign immval = data >> ({3'd0, k} << ({1'b0, lg} + 3'd3));
  assign value = imm ? immval[63:0] : regval;

  // The element count n0*n1, and whether element k is the last.
  logic [15:0] total;
  logic        last;
`ifdef BUG_COUNT_OFF_BY_ONE
  assign last = ({8'd0, k} + 16'd2 == total) || (total == 16'd1);
`else
  assign last = {8'd0, k} + 16'd1 == total;
`endif

  assign inst_ready = !busy;

  always_ff @(posedge clk) begin
    if (rf_we) rf[rf_waddr] <= rf_wdata;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      busy     <= 1'b0;
      wr_valid <= 1'b0;
      wr_addr  <= 64'd0;
      wr_data  <= 64'd0;
      wr_be    <= 8'd0;
    end else if (!busy) begin
      wr_valid <= 1'b0;
      if (inst_valid) begin
        busy <= 1'b1;
        lg   <= log2_width(inst[8*12 +: 8]);
        imm  <= inst[8*13 +: 8] == 8'd1;
        n0   <= inst[8*14 +: 8];
        total <= {8'd0, inst[8*14 +: 8]} * {8'd0, inst[8*15 +: 8]};
        // The immediate ADDR8 form: the address is bytes 16..24 with bits 63..58 clear.
        addr <= {6'd0, inst[8*16 +: 58]};
        row  <= {6'd0, inst[8*16 +: 58]};
        s0w  <= stride_bytes(inst[8*24 +: 32], log2_width(inst[8*12 +: 8]));
        s1w  <= stride_bytes(inst[8*28 +: 32], log2_width(inst[8*12 +: 8]));
        data <= inst[8*32 +: 256];
        i0   <= 8'd0;
        i1   <= 8'd0;
        k    <= 8'd0;
      end
    end else begin
      wr_valid <= 1'b1;
      wr_addr  <= {addr[63:3], 3'd0};
      wr_be    <= width_mask(lg) << addr[2:0];
      wr_data  <= value << {addr[2:0], 3'd0};
      k        <= k + 8'd1;
      if (last) begin
        busy <= 1'b0;
      end else if (i0 + 8'd1 == n0) begin
        i0   <= 8'd0;
        i1   <= i1 + 8'd1;
        row  <= row + s1w;
        addr <= row + s1w;
      end else begin
        i0   <= i0 + 8'd1;
        addr <= addr + s0w;
      end
    end
  end
endmodule
