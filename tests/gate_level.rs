//! The MNIST NPU chip after iCE40 synthesis (yosys `synth_ice40` netlist of LUTs, flip-flops,
//! carries and block RAM, simulated with yosys's cell models) against the chip model on the
//! MNIST demo's first held-out digits: synthesis does not change the chip's behaviour.
use npu::cosim::tops::mnist_npu_gates::MnistNpuGates;
use npu::cosim::{Dut, DutOptions};
use npu::mnist::data;
use npu::mnist::demo::{compare, held_out_digits, Options};
use npu::mnist::driver::{Host, OutputPath};
use npu::mnist::network::Network;
use npu::model::mnist::chip::Chip;
use npu::model::Block;
use std::path::Path;

const DIGITS: usize = 48;

#[test]
fn synthesized_netlist_classifies_the_first_digits_like_the_model() {
    let options = Options::in_project(Path::new(env!("CARGO_MANIFEST_DIR")));
    let network = Network::load(&options.weights).unwrap();
    let digits = held_out_digits(&data::load(&data::fetch(&options.data_dir).unwrap()).unwrap());
    let mut netlist = MnistNpuGates::open(&DutOptions::from_env(5));
    let mut gates = Host::new(|pins| netlist.step(pins));
    let mut model_chip = Chip::default();
    let mut model = Host::new(|pins| model_chip.step(pins));
    // Every output path, in turn, so the FIFO's block RAM and the comparator are exercised.
    for (k, digit) in digits[..DIGITS].iter().enumerate() {
        let path = OutputPath::ALL[k % 3];
        let (on_gates, on_model) = (gates.classify(&network, &digit.pixels, path), model.classify(&network, &digit.pixels, path));
        compare(&network, &digit.pixels, &on_gates, &on_model).unwrap_or_else(|m| panic!("digit {k}, path {path:?} (\"Verilated chip\" is the netlist): {m}"));
    }
}
