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

/// Layers with N = 1, 2 and 3 inputs and several frames (findings of issue 16: back to back,
/// the last frame's EN_ReLU can meet FSM_OUT in S5 and lock FSM_ACC in WAIT): the driver
/// paces such frames one at a time, so on every output path FSM_OUT never ignores an
/// EN_ReLU, FSM_ACC never waits longer than one finishing sequence, it is IDLE after every
/// digit, and every neuron equals the integer reference.
#[test]
fn frames_with_n_below_4_never_lose_an_output_or_lock_up() {
    use npu::cosim::lockstep::{Coverage, Run};
    use npu::model::mnist::fsm_acc::State;
    let run = Run::from_env("frames_with_n_below_4_never_lose_an_output_or_lock_up", 0);
    let mut rng = run.rng();
    let mut coverage = Coverage::default();
    for n in 1..=3 {
        for hidden in [2, 3, 7, 10] {
            let network = Network { input_shift: 2, layers: vec![random_layer(&mut rng, n, hidden, true, 2), random_layer(&mut rng, hidden, 10, false, 0)] };
            for path in OutputPath::ALL {
                let (mut chip, mut states, mut ignored) = (Chip::default(), Vec::new(), 0);
                let mut host = Host::new(|pins| {
                    let out = chip.step(pins);
                    states.push(chip.fsm_acc_state());
                    ignored += chip.events().iter().filter(|&&e| e == "EN_ReLU while busy ignored").count();
                    out
                });
                for _ in 0..3 {
                    let pixels: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
                    let inference = host.classify(&network, &pixels, path);
                    compare(&network, &pixels, &inference, &inference).unwrap_or_else(|m| panic!("N = {n}, {hidden} hidden, {path:?}: {m}"));
                }
                drop(host);
                assert_eq!(ignored, 0, "N = {n}, {hidden} hidden, {path:?}: an EN_ReLU was ignored");
                let longest_wait = states.chunk_by(|a, b| a == b).filter(|r| r[0] == State::Wait).map(<[State]>::len).max().unwrap_or(0);
                // WAIT lasts from LAST + 1 to FSM_OUT's S5: at most five cycles.
                assert!(longest_wait <= 5, "N = {n}, {hidden} hidden, {path:?}: FSM_ACC in WAIT for {longest_wait} cycles");
                assert_eq!(states.last(), Some(&State::Idle));
                coverage.hit(&format!("N = {n}, several frames"));
            }
        }
    }
    coverage.require(&["N = 1, several frames", "N = 2, several frames", "N = 3, several frames"]);
}

/// A layer wider than 64 neurons writes more than the FIFO's 128 bytes: on the FIFO path
/// the driver reads them out every 32 frames, so every neuron arrives (Verilated chip and
/// model in lock step, integer reference), for hidden layers of 65 to 128 neurons.
#[test]
fn fifo_path_reads_layers_wider_than_the_fifo_in_time() {
    let run_seed = npu::cosim::lockstep::Run::from_env("fifo_path_reads_layers_wider_than_the_fifo_in_time", 0);
    let mut rng = run_seed.rng();
    for hidden in [65, 66, 97, 128] {
        let network = Network { input_shift: 1, layers: vec![random_layer(&mut rng, 12, hidden, true, 5), random_layer(&mut rng, hidden, 10, false, 0)] };
        let digits: Vec<Vec<u8>> = (0..2).map(|_| (0..12).map(|_| rng.gen()).collect()).collect();
        run(&network, &digits, OutputPath::Fifo);
    }
}

/// The same through the demo and a weight file: `npu mnist --output fifo` with a 784-100-10
/// network classifies its digits without a mismatch.
#[test]
fn demo_with_a_100_neuron_hidden_layer_on_the_fifo_path() {
    use npu::mnist::demo::{self, Options};
    use std::io::Write;
    let mut rng = SmallRng::seed_from_u64(16);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let network = Network { input_shift: 4, layers: vec![random_layer(&mut rng, 784, 100, true, 9), random_layer(&mut rng, 100, 10, false, 0)] };
    let weights = dir.join("wide_hidden_layer.txt");
    std::fs::write(&weights, network.to_text("784-100-10, random")).unwrap();
    // Ten digits: every fifth is held out, so the run classifies two.
    let lines: Vec<String> = (0..10).map(|k| (0..784).map(|_| rng.gen::<u8>().to_string()).chain([(k % 10).to_string()]).collect::<Vec<_>>().join(",")).collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(lines.join("\n").as_bytes()).unwrap();
    let data = dir.join("ten_digits.csv.gz");
    std::fs::write(&data, gz.finish().unwrap()).unwrap();
    let options = Options { weights, data: Some(data), path: OutputPath::Fifo, ..Options::in_project(&dir) };
    let report = demo::run(&options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((report.images, report.shape.clone()), (2, vec![100, 10]));
}
