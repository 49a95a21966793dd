//! One IFM position's 8 channels as the MAC unit's 9-bit operands (Ethos-U65, TRM L5425-5462).
use rust_hdl::prelude::*;

/// Lane `i` of `lanes` (bits `9i+8:9i`) is `data[8i+7:8i] - zero_point`, both int8, exact in
/// 9 bits (-255..=255), for `i < live`; 0 for the lanes at and above `live` (channels beyond
/// the IFM depth, whatever the memory returned there). Without `enable` every lane is 0: the
/// convolution datapath reads the lanes only in a MAC or packed cycle of its stage 2, and the
/// lanes, a function of its IFM ports, ran in Verilator's input region twice a cycle in every
/// phase (docs/ethos.md, "Verilated speed", fourteenth step). Verilog: rust-hdl has no signed
/// part-select or concatenation. The lanes are 8 part-select writes inside `if (enable)`
/// after a default of 0, not `if (enable) lanes = {...}; else lanes = 0;`: Verilator turned
/// that into one conditional expression and computed the 72-bit concatenation into a
/// temporary before it, whatever `enable` said, in the input region twice a cycle (eighteenth
/// step).
#[derive(LogicBlock, Default)]
pub struct IfmLanes {
    pub enable: Signal<In, Bit>,
    pub data: Signal<In, Bits<64>>,
    pub zero_point: Signal<In, Bits<8>>,
    /// Live lanes, 0..=8.
    pub live: Signal<In, Bits<4>>,
    pub lanes: Signal<Out, Bits<72>>,
}

impl Logic for IfmLanes {
    fn update(&mut self) {
        let signed = |v: u64| i64::from(v as u8 as i8);
        let (data, zero_point) = (self.data.val().to_u64(), signed(self.zero_point.val().to_u64()));
        let mut lanes: Bits<72> = Bits::default();
        for i in 0..8 {
            if self.enable.val() && (i as u64) < self.live.val().to_u64() {
                let v = (signed(data >> (8 * i)) - zero_point) as u64 & 0x1FF;
                lanes = lanes | (bit_cast::<72, 9>(v.into()) << (9 * i as u64));
            }
        }
        self.lanes.next = lanes;
    }
    fn connect(&mut self) {
        self.lanes.connect();
    }
    fn hdl(&self) -> Verilog {
        let lane = |i: usize| {
            format!(
                "        lanes[{hi}:{lo}] = (live > 4'd{i}) ? {{data[{top}], data[{top}:{bottom}]}} - {{zero_point[7], zero_point}} : 9'd0;\n",
                hi = 9 * i + 8,
                lo = 9 * i,
                top = 8 * i + 7,
                bottom = 8 * i,
            )
        };
        let lanes: String = (0..8).map(lane).collect();
        Verilog::Custom(format!("always @(*) begin\n    lanes = 72'd0;\n    if (enable) begin\n{lanes}    end\nend"))
    }
}
