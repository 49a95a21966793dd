//! The whole MNIST NPU at its pins (seeds/002 §3, §4 Table 1, Figures 1, 3 and 4).
#![allow(non_snake_case)]
use super::{Comparator, Downcounter, Fifo, FsmAcc, FsmOut, InputBuffer, Mac, OutputMux, PisoDeb, PisoOut, Relu, Ssfr};
use crate::primitives::{Concat, Pack8};
use rust_hdl::prelude::*;

/// The chip: every block of Figure 3, the FSM of Figure 4 and the SSFR, wired to the pins of
/// Table 1 under their datasheet names. Power pins are left out; CLKEXT is the only clock and
/// RST_GLO a synchronous, active-high reset of every register.
///
/// Wiring decisions (docs/mnist.md; the model `npu_model::mnist::chip` follows the same):
/// - SEL_CON high: the eight core controls come from FSM_ACC and FSM_OUT; low: from DC[7:0]
///   (Table 8), MAC2 and ReLU2 are disabled (enables forced low, they hold), WR_EN is forced
///   low and the comparator counts ReLU1 only.
/// - EXT_EN_PISO_DEB freezes the input buffer, MACs, ReLUs, PISO_OUT, comparator, FIFO,
///   downcounter and FSMs (their enables, clears and state changes are blocked); SSFR and
///   PISO_DEB keep working (§11).
/// - The MAC biases are the DA and DC pins: FSM_ACC clears the input buffer in BIAS.
/// - PISO_DEB samples SSFR, CON_SIG (the controls the core sees, WR_EN, CTR_OUT, OUT_DONE,
///   Table 9), MAC2, MAC1 and the input buffer's registers for DD, DC, DB, DA.
#[derive(LogicBlock, Default)]
pub struct Chip {
    pub CLKEXT: Signal<In, Clock>,
    pub RST_GLO: Signal<In, Bit>,
    pub DA: Signal<In, Bits<8>>,
    pub DB: Signal<In, Bits<8>>,
    pub DC: Signal<In, Bits<8>>,
    pub DD: Signal<In, Bits<8>>,
    pub EXT_EN_PISO_DEB: Signal<In, Bit>,
    pub EXT_CLR_PISO_DEB: Signal<In, Bit>,
    pub EXT_SHIFT_DEB: Signal<In, Bit>,
    pub EN_CONFIG: Signal<In, Bit>,
    pub RD_EN: Signal<In, Bit>,
    pub EN_FSM: Signal<In, Bit>,
    pub SEL_CON: Signal<In, Bit>,
    pub D_OUT: Signal<Out, Bits<8>>,
    pub FULL: Signal<Out, Bit>,
    pub EMPTY: Signal<Out, Bit>,
    ssfr: Ssfr,
    counter: Downcounter,
    counter_start: Concat<8, 8, 16>,
    fsm_acc: FsmAcc,
    fsm_out: FsmOut,
    input_buffer: InputBuffer,
    mac1: Mac,
    mac2: Mac,
    relu1: Relu,
    relu2: Relu,
    piso_out: PisoOut,
    fifo: Fifo,
    comparator: Comparator,
    piso_deb: PisoDeb,
    output_mux: OutputMux,
    // CON_SIG[15:8]: the eight core controls after the SEL_CON mux.
    en_buf_in: Signal<Local, Bit>,
    clr_buf_in: Signal<Local, Bit>,
    en_mac: Signal<Local, Bit>,
    rst_mac: Signal<Local, Bit>,
    en_relu: Signal<Local, Bit>,
    shift_out: Signal<Local, Bit>,
    en_piso_out: Signal<Local, Bit>,
    clr_piso_out: Signal<Local, Bit>,
    wr_en: Signal<Local, Bit>,
    run: Signal<Local, Bit>,
    ssfr_value: Signal<Local, Bits<16>>,
    // PISO_DEB's twelve bytes, in the order they leave.
    con_sig_high: Pack8,
    con_sig_low: Pack8,
    con_sig: Concat<8, 8, 16>,
    ssfr_con_sig: Concat<16, 16, 32>,
    macs: Concat<16, 16, 32>,
    buffer_dc: Concat<8, 8, 16>,
    buffer_ba: Concat<8, 8, 16>,
    buffers: Concat<16, 16, 32>,
    upper_samples: Concat<32, 32, 64>,
    samples: Concat<64, 32, 96>,
}

impl Logic for Chip {
    #[hdl_gen]
    fn update(&mut self) {
        self.ssfr.clock.next = self.CLKEXT.val();
        self.counter.clock.next = self.CLKEXT.val();
        self.fsm_acc.clock.next = self.CLKEXT.val();
        self.fsm_out.clock.next = self.CLKEXT.val();
        self.input_buffer.clock.next = self.CLKEXT.val();
        self.mac1.clock.next = self.CLKEXT.val();
        self.mac2.clock.next = self.CLKEXT.val();
        self.relu1.clock.next = self.CLKEXT.val();
        self.relu2.clock.next = self.CLKEXT.val();
        self.piso_out.clock.next = self.CLKEXT.val();
        self.fifo.clock.next = self.CLKEXT.val();
        self.comparator.clock.next = self.CLKEXT.val();
        self.piso_deb.clock.next = self.CLKEXT.val();
        self.ssfr.reset.next = self.RST_GLO.val();
        self.counter.reset.next = self.RST_GLO.val();
        self.fsm_acc.reset.next = self.RST_GLO.val();
        self.fsm_out.reset.next = self.RST_GLO.val();
        self.input_buffer.reset.next = self.RST_GLO.val();
        self.mac1.reset.next = self.RST_GLO.val();
        self.mac2.reset.next = self.RST_GLO.val();
        self.relu1.reset.next = self.RST_GLO.val();
        self.relu2.reset.next = self.RST_GLO.val();
        self.piso_out.reset.next = self.RST_GLO.val();
        self.fifo.reset.next = self.RST_GLO.val();
        self.comparator.reset.next = self.RST_GLO.val();
        self.piso_deb.reset.next = self.RST_GLO.val();
        self.run.next = !self.EXT_EN_PISO_DEB.val();

        // SSFR (§7, Table 5).
        self.ssfr.en_config.next = self.EN_CONFIG.val();
        self.ssfr.da.next = self.DA.val();
        self.ssfr.db.next = self.DB.val();
        self.ssfr_value.next = self.ssfr.value.val();

        // FSM (§8): downcounter from CTR[15:0] = {DB, DD}, FSM_ACC, FSM_OUT.
        self.counter_start.high.next = self.DB.val();
        self.counter_start.low.next = self.DD.val();
        self.counter.start.next = self.counter_start.joined.val();
        self.counter.freeze.next = self.EXT_EN_PISO_DEB.val();
        self.counter.load.next = self.fsm_acc.load_ctr.val();
        self.counter.count_down.next = self.fsm_acc.count_down.val();
        self.fsm_acc.freeze.next = self.EXT_EN_PISO_DEB.val();
        self.fsm_acc.en_fsm.next = self.EN_FSM.val();
        self.fsm_acc.ctr_out.next = self.counter.ctr_out.val();
        self.fsm_acc.out_done.next = self.fsm_out.out_done.val();
        self.fsm_out.freeze.next = self.EXT_EN_PISO_DEB.val();
        self.fsm_out.en_relu.next = self.fsm_acc.en_relu.val();

        // Auto or manual control (§10, Table 8).
        if self.SEL_CON.val() {
            self.en_buf_in.next = self.fsm_acc.en_buf_in.val();
            self.clr_buf_in.next = self.fsm_acc.clr_buf_in.val();
            self.en_mac.next = self.fsm_acc.en_mac.val();
            self.rst_mac.next = self.fsm_acc.rst_mac.val();
            self.en_relu.next = self.fsm_acc.en_relu.val();
            self.shift_out.next = self.fsm_out.shift_out.val();
            self.en_piso_out.next = self.fsm_out.en_piso_out.val();
            self.clr_piso_out.next = self.fsm_acc.clr_piso_out.val();
        } else {
            self.en_buf_in.next = self.DC.val().get_bit(7);
            self.clr_buf_in.next = self.DC.val().get_bit(6);
            self.en_mac.next = self.DC.val().get_bit(5);
            self.rst_mac.next = self.DC.val().get_bit(4);
            self.en_relu.next = self.DC.val().get_bit(3);
            self.shift_out.next = self.DC.val().get_bit(2);
            self.en_piso_out.next = self.DC.val().get_bit(1);
            self.clr_piso_out.next = self.DC.val().get_bit(0);
        }
        self.wr_en.next = self.fsm_out.wr_en.val() & self.SEL_CON.val();

        // Datapath (§6.1 to §6.4); every enable and clear stops while PISO_DEB runs (§11).
        self.input_buffer.en_buf_in.next = self.en_buf_in.val() & self.run.val();
        self.input_buffer.clr_buf_in.next = self.clr_buf_in.val() & self.run.val();
        self.input_buffer.da.next = self.DA.val();
        self.input_buffer.db.next = self.DB.val();
        self.input_buffer.dc.next = self.DC.val();
        self.input_buffer.dd.next = self.DD.val();
        self.mac1.data_a.next = signed_cast(self.input_buffer.buf_a.val());
        self.mac1.data_b.next = signed_cast(self.input_buffer.buf_b.val());
        self.mac1.bias.next = signed_cast(self.DA.val());
        self.mac1.en_mac.next = self.en_mac.val() & self.run.val();
        self.mac1.rst_mac.next = self.rst_mac.val();
        self.mac2.data_a.next = signed_cast(self.input_buffer.buf_c.val());
        self.mac2.data_b.next = signed_cast(self.input_buffer.buf_d.val());
        self.mac2.bias.next = signed_cast(self.DC.val());
        self.mac2.en_mac.next = self.en_mac.val() & self.run.val() & self.SEL_CON.val();
        self.mac2.rst_mac.next = self.rst_mac.val();
        self.relu1.en_relu.next = self.en_relu.val() & self.run.val();
        self.relu1.bypass.next = self.ssfr_value.val().get_bit(12);
        self.relu1.x.next = self.mac1.acc.val();
        self.relu2.en_relu.next = self.en_relu.val() & self.run.val() & self.SEL_CON.val();
        self.relu2.bypass.next = self.ssfr_value.val().get_bit(11);
        self.relu2.x.next = self.mac2.acc.val();
        self.piso_out.en_piso_out.next = self.en_piso_out.val() & self.run.val();
        self.piso_out.clr_piso_out.next = self.clr_piso_out.val() & self.run.val();
        self.piso_out.shift_out.next = self.shift_out.val();
        self.piso_out.out1.next = self.relu1.y.val();
        self.piso_out.out2.next = self.relu2.y.val();

        // FIFO (§6.6) and comparator (§6.7).
        self.fifo.en_fifo.next = self.ssfr_value.val().get_bit(8) & self.run.val();
        self.fifo.rst_fifo.next = self.ssfr_value.val().get_bit(7) & self.run.val();
        self.fifo.wr_en.next = self.wr_en.val();
        self.fifo.rd_en.next = self.RD_EN.val();
        self.fifo.wr_data.next = self.piso_out.d_out.val();
        self.comparator.freeze.next = self.EXT_EN_PISO_DEB.val();
        self.comparator.trig.next = self.en_relu.val();
        self.comparator.en_comp.next = self.ssfr_value.val().get_bit(10);
        self.comparator.rst_comp.next = self.ssfr_value.val().get_bit(9);
        self.comparator.single.next = !self.SEL_CON.val();
        self.comparator.relu1.next = self.relu1.y.val();
        self.comparator.relu2.next = self.relu2.y.val();

        // PISO_DEB (§6.8, §11, Table 9).
        self.con_sig_high.b7.next = self.en_buf_in.val();
        self.con_sig_high.b6.next = self.clr_buf_in.val();
        self.con_sig_high.b5.next = self.en_mac.val();
        self.con_sig_high.b4.next = self.rst_mac.val();
        self.con_sig_high.b3.next = self.en_relu.val();
        self.con_sig_high.b2.next = self.shift_out.val();
        self.con_sig_high.b1.next = self.en_piso_out.val();
        self.con_sig_high.b0.next = self.clr_piso_out.val();
        self.con_sig_low.b7.next = self.wr_en.val();
        self.con_sig_low.b6.next = self.counter.ctr_out.val();
        self.con_sig_low.b5.next = self.fsm_out.out_done.val();
        self.con_sig_low.b4.next = false;
        self.con_sig_low.b3.next = false;
        self.con_sig_low.b2.next = false;
        self.con_sig_low.b1.next = false;
        self.con_sig_low.b0.next = false;
        self.con_sig.high.next = self.con_sig_high.word.val();
        self.con_sig.low.next = self.con_sig_low.word.val();
        self.ssfr_con_sig.high.next = self.ssfr_value.val();
        self.ssfr_con_sig.low.next = self.con_sig.joined.val();
        self.macs.high.next = unsigned_cast(self.mac2.acc.val());
        self.macs.low.next = unsigned_cast(self.mac1.acc.val());
        self.buffer_dc.high.next = self.input_buffer.buf_d.val();
        self.buffer_dc.low.next = self.input_buffer.buf_c.val();
        self.buffer_ba.high.next = self.input_buffer.buf_b.val();
        self.buffer_ba.low.next = self.input_buffer.buf_a.val();
        self.buffers.high.next = self.buffer_dc.joined.val();
        self.buffers.low.next = self.buffer_ba.joined.val();
        self.upper_samples.high.next = self.ssfr_con_sig.joined.val();
        self.upper_samples.low.next = self.macs.joined.val();
        self.samples.high.next = self.upper_samples.joined.val();
        self.samples.low.next = self.buffers.joined.val();
        self.piso_deb.en_piso_deb.next = self.EXT_EN_PISO_DEB.val();
        self.piso_deb.clr_piso_deb.next = self.EXT_CLR_PISO_DEB.val();
        self.piso_deb.shift_deb.next = self.EXT_SHIFT_DEB.val();
        self.piso_deb.samples.next = self.samples.joined.val();

        // Output MUX (§6.5, Table 3) and pins.
        self.output_mux.sel_out.next = self.ssfr_value.val().get_bits::<3>(13);
        self.output_mux.fifo.next = self.fifo.rd_data.val();
        self.output_mux.piso_out.next = self.piso_out.d_out.val();
        self.output_mux.index.next = self.comparator.index.val();
        self.output_mux.largest.next = self.comparator.largest.val();
        self.output_mux.piso_deb.next = self.piso_deb.d_out.val();
        self.D_OUT.next = self.output_mux.d_out.val();
        self.FULL.next = self.fifo.full.val();
        self.EMPTY.next = self.fifo.empty.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Chip::default, "chip");
}
