//! The Ethos-U65 weight-stream encoder and weight reordering (`npu::ethos`) against Arm's Vela
//! (PyPI `ethos-u-vela` 5.2.0, installed on first use into `build/vela-venv`).
//! Spec: `shared/spec/ethos-u65.md` §1. Random tests print their seed; `SEED` and `CYCLES`
//! repeat or lengthen a run.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::encoder::{encode, encode_with_report, EncodeError, EncodeOptions};
use npu::ethos::reorder::{reorder, ReorderParams, Traversal};
use npu::ethos::vela::Vela;
use npu::ethos::weights::Distribution;
use rand::{seq::SliceRandom, Rng};
use std::time::Instant;

fn vela() -> Vela {
    Vela::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn hex(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn values(text: &str) -> Vec<i16> {
    text.split([' ', ',', '\n'])
        .filter(|s| !s.is_empty())
        .map(|v| v.parse().unwrap())
        .collect()
}

/// The five test vectors of spec §1.11: input weights and Vela's encoding.
fn spec_vectors() -> Vec<(&'static str, Vec<i16>, Vec<u8>)> {
    vec![
        ("A", values("0,5,6,0,0,0,7,0"), hex("08 00 60 25 e4 ac 03 90 03 05 00 80 00 00 00 fe")),
        (
            "B",
            values("0,5,6,0,0,0,7,0,8,9,10,0,11,12,13,14,15"),
            hex("50 00 68 a5 e6 b9 c6 96 4a e8 98 fa 83 5c 3c 00  80 b1 b1 f1 ff ff ff ff ff ff ff ff ff ff ff ff"),
        ),
        (
            "C",
            (0..32).map(|i| i % 7 - 3).collect(),
            hex("fe 00 5c 60 f2 0e a6 10 cd 25 a2 b9 44 34 97 88  e6 12 d1 fe ff ff ff ff ff ff ff ff ff ff ff ff"),
        ),
        ("D", (0..16).map(|i| if i % 2 == 0 { 255 } else { -255 }).collect(), hex("7e 00 dc 1f fe df 7f 55 d5 ff ff ff ff ff ff ff")),
        (
            "E",
            values(
                "0 0 -1 2 4 0 0 1 0 0 0 0 0 -1 0 0 0 -1 0 0 0 0 0 -2 0 0 -1 0 0 0 0 0 0 0 0 0 1 0 0 0 -1 0 0 0 0 -1 1 -1 0 0 0 0 0 3 0 0 0 4
                 0 0 0 0 0 0 -3 0 -3 0 0 0 0 0 0 0 3 -1 1 0 2 0 0 0 0 0 -1 0 1 -4 0 -1 0 1 0 0 0 -1",
            ),
            hex("c9 00 44 71 34 82 67 94 a5 18 d1 5a e8 51 af 51  29 38 d6 c5 ec 18 e0 b0 61 08 28 cd 1d 00 80 00  00 00 e0 ff ff ff ff ff ff ff ff ff ff ff ff ff"),
        ),
    ]
}

/// The oracle itself: Vela encodes the spec's vectors to the spec's bytes and decodes them
/// back; a stream Vela's decoder dies on is `None` and does not disturb the next ones.
#[test]
fn vela_reproduces_the_spec_vectors() {
    let vela = vela();
    let vectors = spec_vectors();
    assert_eq!(vectors[4].1.len(), 96);
    let inputs: Vec<Vec<i16>> = vectors.iter().map(|v| v.1.clone()).collect();
    let encoded = vela.encode(&inputs).unwrap();
    for ((name, _, expected), got) in vectors.iter().zip(&encoded) {
        assert_eq!(
            got, expected,
            "vector {name}: Vela's encoding differs from the spec"
        );
    }
    // Vela's own encoding of [] claims a slice of 32768 weights, which its decoder rejects.
    let bad = hex("fe ff 43 00 f0 ff ff ff ff ff ff ff ff ff ff ff");
    let mut streams: Vec<Vec<u8>> = vectors.iter().map(|v| v.2.clone()).collect();
    streams.insert(2, bad.clone());
    streams.push(bad);
    streams.push(encode(&[], &EncodeOptions::default()).unwrap());
    let decoded = vela.decode(&streams).unwrap();
    let mut expected: Vec<Option<Vec<i16>>> = inputs.into_iter().map(Some).collect();
    expected.insert(2, None);
    expected.extend([None, Some(vec![])]);
    assert_eq!(decoded, expected);
}

/// Forced encoder options: each left automatic or forced at random, within the legal ranges.
fn random_options(rng: &mut impl Rng) -> EncodeOptions {
    let slicing = EncodeOptions {
        max_slice_len: rng.gen_bool(0.4).then(|| {
            if rng.gen_bool(0.3) {
                rng.gen_range(1..=8)
            } else {
                rng.gen_range(9..=400)
            }
        }),
        reuse_palette: rng.gen(),
        ..EncodeOptions::default()
    };
    if rng.gen_bool(0.25) {
        return slicing; // the encoder's own choices
    }
    EncodeOptions {
        zero_runs: rng.gen_bool(0.5).then(|| rng.gen()),
        zdiv: rng.gen_bool(0.5).then(|| rng.gen_range(0..=3)),
        wdiv: rng
            .gen_bool(0.4)
            .then(|| *[0, 1, 2, 3, 4, 5, 7].choose(rng).unwrap()),
        wtrunc: rng.gen_bool(0.3).then(|| rng.gen()),
        palette_size: rng.gen_bool(0.4).then(|| {
            if rng.gen_bool(0.15) {
                0
            } else {
                rng.gen_range(2..=32)
            }
        }),
        palette_bits: rng.gen_bool(0.15).then(|| rng.gen_range(2..=9)),
        dirofs: rng.gen_bool(0.15).then(|| rng.gen_range(0..=31)),
        ..slicing
    }
}

/// Mostly short streams, some up to 5000 weights.
fn random_len(rng: &mut impl Rng) -> usize {
    match rng.gen_range(0..10) {
        0..=4 => rng.gen_range(1..=16),
        5..=7 => rng.gen_range(17..=300),
        _ => rng.gen_range(301..=5000),
    }
}

/// The project's encoder, under random forced options, makes streams that Vela decodes to
/// the input. Options that cannot code the data must be refused, and then the encoder's
/// own choices must succeed.
#[test]
fn own_encoder_decodes_in_vela() {
    let run = Run::from_env("own_encoder_decodes_in_vela", 10_000);
    let mut rng = run.rng();
    let mut cover = Coverage::default();
    let mut inputs = Vec::new();
    let mut streams = Vec::new();
    let started = Instant::now();
    let mut cases: Vec<(Vec<i16>, EncodeOptions)> = (0..run.cycles)
        .map(|_| {
            let distribution = *Distribution::ALL.choose(&mut rng).unwrap();
            cover.hit(&format!("{distribution:?}"));
            let len = random_len(&mut rng);
            (distribution.sample(&mut rng, len), random_options(&mut rng))
        })
        .collect();
    // Slices of the largest length (slicelen = 0x7FFF), in both modes.
    cases.push((
        Distribution::Laplacian.sample(&mut rng, 70_000),
        EncodeOptions {
            zero_runs: Some(false),
            ..Default::default()
        },
    ));
    cases.push((
        Distribution::Sparse.sample(&mut rng, 200_000),
        EncodeOptions {
            zero_runs: Some(true),
            reuse_palette: true,
            ..Default::default()
        },
    ));
    // Sections alternating between sparse and dense data: automatic mode switches.
    let mixed: Vec<i16> = (0..6)
        .flat_map(|k| {
            if k % 2 == 0 {
                vec![0; 300]
            } else {
                Distribution::Dense.sample(&mut rng, 300)
            }
        })
        .collect();
    cases.push((
        mixed,
        EncodeOptions {
            max_slice_len: Some(300),
            ..Default::default()
        },
    ));

    // Sparse data with uncompressed indices of every width (three streams each): 1-5 bits
    // from a palette, 6-9 bits from palette_bits.
    for bits in (1..=9).flat_map(|b| [b; 3]) {
        let (palette_size, palette_bits) = if bits <= 5 {
            (1 << bits, None)
        } else {
            (0, Some(bits as u8))
        };
        let set: Vec<i16> = if bits <= 5 {
            (1..=palette_size as i16).map(|v| v * 7 - 100).collect()
        } else {
            vec![1 - (1 << (bits - 1)), (1 << (bits - 1)) - 1, 1, -1, 2]
        };
        let weights = (0..rng.gen_range(300..2000))
            .map(|_| {
                if rng.gen_bool(0.6) {
                    0
                } else {
                    *set.choose(&mut rng).unwrap()
                }
            })
            .collect();
        let options = EncodeOptions {
            zero_runs: Some(true),
            wdiv: Some(7),
            palette_size: Some(palette_size),
            palette_bits,
            ..Default::default()
        };
        cases.push((weights, options));
    }

    for (weights, options) in cases {
        match encode_with_report(&weights, &options) {
            Ok((stream, slices)) => {
                for (k, s) in slices.iter().enumerate() {
                    cover.hit(if s.alternating() {
                        "alternating"
                    } else {
                        "no zero runs"
                    });
                    if s.alternating() {
                        cover.hit(&format!("zdiv {}", s.zdiv));
                    }
                    cover.hit(&format!("wdiv {}", s.wdiv));
                    if s.wdiv == 7 && s.alternating() && s.slice_length > 12 {
                        // The number of indices per chunk depends on their width (§1.6).
                        cover.hit(&format!(
                            "uncompressed {}-bit indices, alternating",
                            s.uncompressed_bits()
                        ));
                    }
                    cover.hit(&format!("palette size {}", s.palette_size));
                    cover.hit(&format!("palette bits {}", s.palette_bits));
                    if s.wtrunc {
                        cover.hit(if s.wdiv == 7 {
                            "wtrunc (ignored, uncompressed)"
                        } else {
                            "wtrunc"
                        });
                    }
                    if s.dirofs > 0 {
                        cover.hit("dirofs > 0");
                    }
                    if s.slice_length == 1 << 15 {
                        cover.hit("slice of 32768");
                    }
                    if k > 0 {
                        cover.hit(if s.newpal {
                            "later slice, newpal=1"
                        } else {
                            "later slice, newpal=0"
                        });
                        if !s.newpal && s.alternating() {
                            cover.hit("later slice, newpal=0, alternating");
                        }
                        if s.alternating() != slices[k - 1].alternating() {
                            cover.hit("mode switch");
                        }
                    }
                }
                cover.hit("encoded");
                inputs.push(weights);
                streams.push(stream);
            }
            Err(EncodeError::Unencodable {
                index,
                value,
                reason,
            }) => {
                assert_eq!(
                    weights[index], value,
                    "the error names the wrong weight: {reason}"
                );
                let automatic = EncodeOptions {
                    max_slice_len: options.max_slice_len,
                    reuse_palette: options.reuse_palette,
                    ..Default::default()
                };
                encode(&weights, &automatic)
                    .unwrap_or_else(|e| panic!("automatic options fail too: {e}"));
                cover.hit("refused a forced option");
            }
            Err(e) => panic!("{e} for {options:?}"),
        }
    }
    let encoding = started.elapsed();
    let decoded = vela().decode(&streams).unwrap();
    for ((weights, stream), decoded) in inputs.iter().zip(&streams).zip(decoded) {
        let decoded = decoded
            .unwrap_or_else(|| panic!("Vela rejects the stream of {weights:?}: {stream:02x?}"));
        assert!(
            decoded == *weights,
            "Vela decodes {stream:02x?}\nto {decoded:?}\nnot {weights:?}"
        );
    }
    eprintln!(
        "{} streams, {} weights: encoded in {encoding:?}, Vela decoded in {:?}\n{cover}",
        streams.len(),
        inputs.iter().map(Vec::len).sum::<usize>(),
        started.elapsed() - encoding
    );
    let mut required: Vec<String> = [
        "alternating",
        "no zero runs",
        "wtrunc",
        "dirofs > 0",
        "slice of 32768",
        "later slice, newpal=0",
        "later slice, newpal=0, alternating",
        "later slice, newpal=1",
        "mode switch",
        "refused a forced option",
    ]
    .map(String::from)
    .into();
    required.extend((0..=3).map(|d| format!("zdiv {d}")));
    required.extend([0, 1, 2, 3, 4, 5, 7].map(|d| format!("wdiv {d}")));
    required.extend(
        [0].into_iter()
            .chain(2..=32)
            .map(|n| format!("palette size {n}")),
    );
    required.extend((2..=9).map(|b| format!("palette bits {b}")));
    required.extend((1..=9).map(|b| format!("uncompressed {b}-bit indices, alternating")));
    required.extend(Distribution::ALL.map(|d| format!("{d:?}")));
    cover.require(&required.iter().map(String::as_str).collect::<Vec<_>>());
}

/// `reorder` gives the sequence that Vela's `reorder_encode` encodes, for random kernels of
/// every traversal, bit depth and dilation.
#[test]
fn reorder_matches_vela() {
    let run = Run::from_env("reorder_matches_vela", 1000);
    let mut rng = run.rng();
    let mut cover = Coverage::default();
    let started = Instant::now();
    let kernels: Vec<(ReorderParams, Vec<i16>)> = (0..run.cycles)
        .map(|_| {
            let kind = *[
                Traversal::Depthwise,
                Traversal::DepthFirst,
                Traversal::PartKernelFirst,
            ]
            .choose(&mut rng)
            .unwrap();
            let side = |rng: &mut rand::rngs::SmallRng| {
                if rng.gen_bool(0.4) {
                    *[1, 3].choose(rng).unwrap()
                } else {
                    rng.gen_range(1..=9)
                }
            };
            let p = ReorderParams {
                ofm_depth: rng.gen_range(1..=40),
                kernel_height: side(&mut rng),
                kernel_width: side(&mut rng),
                ifm_depth: if kind == Traversal::Depthwise {
                    1
                } else {
                    rng.gen_range(1..=48)
                },
                ofm_block_depth: if rng.gen_bool(0.7) {
                    8 * rng.gen_range(1..=16)
                } else {
                    rng.gen_range(8..=128)
                },
                kind,
                ifm_bitdepth: *[8, 16].choose(&mut rng).unwrap(),
                dilation_x: rng.gen_range(1..=2),
                dilation_y: rng.gen_range(1..=2),
            };
            cover.hit(&format!("{kind:?}, {}-bit", p.ifm_bitdepth));
            for (hit, what) in [
                (p.dilation_x == 2, "dilation x 2"),
                (p.dilation_y == 2, "dilation y 2"),
                (
                    p.kernel_height > p.decomp_h() && p.kernel_width > p.decomp_w(),
                    "sub-kernels in x and y",
                ),
                (p.kernel_height > 8 || p.kernel_width > 8, "kernel side > 8"),
                (p.ofm_depth > p.ofm_block_depth, "several OFM blocks"),
                (
                    !p.ofm_block_depth.is_multiple_of(8),
                    "OFM block depth not a multiple of 8",
                ),
                (
                    !p.ofm_depth.is_multiple_of(8),
                    "OFM depth not a multiple of 8",
                ),
                (
                    p.ifm_depth > 32 && !p.ifm_depth.is_multiple_of(8),
                    "IFM depth > 32, not a multiple of 8",
                ),
            ] {
                if hit {
                    cover.hit(what);
                }
            }
            (p, Distribution::Dense.sample(&mut rng, p.weights_len()))
        })
        .collect();
    let vela = vela();
    let decoded = vela
        .decode(&vela.reorder_encode(&kernels).unwrap())
        .unwrap();
    for ((params, weights), decoded) in kernels.iter().zip(decoded) {
        let ours = reorder(params, weights).unwrap();
        let vela_order =
            decoded.unwrap_or_else(|| panic!("Vela cannot decode its own stream for {params:?}"));
        if let Some(i) =
            (0..ours.len().max(vela_order.len())).find(|&i| ours.get(i) != vela_order.get(i))
        {
            panic!(
                "{params:?}: {} weights from reorder, {} from Vela; first difference at {i}",
                ours.len(),
                vela_order.len()
            );
        }
    }
    eprintln!(
        "{} kernels, {} weights: {:?}\n{cover}",
        kernels.len(),
        kernels.iter().map(|k| k.1.len()).sum::<usize>(),
        started.elapsed()
    );
    let mut required = vec![
        "dilation x 2",
        "dilation y 2",
        "sub-kernels in x and y",
        "kernel side > 8",
        "several OFM blocks",
        "OFM block depth not a multiple of 8",
        "OFM depth not a multiple of 8",
        "IFM depth > 32, not a multiple of 8",
    ];
    let kinds = [
        "Depthwise, 8-bit",
        "Depthwise, 16-bit",
        "DepthFirst, 8-bit",
        "DepthFirst, 16-bit",
        "PartKernelFirst, 8-bit",
        "PartKernelFirst, 16-bit",
    ];
    required.extend(kinds);
    cover.require(&required);
}

/// Out-of-range weights, illegal options and forced settings that cannot code the data are
/// errors naming the weight or the option; random options and data never make the encoder
/// panic, and whatever it accepts Vela decodes.
#[test]
fn bad_input_is_rejected() {
    let unencodable =
        |weights: &[i16], options: EncodeOptions, index: usize, words: &str| match encode(
            weights, &options,
        ) {
            Err(e @ EncodeError::Unencodable { index: i, .. }) => {
                assert!(
                    i == index && e.to_string().contains(words),
                    "{options:?}: expected weight {index} and '{words}', got: {e}"
                );
            }
            other => panic!("{options:?} on {weights:?}: expected Unencodable, got {other:?}"),
        };
    let no_palette = EncodeOptions {
        palette_size: Some(0),
        zero_runs: Some(false),
        ..Default::default()
    };
    // Quotient 169 > 31: value 100 is code 200, dirofs 31.
    unencodable(
        &[100],
        EncodeOptions {
            wdiv: Some(0),
            ..no_palette.clone()
        },
        0,
        "quotient 169 > 31",
    );
    // Index 3 (value -1) has quotient 3 > 2 under wtrunc.
    unencodable(
        &[0, 1, -1, 2],
        EncodeOptions {
            wdiv: Some(0),
            wtrunc: Some(true),
            ..no_palette.clone()
        },
        2,
        "with wtrunc",
    );
    // Uncompressed 2-bit indices cannot hold index 20.
    unencodable(
        &[10],
        EncodeOptions {
            wdiv: Some(7),
            palette_bits: Some(2),
            dirofs: Some(0),
            ..no_palette.clone()
        },
        0,
        "uncompressed",
    );
    // A value outside the palette whose code is below dirofs.
    unencodable(
        &[1, 2, 3],
        EncodeOptions {
            dirofs: Some(10),
            ..no_palette.clone()
        },
        0,
        "below dirofs 10",
    );
    // 32 palette entries push -255 (code 511) to index 511 - 31 + 32 = 512.
    let mut crowded: Vec<i16> = (1..=32).chain(1..=32).collect();
    crowded.push(-255);
    unencodable(
        &crowded,
        EncodeOptions {
            palette_size: Some(32),
            zero_runs: Some(false),
            ..Default::default()
        },
        64,
        "not below 512",
    );
    encode(&crowded, &EncodeOptions::default()).expect("automatic choices shrink the palette");
    // A palette entry wider than the forced palette bits.
    unencodable(
        &[100, 100, 1],
        EncodeOptions {
            palette_size: Some(2),
            palette_bits: Some(3),
            ..no_palette.clone()
        },
        0,
        "palette_bits 3",
    );

    assert_eq!(
        encode(&[0, 256], &EncodeOptions::default()),
        Err(EncodeError::OutOfRange {
            index: 1,
            value: 256
        })
    );
    assert_eq!(
        encode(&[-256], &EncodeOptions::default()),
        Err(EncodeError::OutOfRange {
            index: 0,
            value: -256
        })
    );
    for options in [
        EncodeOptions {
            zdiv: Some(4),
            ..Default::default()
        },
        EncodeOptions {
            wdiv: Some(6),
            ..Default::default()
        },
        EncodeOptions {
            palette_size: Some(1),
            ..Default::default()
        },
        EncodeOptions {
            palette_size: Some(33),
            ..Default::default()
        },
        EncodeOptions {
            palette_bits: Some(10),
            ..Default::default()
        },
        EncodeOptions {
            dirofs: Some(32),
            ..Default::default()
        },
        EncodeOptions {
            max_slice_len: Some(0),
            ..Default::default()
        },
        EncodeOptions {
            max_slice_len: Some(32769),
            ..Default::default()
        },
    ] {
        assert!(
            matches!(encode(&[1], &options), Err(EncodeError::BadOption(_))),
            "{options:?} accepted"
        );
    }
    assert!(reorder(
        &ReorderParams {
            ofm_depth: 2,
            kernel_height: 1,
            kernel_width: 1,
            ifm_depth: 1,
            ofm_block_depth: 8,
            kind: Traversal::DepthFirst,
            ifm_bitdepth: 8,
            dilation_x: 1,
            dilation_y: 1
        },
        &[1]
    )
    .is_err());

    // Fuzz: any option values, weights slightly out of range now and then.
    let run = Run::from_env("bad_input_is_rejected", 3000);
    let mut rng = run.rng();
    let mut cover = Coverage::default();
    let (mut inputs, mut streams) = (Vec::new(), Vec::new());
    for _ in 0..run.cycles {
        let len = rng.gen_range(0..=200);
        let mut weights = Distribution::ALL
            .choose(&mut rng)
            .unwrap()
            .sample(&mut rng, len);
        if rng.gen_bool(0.1) && !weights.is_empty() {
            let i = rng.gen_range(0..weights.len());
            weights[i] = *[256, -256, 300, i16::MIN, i16::MAX]
                .choose(&mut rng)
                .unwrap();
        }
        let options = EncodeOptions {
            zero_runs: rng.gen_bool(0.5).then(|| rng.gen()),
            zdiv: rng.gen_bool(0.3).then(|| rng.gen_range(0..=5)),
            wdiv: rng.gen_bool(0.3).then(|| rng.gen_range(0..=8)),
            wtrunc: rng.gen_bool(0.3).then(|| rng.gen()),
            palette_size: rng.gen_bool(0.3).then(|| rng.gen_range(0..=34)),
            palette_bits: rng.gen_bool(0.3).then(|| rng.gen_range(0..=11)),
            dirofs: rng.gen_bool(0.3).then(|| rng.gen_range(0..=33)),
            max_slice_len: rng.gen_bool(0.3).then(|| rng.gen_range(0..=50)),
            reuse_palette: rng.gen(),
        };
        match encode(&weights, &options) {
            Ok(stream) => {
                cover.hit("accepted");
                inputs.push(weights);
                streams.push(stream);
            }
            Err(EncodeError::OutOfRange { index, value }) => {
                assert!(weights[index] == value && !(-255..=255).contains(&value));
                cover.hit("out of range");
            }
            Err(EncodeError::BadOption(_)) => cover.hit("bad option"),
            Err(EncodeError::Unencodable { index, value, .. }) => {
                assert_eq!(weights[index], value);
                cover.hit("unencodable");
            }
        }
    }
    for ((weights, stream), decoded) in inputs
        .iter()
        .zip(&streams)
        .zip(vela().decode(&streams).unwrap())
    {
        assert_eq!(decoded.as_ref(), Some(weights), "stream {stream:02x?}");
    }
    eprintln!("{cover}");
    cover.require(&["accepted", "out of range", "bad option", "unencodable"]);
}

/// One word of a fuzzed weights file, as the generator meant it.
#[derive(Clone, Debug)]
enum Word {
    Weight(i16),
    /// An integer outside -255..255.
    OutOfRange(i64),
    /// Not an integer at all.
    Junk(String),
}

impl Word {
    fn text(&self) -> String {
        match self {
            Self::Weight(w) => w.to_string(),
            Self::OutOfRange(v) => v.to_string(),
            Self::Junk(s) => s.clone(),
        }
    }
}

/// A line of a weights file: words, white space between them (spaces, tabs, several), an
/// optional comment (`#` and anything, junk included), and a line ending (LF or CRLF).
fn fuzz_line() -> impl proptest::strategy::Strategy<Value = (Vec<Word>, Vec<&'static str>, Option<String>, bool)> {
    use proptest::prelude::*;
    let junk = "[^#\\s]{1,6}".prop_filter("not an integer", |s: &String| s.parse::<i64>().is_err()).prop_map(Word::Junk);
    let word = prop_oneof![
        40 => (-255i16..=255).prop_map(Word::Weight),
        1 => prop_oneof![256i64..=i64::MAX, i64::MIN..=-256].prop_map(Word::OutOfRange),
        1 => junk,
    ];
    (
        prop::collection::vec(word, 0..8),
        prop::collection::vec(proptest::sample::select(vec![" ", "  ", "\t", " \t "]), 9),
        proptest::option::of("#[^\\n\\r]{0,12}"),
        any::<bool>(),
    )
}

/// Fuzz target: the weights text file that `npu ethos encode` reads
/// (`npu::ethos::weights::parse_weights`). A file of weights gives exactly them; the first
/// bad word (out of range, or not an integer) is the error, naming its line and the word.
/// Never a panic.
#[test]
fn fuzz_weights_file_parser() {
    use npu::ethos::weights::parse_weights;
    use proptest::{prelude::*, test_runner::TestRunner};
    let run = Run::from_env("fuzz_weights_file_parser", 30_000);
    let seed = run.seed;
    let config = ProptestConfig {
        cases: run.cycles.try_into().unwrap_or(u32::MAX),
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let coverage = std::cell::RefCell::new(Coverage::default());
    TestRunner::new(config)
        .run(&prop::collection::vec(fuzz_line(), 0..12), |lines| {
            let mut text = String::new();
            let mut expected: Result<Vec<i16>, (usize, Word)> = Ok(Vec::new());
            for (n, (words, spaces, comment, crlf)) in lines.iter().enumerate() {
                for (word, space) in words.iter().zip(spaces) {
                    text += space;
                    text += &word.text();
                    match (&mut expected, word) {
                        (Ok(weights), Word::Weight(w)) => weights.push(*w),
                        (Ok(_), bad) => expected = Err((n + 1, bad.clone())),
                        (Err(_), _) => {}
                    }
                }
                if let Some(c) = comment {
                    text += c;
                }
                text += if *crlf { "\r\n" } else { "\n" };
            }
            let mut c = coverage.borrow_mut();
            for (what, hit) in [
                ("comment", lines.iter().any(|l| l.2.is_some())),
                ("CRLF", lines.iter().any(|l| l.3)),
                ("empty line", lines.iter().any(|l| l.0.is_empty())),
                ("tab", text.contains('\t')),
            ] {
                if hit {
                    c.hit(what);
                }
            }
            match (parse_weights(&text), expected) {
                (Ok(got), Ok(want)) => {
                    prop_assert_eq!(got, want);
                    c.hit("weights read");
                }
                (Err((line, message)), Err((want_line, word))) => {
                    prop_assert_eq!(line, want_line, "{}", message);
                    prop_assert!(message.contains(&format!("'{}'", word.text())), "{} does not name the word", message);
                    let (kind, says) = match word {
                        Word::OutOfRange(_) => ("out of range", "outside -255..255"),
                        _ => ("junk", "is not a weight"),
                    };
                    prop_assert!(message.contains(says), "{}", message);
                    let around = message.replace(&word.text(), "");
                    prop_assert!(!around.contains('"') && !around.contains("Some("), "{}: Rust debug text", message);
                    c.hit(kind);
                }
                (got, want) => prop_assert!(false, "parse_weights gave {:?}, expected {:?}", got, want),
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let coverage = coverage.into_inner();
    eprintln!("{coverage}");
    coverage.require(&["weights read", "out of range", "junk", "comment", "CRLF", "empty line", "tab"]);
}
