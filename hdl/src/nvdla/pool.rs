//! PDP's arithmetic on one 8-lane atom (seeds/001 "Planar Data Processor"; the exact rules are
//! those of NVIDIA's C model, docs/nvdla.md "PDP"): the pooling step that folds one input
//! atom (or only a padding term) into the 8 running lane values, the average's two
//! reciprocal multiplies with their rounding, and the input atom's memory address.
//! Combinational; the arithmetic is Verilog for its exact signed widths, as in
//! [`super::convert::Convert`]. Model: `npu_model::nvdla::pool`.
//!
//! - A lane's running value is 16 bits, signed. `start` begins a window from the method's
//!   identity (average 0, max -128, min 127), so a window with no input element gives those.
//! - Max and min take the input lanes only (`take`); padding does not enter them.
//! - Average adds the input lanes (when `take`) and the padding term: `pad_h` adds
//!   PAD_VALUE_<nh>X (a line's `nh` padded columns), `pad_v` adds PAD_VALUE_<nv>X (one term of
//!   the kernel width's worth for the `nv` padded lines); PAD_VALUE_<n>X is sign-extended from
//!   its bit 7 (n = 1), 8 (n = 2), 9 (n = 3, 4) or 10 (n = 5 to 7) as the C model does; a
//!   count of 0 or more than 7 adds 0.
//! - `pooled`: max and min give the low byte; average gives
//!   `round(round(sum * RECIP_KERNEL_WIDTH / 2^16) * RECIP_KERNEL_HEIGHT / 2^16)`, each
//!   rounding half away from zero, and its low byte.
//! - `address = plane + y * line + 8 * x`, wrapping at 2^64.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Pool {
    /// The 8 running lane values, 16 bits each, lane k in bits 16k+15..16k.
    pub lanes: Signal<In, Bits<128>>,
    pub atom: Signal<In, Bits<64>>,
    /// D_OPERATION_MODE_CFG.POOLING_METHOD: 0 average, 1 max, 2 min.
    pub method: Signal<In, Bits<2>>,
    pub start: Signal<In, Bit>,
    pub take: Signal<In, Bit>,
    /// The window's first column and line, biased by 8 (column -pad .. is 8 - pad ..), and
    /// the element's place in it.
    pub wx: Signal<In, Bits<18>>,
    pub wy: Signal<In, Bits<18>>,
    pub kx: Signal<In, Bits<4>>,
    pub ky: Signal<In, Bits<4>>,
    /// The registers' fields (each the value minus 1, as the RDL stores them).
    pub width: Signal<In, Bits<13>>,
    pub height: Signal<In, Bits<13>>,
    pub kernel_width: Signal<In, Bits<4>>,
    pub kernel_height: Signal<In, Bits<4>>,
    pub stride_width: Signal<In, Bits<4>>,
    pub stride_height: Signal<In, Bits<4>>,
    pub pad_left: Signal<In, Bits<3>>,
    pub pad_top: Signal<In, Bits<3>>,
    pub pad_value1: Signal<In, Bits<11>>,
    pub pad_value2: Signal<In, Bits<11>>,
    pub pad_value3: Signal<In, Bits<11>>,
    pub pad_value4: Signal<In, Bits<11>>,
    pub pad_value5: Signal<In, Bits<11>>,
    pub pad_value6: Signal<In, Bits<11>>,
    pub pad_value7: Signal<In, Bits<11>>,
    pub recip_width: Signal<In, Bits<17>>,
    pub recip_height: Signal<In, Bits<17>>,
    pub plane: Signal<In, Bits<64>>,
    pub line: Signal<In, Bits<64>>,
    pub lanes_next: Signal<Out, Bits<128>>,
    pub pooled: Signal<Out, Bits<64>>,
    /// The element (wx + kx, wy + ky) is in the input cube: it is read.
    pub in_cube: Signal<Out, Bit>,
    /// Its address: `plane + y * line + 8 * x`, wrapping at 2^64.
    pub address: Signal<Out, Bits<64>>,
    /// The next window's first column (wx + stride) and line, and a line's first window's.
    pub wx_step: Signal<Out, Bits<18>>,
    pub wy_step: Signal<Out, Bits<18>>,
    pub wx_first: Signal<Out, Bits<18>>,
    pub wy_first: Signal<Out, Bits<18>>,
}

/// The sign bit of PAD_VALUE_<n>X, n = 1..=7 (the C model's sign extension).
pub const PAD_SIGN_BIT: [u32; 7] = [7, 8, 9, 9, 10, 10, 10];

impl Logic for Pool {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::pool`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.lanes_next.connect();
        self.pooled.connect();
        self.in_cube.connect();
        self.address.connect();
        self.wx_step.connect();
        self.wy_step.connect();
        self.wx_first.connect();
        self.wy_first.connect();
    }
    fn hdl(&self) -> Verilog {
        // The window geometry: columns and lines biased by 8, so the padding (at most 7) is
        // never negative; the padded columns of the window (nh) and lines (nv).
        let mut body = String::new();
        for (c, w, k, size, stride, pad, n) in [("x", "wx", "kx", "width", "stride_width", "pad_left", "nh"), ("y", "wy", "ky", "height", "stride_height", "pad_top", "nv")] {
            body += &format!(
                "wire [17:0] i{c} = {w} + {{14'h0, {k}}};\n\
                 wire [17:0] {c}_last = {{5'h0, {size}}} + 18'd8;\n\
                 wire {c}_ok = i{c} >= 18'd8 && i{c} <= {c}_last;\n\
                 wire [17:0] {c}_end = {w} + {{14'h0, kernel_{size}}};\n\
                 wire [17:0] {c}_pads = ({w} < 18'd8 ? 18'd8 - {w} : 18'd0) + ({c}_end > {c}_last ? {c}_end - {c}_last : 18'd0);\n\
                 wire [3:0] {n} = {c}_pads > 18'd8 ? 4'd8 : {c}_pads[3:0];\n\
                 always @(*) {w}_step = {w} + {{14'h0, {stride}}} + 18'd1;\n\
                 always @(*) {w}_first = 18'd8 - {{15'h0, {pad}}};\n"
            );
        }
        body += "wire pad_h = kx == kernel_width && y_ok;\nwire pad_v = ky == kernel_height;\n\
                 always @(*) in_cube = x_ok && y_ok;\n\
                 wire [17:0] x_in = ix - 18'd8;\nwire [17:0] y_in = iy - 18'd8;\n";
        // The padding value of a count: PAD_VALUE_<n>X sign-extended to 16 bits.
        let mut select = String::new();
        for (k, sign) in PAD_SIGN_BIT.iter().enumerate() {
            let n = k + 1;
            body += &format!("wire signed [15:0] pv{n} = {{{{{}{{pad_value{n}[{sign}]}}}}, pad_value{n}[{sign}:0]}};\n", 15 - sign);
            select += &format!("        4'd{n}: {{which}} = pv{n};\n");
        }
        for which in ["h", "v"] {
            body += &format!(
                "reg signed [15:0] pad_{which}_value;\nalways @(*) begin\n    case (n{which})\n{}        default: pad_{which}_value = 16'sd0;\n    endcase\nend\n",
                select.replace("{which}", &format!("pad_{which}_value"))
            );
        }
        body += "wire signed [15:0] pad_add = (pad_h ? pad_h_value : 16'sd0) + (pad_v ? pad_v_value : 16'sd0);\n";
        body += "wire signed [39:0] recip_w = $signed({23'h0, recip_width});\n\
                 wire signed [59:0] recip_h = $signed({43'h0, recip_height});\n";
        // The C model's sign extension leaves a padding value's bits above its sign unused.
        let unused: Vec<String> = PAD_SIGN_BIT.iter().enumerate().filter(|&(_, &s)| s < 10).map(|(k, s)| format!("pad_value{}[10:{}]", k + 1, s + 1)).collect();
        body += &format!("wire unused_pad_bits = ^{{{}}};\n", unused.join(", "));
        let (mut next, mut pooled) = (Vec::new(), Vec::new());
        for k in 0..8 {
            let (hi, lo) = (8 * k + 7, 8 * k);
            let (ahi, alo) = (16 * k + 15, 16 * k);
            body += &format!(
                "wire signed [15:0] x{k} = {{{{8{{atom[{hi}]}}}}, atom[{hi}:{lo}]}};\n\
                 wire signed [15:0] acc{k} = lanes[{ahi}:{alo}];\n\
                 wire signed [15:0] base{k} = !start ? acc{k} : method == 2'd1 ? -16'sd128 : method == 2'd2 ? 16'sd127 : 16'sd0;\n\
                 wire signed [15:0] max{k} = take && x{k} > base{k} ? x{k} : base{k};\n\
                 wire signed [15:0] min{k} = take && x{k} < base{k} ? x{k} : base{k};\n\
                 wire signed [15:0] sum{k} = base{k} + (take ? x{k} : 16'sd0) + pad_add;\n\
                 wire [15:0] next{k} = method == 2'd1 ? max{k} : method == 2'd2 ? min{k} : method == 2'd0 ? sum{k} : base{k};\n\
                 wire signed [39:0] wide{k} = {{{{24{{acc{k}[15]}}}}, acc{k}}} * recip_w;\n\
                 wire signed [39:0] mag_w{k} = wide{k} < 40'sd0 ? -wide{k} : wide{k};\n\
                 wire signed [39:0] rw{k} = wide{k} < 40'sd0 ? -((mag_w{k} + 40'sd32768) >>> 16) : (mag_w{k} + 40'sd32768) >>> 16;\n\
                 wire signed [59:0] tall{k} = {{{{20{{rw{k}[39]}}}}, rw{k}}} * recip_h;\n\
                 wire signed [59:0] mag_h{k} = tall{k} < 60'sd0 ? -tall{k} : tall{k};\n\
                 wire signed [59:0] rh{k} = tall{k} < 60'sd0 ? -((mag_h{k} + 60'sd32768) >>> 16) : (mag_h{k} + 60'sd32768) >>> 16;\n\
                 wire unused_rh{k} = ^rh{k}[59:8];\n\
                 wire [7:0] out{k} = method == 2'd0 ? rh{k}[7:0] : acc{k}[7:0];\n"
            );
            next.push(format!("next{k}"));
            pooled.push(format!("out{k}"));
        }
        next.reverse();
        pooled.reverse();
        Verilog::Custom(format!(
            "{body}always @(*) lanes_next = {{{}}};\nalways @(*) pooled = {{{}}};\n\
             always @(*) address = plane + {{46'h0, y_in}} * line + {{43'h0, x_in, 3'b000}};",
            next.join(", "),
            pooled.join(", ")
        ))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Pool::default, "nvdla_pool");
}
