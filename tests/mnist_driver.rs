//! The dense-layer host driver on the Verilated chip (in lock step with the model) against a
//! plain integer matrix computation of the same layer.
use npu::cosim::lockstep::run_fixed;
use npu::cosim::tops::mnist_npu::MnistNpu;
use npu::mnist::driver::{read_layer, run_layer, Layer};
use npu::mnist::program::Program;
use rand::{rngs::SmallRng, Rng, SeedableRng};

mod reference;

/// out[j] = ReLU(Eqn. 2 of row j and x): a plain matrix-vector product.
fn reference(layer: &Layer, x: &[i8]) -> Vec<i16> {
    let row = |w: &Vec<i8>, b: i8| reference::relu(reference::eqn2(b, w.iter().copied().zip(x.iter().copied())), !layer.relu);
    layer.weights.iter().zip(&layer.biases).map(|(w, &b)| row(w, b)).collect()
}

fn random_layer(rng: &mut SmallRng, neurons: usize, inputs: usize, relu: bool) -> Layer {
    Layer {
        weights: (0..neurons).map(|_| (0..inputs).map(|_| rng.gen_range(-40..40)).collect()).collect(),
        biases: (0..neurons).map(|_| rng.gen()).collect(),
        relu,
    }
}

#[test]
fn dense_layers_on_the_chip_equal_integer_matrix_arithmetic() {
    let mut rng = SmallRng::seed_from_u64(7);
    // Odd and even neuron counts, N below and above the back-to-back minimum, with and
    // without ReLU; the second layer takes the first one's outputs, narrowed to 8 bits.
    let first = random_layer(&mut rng, 7, 40, true);
    let second = random_layer(&mut rng, 4, 7, false);
    let tiny = random_layer(&mut rng, 3, 2, true);
    let x: Vec<i8> = (0..40).map(|_| rng.gen()).collect();
    let hidden: Vec<i8> = reference(&first, &x).iter().map(|&v| (v >> 4).clamp(-128, 127) as i8).collect();

    let mut p = Program::default();
    let starts = [run_layer(&mut p, &first, &x), run_layer(&mut p, &second, &hidden), run_layer(&mut p, &tiny, &x[..2])];
    let (outs, _) = run_fixed::<MnistNpu>("dense_layers_on_the_chip_equal_integer_matrix_arithmetic", &p.cycles);
    for (k, (layer, input, start)) in [(&first, &x[..], &starts[0]), (&second, &hidden[..], &starts[1]), (&tiny, &x[..2], &starts[2])].into_iter().enumerate() {
        assert_eq!(read_layer(&outs, start, layer.weights.len()), reference(layer, input), "layer {k}");
    }
}
