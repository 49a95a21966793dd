//! The kernel registers' scalar copies ([`super::kernel_registers::KernelRegisters`]): the 42
//! registers of module `scalar` (latch_table.rs), each only the bits the units read, cleared
//! by `reset` and written one at a time by LATCH (`write`, register `id`, the low bits of
//! `value`).
//!
//! One clocked process for all of them, which holds them unless LATCH writes one: as 42
//! `Reg`s, each register's hold (`d = q`) and its one-hot select were logic that the Verilated
//! model ran every cycle, in every unit that has kernel registers (the kernel unit and the
//! convolution unit), though LATCH writes them in a few cycles of a kernel's start (docs/ethos.md,
//! "Verilated speed", "NPU top" step). Same registers, same values in every cycle. No model of
//! its own: `model/src/ethos/kernel_registers.rs` models the block that holds it.
use super::latch_table::scalar;
use rust_hdl::prelude::*;

/// Declares the block from one list of `(id, port, width)`: the ports, rust-hdl's simulation
/// and the Verilog are written from the same list, so they cannot disagree.
macro_rules! scalar_registers {
    ($(($id:expr, $name:ident, $width:literal)),* $(,)?) => {
        /// Ports: `write`, `id` and `value` from LATCH's sequencer; one output per register.
        #[derive(LogicBlock, Default)]
        pub struct ScalarRegisters {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, Bit>,
            pub write: Signal<In, Bit>,
            pub id: Signal<In, Bits<6>>,
            pub value: Signal<In, Bits<40>>,
            $(pub $name: Signal<Out, Bits<$width>>,)*
        }

        impl Logic for ScalarRegisters {
            fn update(&mut self) {
                if self.clock.pos_edge() {
                    if self.reset.val() {
                        $(self.$name.next = Bits::default();)*
                    } else if self.write.val() {
                        let id = self.id.val().index();
                        $(if id == $id {
                            self.$name.next = self.value.val().get_bits::<$width>(0);
                        })*
                    }
                }
            }
            fn connect(&mut self) {
                $(self.$name.connect();)*
            }
            fn hdl(&self) -> Verilog {
                let mut text = String::from("always @(posedge clock) begin\n    if (reset) begin\n");
                $(text += &format!("        {} <= {}'d0;\n", stringify!($name), $width);)*
                text += "    end else if (write) begin\n        case (id)\n";
                $(text += &format!("            6'd{}: {} <= value[{}:0];\n", $id, stringify!($name), $width - 1);)*
                text += "            default: ;\n        endcase\n    end\nend";
                Verilog::Custom(text)
            }
        }
    };
}

scalar_registers!(
    (scalar::IFM_REGION, ifm_region, 16),
    (scalar::IFM2_REGION, ifm2_region, 16),
    (scalar::OFM_REGION, ofm_region, 16),
    (scalar::IFM_ZERO_POINT, ifm_zero_point, 16),
    (scalar::IFM2_ZERO_POINT, ifm2_zero_point, 16),
    (scalar::OFM_ZERO_POINT, ofm_zero_point, 16),
    (scalar::IFM_PRECISION, ifm_precision, 10),
    (scalar::IFM2_PRECISION, ifm2_precision, 8),
    (scalar::OFM_PRECISION, ofm_precision, 16),
    (scalar::IFM2_BROADCAST, ifm2_broadcast, 8),
    (scalar::IFM2_SCALAR, ifm2_scalar, 16),
    (scalar::OPA_SCALE, opa_scale, 38),
    (scalar::OPB_SCALE, opb_scale, 16),
    (scalar::OFM_SCALE, ofm_scale, 38),
    (scalar::ACTIVATION, activation, 5),
    (scalar::ACTIVATION_MIN, activation_min, 16),
    (scalar::ACTIVATION_MAX, activation_max, 16),
    (scalar::ACC_FORMAT, acc_format, 16),
    (scalar::IFM_UPSCALE, ifm_upscale, 16),
    (scalar::OFM_HEIGHT_M1, ofm_height_m1, 16),
    (scalar::OFM_WIDTH_M1, ofm_width_m1, 16),
    (scalar::OFM_DEPTH_M1, ofm_depth_m1, 16),
    (scalar::KERNEL_HEIGHT_M1, kernel_height_m1, 16),
    (scalar::KERNEL_WIDTH_M1, kernel_width_m1, 16),
    (scalar::KERNEL_STRIDE, kernel_stride, 16),
    (scalar::IFM_PAD_TOP, ifm_pad_top, 16),
    (scalar::IFM_PAD_LEFT, ifm_pad_left, 16),
    (scalar::IFM_PAD_BOTTOM, ifm_pad_bottom, 16),
    (scalar::IFM_PAD_RIGHT, ifm_pad_right, 16),
    (scalar::IFM_DEPTH_M1, ifm_depth_m1, 16),
    (scalar::OFM_BLK_DEPTH_M1, ofm_blk_depth_m1, 16),
    (scalar::WEIGHT_REGION, weight_region, 16),
    (scalar::SCALE_REGION, scale_region, 16),
    (scalar::WEIGHT_BASE, weight_base, 40),
    (scalar::WEIGHT_LENGTH, weight_length, 40),
    (scalar::SCALE_BASE, scale_base, 40),
    (scalar::SCALE_LENGTH, scale_length, 40),
    (scalar::IFM_STRIDE_C, ifm_stride_c, 40),
    (scalar::WEIGHT_BASEP_LOW, weight_basep_low, 32),
    (scalar::WEIGHT_BASEP_HIGH, weight_basep_high, 8),
    (scalar::SCALE_BASEP_LOW, scale_basep_low, 32),
    (scalar::SCALE_BASEP_HIGH, scale_basep_high, 8),
);

#[cfg(test)]
#[test]
fn synthesizes() {
    assert_eq!(scalar::COUNT, 42, "one port per scalar register");
    crate::synth_check::assert_synthesizes(ScalarRegisters::default, "scalar_registers");
}
