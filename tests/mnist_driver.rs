//! The host driver on random small networks: on every output path the Verilated chip's pins
//! equal the model's in every cycle, and every neuron equals the plain integer matrix
//! arithmetic of `Network::reference`.
use npu::cosim::tops::mnist_npu::MnistNpu;
use npu::cosim::{Dut, DutOptions};
use npu::mnist::driver::{Host, OutputPath};
use npu::mnist::demo::compare;
use npu::mnist::network::{Layer, Network};
use npu::model::mnist::chip::Chip;
use npu::model::Block;
use rand::{rngs::SmallRng, Rng, SeedableRng};

fn random_layer(
    rng: &mut SmallRng,
    inputs: usize,
    neurons: usize,
    relu: bool,
    shift: u32,
) -> Layer {
    Layer {
        weights: (0..neurons)
            .map(|_| (0..inputs).map(|_| rng.gen_range(-40..40)).collect())
            .collect(),
        biases: (0..neurons).map(|_| rng.gen()).collect(),
        relu,
        shift,
    }
}

/// Runs `digits` through `network` on the chip and the model on `path`; returns the
/// predictions after checking every pin against the model and every neuron against the
/// integer reference.
fn run(network: &Network, digits: &[Vec<u8>], path: OutputPath) -> Vec<usize> {
    let mut dut = MnistNpu::open(&DutOptions::from_env(3));
    let mut chip = Host::new(|pins| dut.step(pins));
    let mut model_chip = Chip::default();
    let mut model = Host::new(|pins| model_chip.step(pins));
    let mut predictions = Vec::new();
    for (k, pixels) in digits.iter().enumerate() {
        let on_chip = chip.classify(network, pixels, path);
        let on_model = model.classify(network, pixels, path);
        compare(network, pixels, &on_chip, &on_model).unwrap_or_else(|m| panic!("input {k}, path {path:?}: {m}"));
        predictions.push(on_chip.prediction);
    }
    predictions
}

#[test]
fn random_networks_on_every_output_path_equal_integer_matrix_arithmetic() {
    let mut rng = SmallRng::seed_from_u64(7);
    // An odd hidden layer (a padding neuron), N above the back-to-back minimum and N below it
    // (frames one at a time).
    let wide = Network {
        input_shift: 1,
        layers: vec![
            random_layer(&mut rng, 40, 7, true, 4),
            random_layer(&mut rng, 7, 4, false, 0),
        ],
    };
    let narrow = Network {
        input_shift: 0,
        layers: vec![
            random_layer(&mut rng, 2, 3, true, 2),
            random_layer(&mut rng, 3, 2, false, 0),
        ],
    };
    for network in [&wide, &narrow] {
        let inputs = network.layers[0].weights[0].len();
        let digits: Vec<Vec<u8>> = (0..6)
            .map(|_| (0..inputs).map(|_| rng.gen()).collect())
            .collect();
        for path in OutputPath::ALL {
            run(network, &digits, path);
        }
    }
}

/// Equal scores: the comparator keeps the first (docs/mnist.md, "Comparator numbering and
/// ties"), and so does the reference's argmax; both say class 0 when all ten are equal and
/// class 3 when 3 and 7 share the largest score.
#[test]
fn comparator_ties_go_to_the_first_neuron() {
    let mut rng = SmallRng::seed_from_u64(8);
    let hidden = random_layer(&mut rng, 16, 4, true, 3);
    let same = random_layer(&mut rng, 4, 1, false, 0);
    let all_equal = Layer {
        weights: vec![same.weights[0].clone(); 10],
        biases: vec![same.biases[0]; 10],
        ..same.clone()
    };
    let mut two_best = Layer {
        weights: vec![vec![0; 4]; 10],
        biases: vec![-5; 10],
        ..same
    };
    (two_best.biases[3], two_best.biases[7]) = (9, 9);
    let digits: Vec<Vec<u8>> = (0..3)
        .map(|_| (0..16).map(|_| rng.gen()).collect())
        .collect();
    for (last, expected) in [(all_equal, 0), (two_best, 3)] {
        let network = Network {
            input_shift: 2,
            layers: vec![hidden.clone(), last],
        };
        assert_eq!(
            run(&network, &digits, OutputPath::Comparator),
            vec![expected; digits.len()]
        );
    }
}
