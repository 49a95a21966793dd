//! Ethos-U65 weight decoder (TRM §4.7; `shared/spec/ethos-u65.md` §1): the Verilated RTL in
//! lock step with its model (every output, every cycle) on the spec's vectors, on thousands of
//! streams from Vela's encoder and from the project's own, with random back-pressure on both
//! sides, and on malformed streams; the decoded weights checked against the encoders' inputs.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::driver::{lockstep, Outcome, StreamResult};
use npu::ethos::encoder::{encode, BitWriter, EncodeOptions};
use npu::model::ethos::weight_decoder::DecodeError;
use npu::ethos::vela::Vela;
use npu::ethos::weights::Distribution;
use rand::rngs::SmallRng;
use rand::{seq::SliceRandom, Rng};
use std::path::Path;

fn vela() -> Vela {
    Vela::in_project(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"))
}

/// Both sides of the lock step, with and without stalls; panics on a mismatch. Stalls may
/// not change the outcome, nor the weights of a good stream; a fault drops what was not yet
/// delivered, so there the weights of one run are a prefix of the other's.
fn run_both(run: &Run, streams: &[Vec<u8>]) -> (Vec<StreamResult>, Coverage) {
    let (plain, mut coverage) = lockstep(run, streams, false).unwrap_or_else(|m| panic!("{m}"));
    let (stalled, stalled_coverage) = lockstep(run, streams, true).unwrap_or_else(|m| panic!("{m}"));
    for (i, (a, b)) in plain.iter().zip(&stalled).enumerate() {
        let (short, long) = if a.weights.len() <= b.weights.len() { (a, b) } else { (b, a) };
        let same = match a.outcome {
            Outcome::Done => a.weights == b.weights,
            _ => long.weights.starts_with(&short.weights),
        };
        assert!(a.outcome == b.outcome && same, "{}: stream {i} decodes differently under back-pressure", run.test);
    }
    coverage.merge(&stalled_coverage);
    (plain, coverage)
}

/// Asserts every stream decoded to exactly its expected weights.
fn assert_decoded(test: &str, results: &[StreamResult], expected: &[Vec<i16>]) {
    for (i, (r, w)) in results.iter().zip(expected).enumerate() {
        assert_eq!(r.outcome, Outcome::Done, "{test}: stream {i}");
        if r.weights != *w {
            let at = r.weights.iter().zip(w).position(|(a, b)| a != b).unwrap_or(r.weights.len().min(w.len()));
            panic!("{test}: stream {i} ({} weights) differs first at weight {at}: decoded {:?}, expected {:?}", w.len(), r.weights.get(at), w.get(at));
        }
    }
}

/// `distribution`'s weights, 1..=5000 of them, most vectors short.
fn sample(rng: &mut SmallRng, distribution: Distribution) -> Vec<i16> {
    let most = *[10, 100, 1000, 5000].choose(rng).unwrap();
    let len = rng.gen_range(1..=most);
    distribution.sample(rng, len)
}

const MODES: &[&str] = &[
    "zdiv 0", "zdiv 1", "zdiv 2", "zdiv 3", "zdiv 6 (no zero runs)",
    "wdiv 0", "wdiv 1", "wdiv 2", "wdiv 3", "wdiv 4", "wdiv 5", "wdiv 7 (uncompressed)",
    "wtrunc 0", "wtrunc 1", "newpal 0", "newpal 1", "palette size 0", "palette size 32",
    "chunk with weights and zero runs", "chunk with weights only (balance < 0)", "chunk with weights",
    "chunk with zero runs only (balance >= 8)", "last chunk (remainders only)",
    "weight quotient across chunks", "zero run across chunks", "palette entries",
    "weight remainders", "zero-run remainders", "unary part with remainders",
    "unary part alone, its remainders not buffered or no room", "end marker", "end marker at a byte boundary (or 0xFF padding)",
    "beat of 4 plain weights", "beat of plain weights", "beat of several pairs", "beat of one pair",
    "beat of zeros", "beat of leading zeros", "leading zero run empty", "output stalled", "input paused",
    "output refused", "done",
];

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect()
}

/// The five vectors of spec §1.11 (Vela's bytes, checked there against Vela's decoder).
fn spec_vectors() -> Vec<(&'static str, Vec<u8>, Vec<i16>)> {
    let e_weights = "0 0 -1 2 4 0 0 1 0 0 0 0 0 -1 0 0 0 -1 0 0 0 0 0 -2 0 0 -1 0 0 0 0 0 0 0 0 0 1 0 0 0 -1 0 0 0 0 -1 1 -1 0 0 0 0 0 3 0 0 0 4 \
                     0 0 0 0 0 0 -3 0 -3 0 0 0 0 0 0 0 3 -1 1 0 2 0 0 0 0 0 -1 0 1 -4 0 -1 0 1 0 0 0 -1";
    vec![
        ("A", hex("08 00 60 25 e4 ac 03 90 03 05 00 80 00 00 00 fe"), vec![0, 5, 6, 0, 0, 0, 7, 0]),
        (
            "B",
            hex("50 00 68 a5 e6 b9 c6 96 4a e8 98 fa 83 5c 3c 00  80 b1 b1 f1 ff ff ff ff ff ff ff ff ff ff ff ff"),
            vec![0, 5, 6, 0, 0, 0, 7, 0, 8, 9, 10, 0, 11, 12, 13, 14, 15],
        ),
        (
            "C",
            hex("fe 00 5c 60 f2 0e a6 10 cd 25 a2 b9 44 34 97 88  e6 12 d1 fe ff ff ff ff ff ff ff ff ff ff ff ff"),
            (0..32).map(|i| (i % 7) - 3).collect(),
        ),
        ("D", hex("7e 00 dc 1f fe df 7f 55 d5 ff ff ff ff ff ff ff"), (0..16).map(|i| if i % 2 == 0 { 255 } else { -255 }).collect()),
        (
            "E",
            hex("c9 00 44 71 34 82 67 94 a5 18 d1 5a e8 51 af 51  29 38 d6 c5 ec 18 e0 b0 61 08 28 cd 1d 00 80 00  00 00 e0 ff ff ff ff ff ff ff ff ff ff ff ff ff"),
            e_weights.split_whitespace().map(|w| w.parse().unwrap()).collect(),
        ),
    ]
}

#[test]
fn spec_vectors_decode_exactly() {
    let (names, streams, expected): (Vec<_>, Vec<_>, Vec<_>) = spec_vectors().into_iter().fold((vec![], vec![], vec![]), |mut acc, (n, s, w)| {
        acc.0.push(n);
        acc.1.push(s);
        acc.2.push(w);
        acc
    });
    let (results, _) = run_both(&Run::fixed("spec_vectors_decode_exactly", 0), &streams);
    assert_decoded("spec vectors", &results, &expected);
    for (name, r) in names.iter().zip(&results) {
        eprintln!("vector {name}: {} weights in {} cycles", r.weights.len(), r.cycles);
    }
}

/// Zeros and weights of any magnitude (1-255) half and half, 200-1000 of them: zero runs
/// short and weights long in unary, so the zero runs' quotients run ahead of the weights'
/// and a chunk carries weights only (balance < 0). Of the distributions only a rare Sparse
/// vector (small runs, large scale) does that: about 1 stream in 1000, so a run of 3000
/// missed it with a chance of about 2 in 100; 46 in 100 of these streams show it.
fn weights_behind_their_zero_runs(rng: &mut SmallRng) -> Vec<i16> {
    (0..rng.gen_range(200..=1000))
        .map(|_| if rng.gen_bool(0.5) { 0 } else { rng.gen_range(1..=255) * if rng.gen() { 1 } else { -1 } })
        .collect()
}

/// Random vectors of every distribution, encoded by Vela, decode to themselves; and 24
/// vectors drawn so that a chunk carries weights only (a chance of 0.54^24, 4e-7, to miss
/// it).
#[test]
fn vela_streams_decode_exactly() {
    let run = Run::from_env("vela_streams_decode_exactly", 3000);
    let mut rng = run.rng();
    let mut weights: Vec<Vec<i16>> = (0..run.cycles)
        .map(|i| sample(&mut rng, Distribution::ALL[i as usize % Distribution::ALL.len()]))
        .collect();
    weights.extend((0..24).map(|_| weights_behind_their_zero_runs(&mut rng)));
    let streams = vela().encode(&weights).unwrap_or_else(|e| panic!("{e}"));
    let (results, coverage) = run_both(&run, &streams);
    assert_decoded(&run.test, &results, &weights);
    let (w, c): (usize, u64) = results.iter().fold((0, 0), |(w, c), r| (w + r.weights.len(), c + r.cycles));
    eprintln!("{} streams, {w} weights in {c} cycles ({:.2} per cycle); coverage:\n{coverage}", results.len(), w as f64 / c as f64);
    coverage.require(MODES);
}

/// The project's encoder, forced into every mode (every palette size and width, every
/// divisor, several slices, palettes kept), decodes to its input.
#[test]
fn own_encoder_streams_decode_exactly() {
    let run = Run::from_env("own_encoder_streams_decode_exactly", 1500);
    let mut rng = run.rng();
    let (mut streams, mut weights) = (Vec::new(), Vec::new());
    while (streams.len() as u64) < run.cycles {
        let distribution = *Distribution::ALL.choose(&mut rng).unwrap();
        let w = sample(&mut rng, distribution);
        let options = EncodeOptions {
            zero_runs: rng.gen_bool(0.5).then(|| rng.gen_bool(0.5)),
            zdiv: rng.gen_bool(0.6).then(|| rng.gen_range(0..=3)),
            wdiv: rng.gen_bool(0.6).then(|| *[0, 1, 2, 3, 4, 5, 7].choose(&mut rng).unwrap()),
            wtrunc: rng.gen_bool(0.3).then(|| rng.gen_bool(0.5)),
            palette_size: rng.gen_bool(0.6).then(|| if rng.gen_bool(0.2) { 0 } else { rng.gen_range(2..=32) }),
            palette_bits: None,
            dirofs: None,
            max_slice_len: rng.gen_bool(0.4).then(|| rng.gen_range(1..300)),
            reuse_palette: rng.gen_bool(0.5),
        };
        // A forced choice may not fit the data: that is the encoder's error, not a stream.
        if let Ok(stream) = encode(&w, &options) {
            streams.push(stream);
            weights.push(w);
        }
    }
    let (results, coverage) = run_both(&run, &streams);
    assert_decoded(&run.test, &results, &weights);
    let mut required: Vec<String> = MODES.iter().map(|m| m.to_string()).collect();
    required.extend((2..=32).map(|n| format!("palette size {n}")));
    required.extend((2..=9).map(|n| format!("palbits {n}")));
    coverage.require(&required.iter().map(String::as_str).collect::<Vec<_>>());
}

/// Vela's decoder accepts several end-marker-separated sub-streams in one stream (spec
/// §1.10); so does this decoder. The second must bring its own palette.
#[test]
fn sub_streams_after_an_end_marker_decode() {
    let run = Run::from_env("sub_streams_after_an_end_marker_decode", 200);
    let mut rng = run.rng();
    let parts: Vec<Vec<i16>> = (0..2 * run.cycles).map(|_| sample(&mut rng, Distribution::Laplacian)).collect();
    let encoded = vela().encode(&parts).unwrap();
    let streams: Vec<Vec<u8>> = encoded.chunks(2).map(|p| p.concat()).collect();
    let weights: Vec<Vec<i16>> = parts.chunks(2).map(|p| p.concat()).collect();
    let (results, _) = run_both(&run, &streams);
    assert_decoded(&run.test, &results, &weights);
}

/// A slice header (§1.2); `palette` is (dirofs, palsize field, palbits field) for newpal=1.
fn header(w: &mut BitWriter, zdiv: u32, slicelen: u32, wdiv: u32, wtrunc: u32, palette: Option<(u32, u32, u32)>) {
    for (value, bits) in [(zdiv, 3), (slicelen, 15), (wdiv, 3), (wtrunc, 1), (u32::from(palette.is_some()), 1)] {
        w.put(value, bits);
    }
    if let Some((dirofs, palsize, palbits)) = palette {
        w.put(dirofs, 5);
        w.put(palsize, 5);
        w.put(palbits, 3);
    }
}

fn ended(mut w: BitWriter) -> Vec<u8> {
    w.end_stream();
    w.into_bytes()
}

/// One stream per fault, built bit by bit, and the fault each must raise.
fn faulty_streams() -> Vec<(Vec<u8>, DecodeError)> {
    let mut cases = Vec::new();
    let mut w = BitWriter::default();
    header(&mut w, 4, 0, 0, 0, Some((0, 0, 0)));
    cases.push((ended(w), DecodeError::ReservedZdiv));

    let mut w = BitWriter::default();
    header(&mut w, 6, 0, 6, 0, Some((0, 0, 0)));
    cases.push((ended(w), DecodeError::ReservedWdiv));

    let mut w = BitWriter::default();
    header(&mut w, 6, 0, 0, 0, None);
    cases.push((ended(w), DecodeError::NoPalette));

    // One weight whose unary code never ends: 2 per position, past 31 in the second chunk.
    let mut w = BitWriter::default();
    header(&mut w, 6, 0, 0, 0, Some((0, 0, 7)));
    for _ in 0..4 {
        w.put(0xFFF, 12);
    }
    cases.push((ended(w), DecodeError::Quotient));

    // Quotient 16 with wdiv 5: index 512.
    let mut w = BitWriter::default();
    header(&mut w, 6, 0, 5, 0, Some((0, 0, 7)));
    w.put(0x0FF, 12);
    w.put(0xFF, 8);
    w.put(0, 5);
    cases.push((ended(w), DecodeError::Index));

    // Uncompressed 9-bit index 511 in direct mode with offset 31: |value| 271.
    let mut w = BitWriter::default();
    header(&mut w, 6, 0, 7, 0, Some((31, 0, 7)));
    w.put(511, 9);
    cases.push((ended(w), DecodeError::Value));

    // A good one-weight slice, then an end marker whose second alignment bit is 0.
    let mut w = BitWriter::default();
    header(&mut w, 6, 0, 7, 0, Some((0, 0, 5)));
    w.put(2, 7);
    assert!(w.bit_len() % 8 < 4, "room for 2 alignment bits");
    w.put(7, 3);
    w.put(1, 1);
    w.put(0, 1);
    cases.push((ended(w), DecodeError::Padding));

    // Alternating mode, a zero run of more than 65535 (zdiv 0: one unary 1 per zero).
    let mut w = BitWriter::default();
    header(&mut w, 0, 100, 0, 1, Some((0, 0, 7)));
    w.put(0, 12);
    for _ in 0..65536 / 12 + 2 {
        w.put(0xFFF, 12);
    }
    cases.push((ended(w), DecodeError::ZeroRun));

    // Exactly 128 bits: one slice of 23 uncompressed 4-bit weights, no end marker.
    let mut w = BitWriter::default();
    header(&mut w, 6, 22, 7, 0, Some((0, 0, 2)));
    for i in 0..23 {
        w.put(i % 16, 4);
    }
    assert_eq!(w.bit_len(), 128);
    cases.push((w.into_bytes(), DecodeError::MissingEnd));

    // A good stream with one word too many, and one cut inside its slice.
    let good = encode(&(0..300).map(|i| (i % 50) as i16 - 25).collect::<Vec<_>>(), &EncodeOptions::default()).unwrap();
    // An end marker and 3 bytes of padding: one word, not four.
    cases.push((vec![0xFF; 4], DecodeError::Length));
    cases.push((good[..good.len() / 32 * 16].to_vec(), DecodeError::Truncated));
    // An end marker and 16 bytes of padding (15 are allowed).
    cases.push((vec![0xFF; 32], DecodeError::LongPadding));
    cases
}

/// Padding after an end marker is limited to 15 bytes (what Vela's 16-byte alignment needs):
/// an end marker with 15 bytes of padding decodes, with 16 it is refused, and a stream of
/// 20 MB of 0xFF (113 s in Verilator before the limit) is refused within its first 17 bytes,
/// on the Verilated decoder and the model.
#[test]
fn long_padding_is_refused_at_once() {
    assert_eq!(decode_both(&[0xFF; 16]), (Vec::new(), Outcome::Done));
    let good = encode(&[1, -2, 3], &EncodeOptions::default()).unwrap();
    assert_eq!(decode_both(&[good.as_slice(), &[0xFF; 16]].concat()), (vec![1, -2, 3], Outcome::Error(DecodeError::LongPadding)));
    let huge = vec![0xFF; 20 << 20];
    let mut model = npu::model::ethos::weight_decoder::WeightDecoder::default();
    let tally = npu::ethos::driver::decode_each(&huge, |i| npu::model::Block::step(&mut model, i), |_| {});
    assert_eq!(tally.outcome, Outcome::Error(DecodeError::LongPadding));
    assert!(tally.cycles < 20, "{} cycles", tally.cycles);
    assert_eq!(decode_both(&huge), (Vec::new(), Outcome::Error(DecodeError::LongPadding)));
}

/// Every fault of [`DecodeError`] is raised by the stream made for it, in lock step, and
/// the decoder stops (error held, nothing more out) until its reset.
#[test]
fn every_fault_is_reported() {
    let cases = faulty_streams();
    let streams: Vec<Vec<u8>> = cases.iter().map(|c| c.0.clone()).collect();
    let (results, coverage) = run_both(&Run::fixed("every_fault_is_reported", 0), &streams);
    for ((_, fault), r) in cases.iter().zip(&results) {
        assert_eq!(r.outcome, Outcome::Error(*fault), "{fault:?}: {}", fault.message());
    }
    let seen: Vec<DecodeError> = cases.iter().map(|c| c.1).collect();
    assert!(DecodeError::ALL.iter().all(|e| seen.contains(e)), "a fault without a test");
    coverage.require(&["error reset"]);
}

/// Runs `stream` through `decode_each` (the path of `npu ethos decode`) on the Verilated
/// decoder and on the model: both must agree; returns the weights and outcome.
fn decode_both(stream: &[u8]) -> (Vec<i16>, Outcome) {
    use npu::cosim::{tops::weight_decoder::WeightDecoder as Verilated, Dut, DutOptions};
    use npu::ethos::driver::decode_each;
    use npu::model::ethos::weight_decoder::WeightDecoder;
    use npu::model::Block;
    let (mut rtl, mut model) = (Vec::new(), Vec::new());
    let mut dut = Verilated::open(&DutOptions::default());
    let r = decode_each(stream, |i| dut.step(i), |w| rtl.push(w));
    let mut m = WeightDecoder::default();
    let d = decode_each(stream, |i| m.step(i), |w| model.push(w));
    assert_eq!((&rtl, r), (&model, d), "decode on the Verilated decoder and the model");
    assert_eq!(r.weights, rtl.len() as u64);
    (rtl, r.outcome)
}

/// A stream whose length is not a multiple of 4 bytes: only its whole words reach the
/// decoder (no weight from bytes that are not in the file), and the outcome is the length
/// fault, unless the whole words hold a fault of their own first. An empty stream is a
/// missing end marker at once, with no weight and no cycle. RTL and model, through
/// `decode_each` and in lock step with stalls.
#[test]
fn partial_words_and_empty_streams_give_only_their_weights() {
    let run = Run::from_env("partial_words_and_empty_streams_give_only_their_weights", 200);
    let mut rng = run.rng();
    let length = Outcome::Error(DecodeError::Length);
    // Directed: 23 uncompressed 4-bit weights fill exactly 128 bits. Cut to 13 bytes, a
    // zero-padded last word would complete the slice with 8 zeros that are not in the file;
    // the 3 whole words hold the header (36 bits) and 15 weights, of which the decoder
    // delivers the groups of 4 remainders it can read whole (a chunk's 12, not 13-15).
    let mut w = BitWriter::default();
    header(&mut w, 6, 22, 7, 0, Some((0, 0, 2)));
    let indices: Vec<u32> = (0..23).map(|i| i % 15 + 1).collect();
    for &i in &indices {
        w.put(i, 4);
    }
    let full = w.into_bytes();
    // Direct mode, dirofs 0: the index is the sign-magnitude code (seeds/000 §4.7, digest §1.3).
    let value = |i: u32| if i & 1 == 1 { -((i >> 1) as i16) } else { (i >> 1) as i16 };
    let in_file: Vec<i16> = indices[..15].iter().map(|&i| value(i)).collect();
    let (weights, outcome) = decode_both(&full[..13]);
    assert_eq!(outcome, length);
    assert!(weights.len() >= 12 && in_file.starts_with(&weights), "{} weights", weights.len());
    assert_eq!(decode_both(&[]), (Vec::new(), Outcome::Error(DecodeError::MissingEnd)));

    let mut cases: Vec<(Vec<u8>, Vec<i16>, &str)> = vec![(Vec::new(), Vec::new(), "empty")];
    let mut coverage = Coverage::default();
    while (cases.len() as u64) < run.cycles {
        let distribution = *Distribution::ALL.choose(&mut rng).unwrap();
        let original = sample(&mut rng, distribution);
        let good = encode(&original, &EncodeOptions::default()).unwrap();
        let (stream, what) = match rng.gen_range(0..3) {
            0 => {
                let extra: Vec<u8> = (0..rng.gen_range(1..=3)).map(|_| rng.gen()).collect();
                ([good.as_slice(), &extra].concat(), "trailing bytes after a good stream")
            }
            1 => (good[..rng.gen_range(1..good.len())].to_vec(), "good stream cut at any byte"),
            _ => ((0..rng.gen_range(1..=3)).map(|_| rng.gen()).collect(), "1 to 3 bytes"),
        };
        cases.push((stream, original, what));
    }
    let streams: Vec<Vec<u8>> = cases.iter().map(|c| c.0.clone()).collect();
    let (results, _) = run_both(&run, &streams);
    for (i, ((stream, original, what), r)) in cases.iter().zip(&results).enumerate() {
        let partial = stream.len() % 4 != 0;
        if i % 10 == 0 {
            assert_eq!(decode_both(stream), (r.weights.clone(), r.outcome), "stream {i}: decode_each and lock step differ");
        }
        match *what {
            "empty" => assert_eq!((r.outcome, r.cycles, r.weights.len()), (Outcome::Error(DecodeError::MissingEnd), 0, 0)),
            "1 to 3 bytes" => assert_eq!((r.outcome, r.cycles, r.weights.len()), (length, 0, 0)),
            "trailing bytes after a good stream" => {
                assert_eq!(r.outcome, length, "stream {i}");
                assert_eq!(&r.weights, original, "stream {i}: the whole words hold the good stream");
            }
            // Cut at a word boundary inside the padding: all the weights.
            _ if !partial && r.outcome == Outcome::Done => assert_eq!(&r.weights, original, "stream {i}"),
            _ => {
                assert!(matches!(r.outcome, Outcome::Error(_)), "stream {i} ({what}): {}", r.outcome);
                assert!(original.starts_with(&r.weights), "stream {i} ({what}): weights not in the stream");
                if partial {
                    assert_eq!(r.outcome, length, "stream {i}");
                }
            }
        }
        coverage.hit(&format!("{what}: {}", if partial { "partial word" } else { "whole words" }));
    }
    eprintln!("{coverage}");
    coverage.require(&[
        "empty: whole words",
        "trailing bytes after a good stream: partial word",
        "good stream cut at any byte: partial word",
        "good stream cut at any byte: whole words",
        "1 to 3 bytes: partial word",
    ]);
}

/// The kinds of damage done to good streams.
#[derive(Clone, Copy, Debug)]
enum Damage {
    /// Cut after a random number of whole words.
    Cut,
    /// 1 to 8 random bits flipped.
    Flips,
    /// One 16-byte block replaced by random bytes.
    Garbage,
    /// Random bytes only, 16 to 256 of them.
    Noise,
}

fn damage(rng: &mut SmallRng, good: &[u8], kind: Damage) -> Vec<u8> {
    let mut s = good.to_vec();
    match kind {
        Damage::Cut => s.truncate(4 * rng.gen_range(1..good.len() / 4)),
        Damage::Flips => {
            for _ in 0..rng.gen_range(1..=8) {
                let bit = rng.gen_range(0..8 * s.len());
                s[bit / 8] ^= 1 << (bit % 8);
            }
        }
        Damage::Garbage => {
            let at = 16 * rng.gen_range(0..s.len() / 16);
            rng.fill(&mut s[at..at + 16]);
        }
        Damage::Noise => {
            s = vec![0; 16 * rng.gen_range(1..=16)];
            rng.fill(&mut s[..]);
        }
    }
    s
}

/// Thousands of damaged streams through RTL and model in lock step: the decoder never hangs
/// (every stream ends in `done` or `error` within its cycle limit), a cut stream gives a
/// prefix of its weights and a fault (or, cut in its padding, all of them), and where the
/// decoder accepts a damaged stream that Vela accepts too, both decode it the same.
#[test]
fn damaged_streams_fail_cleanly() {
    let run = Run::from_env("damaged_streams_fail_cleanly", 2000);
    let mut rng = run.rng();
    let vela = vela();
    let originals: Vec<Vec<i16>> = (0..run.cycles).map(|i| sample(&mut rng, Distribution::ALL[i as usize % Distribution::ALL.len()])).collect();
    let good = vela.encode(&originals).unwrap();
    let kinds = [Damage::Cut, Damage::Flips, Damage::Garbage, Damage::Noise];
    let cases: Vec<(Damage, Vec<u8>)> = good
        .iter()
        .enumerate()
        .map(|(i, g)| (kinds[i % kinds.len()], damage(&mut rng, g, kinds[i % kinds.len()])))
        .collect();
    let streams: Vec<Vec<u8>> = cases.iter().map(|c| c.1.clone()).collect();
    let (results, mut coverage) = run_both(&run, &streams);
    let vela_says = vela.decode(&streams).unwrap();
    for (i, ((kind, _), r)) in cases.iter().zip(&results).enumerate() {
        coverage.hit(&format!("{kind:?} -> {:?}", r.outcome));
        match (kind, r.outcome) {
            (Damage::Cut, Outcome::Done) => assert_eq!(r.weights, originals[i], "stream {i} cut in its padding"),
            (Damage::Cut, Outcome::Error(e)) => {
                assert!(matches!(e, DecodeError::Truncated | DecodeError::MissingEnd | DecodeError::Length), "stream {i}: {e:?}");
                assert!(originals[i].starts_with(&r.weights), "stream {i}: the weights before the fault are not the stream's");
            }
            (_, Outcome::Done) => match &vela_says[i] {
                Some(w) => assert_eq!(&r.weights, w, "stream {i} ({kind:?}) decodes differently in Vela"),
                None => coverage.hit("accepted here, rejected by Vela"),
            },
            _ => {}
        }
    }
    eprintln!("coverage:\n{coverage}");
    coverage.require(&[
        "error truncated", "error length", "error reserved zdiv", "error reserved wdiv", "error quotient",
        "error padding", "error reset", "Cut -> Error(Truncated)", "Flips -> Done",
        "Flips -> Error(Quotient)", "Noise -> Error(ReservedZdiv)",
    ]);
}

/// The model alone on many more damaged streams (a long random test in place of a fuzzer):
/// never a panic, never a hang, and a cut stream gives a prefix of its weights.
#[test]
fn model_survives_damaged_streams() {
    use npu::ethos::driver::decode;
    use npu::model::ethos::weight_decoder::WeightDecoder;
    use npu::model::Block;
    let run = Run::from_env("model_survives_damaged_streams", 20_000);
    let mut rng = run.rng();
    let mut coverage = Coverage::default();
    for i in 0..run.cycles {
        let distribution = *Distribution::ALL.choose(&mut rng).unwrap();
        let weights = sample(&mut rng, distribution);
        let options = EncodeOptions { max_slice_len: rng.gen_bool(0.3).then(|| rng.gen_range(1..100)), ..EncodeOptions::default() };
        let good = encode(&weights, &options).unwrap();
        let kind = [Damage::Cut, Damage::Flips, Damage::Garbage, Damage::Noise][i as usize % 4];
        let bad = damage(&mut rng, &good, kind);
        let mut model = WeightDecoder::default();
        let d = decode(&bad, |input| model.step(input));
        assert_ne!(d.outcome, Outcome::Hung, "stream {i} ({kind:?}): SEED={} hangs", run.seed);
        if let (Damage::Cut, Outcome::Error(_)) = (kind, d.outcome) {
            assert!(weights.starts_with(&d.weights), "stream {i}: cut stream gives foreign weights");
        }
        coverage.hit(&format!("{:?}", d.outcome));
    }
    eprintln!("{coverage}");
    coverage.require(&["Done", "Error(Truncated)", "Error(Quotient)", "Error(Padding)"]);
}

/// A fuzz input for the decoder: a stream and, when it came whole from the project's
/// encoder, the weights it must decode to.
#[derive(Clone, Debug)]
struct FuzzStream {
    bytes: Vec<u8>,
    /// The encoder's input, if `bytes` is its output unchanged.
    weights: Option<Vec<i16>>,
    kind: &'static str,
}

/// Weights the encoder takes: any values, or mostly zeros (alternating mode, long runs).
fn fuzz_weights() -> impl proptest::strategy::Strategy<Value = Vec<i16>> + Clone {
    use proptest::prelude::*;
    prop_oneof![
        prop::collection::vec(-255i16..=255, 0..300),
        prop::collection::vec(prop_oneof![8 => Just(0i16), 1 => -255i16..=255], 0..3000),
        prop::collection::vec(-3i16..=3, 0..500),
    ]
}

/// Arbitrary bytes (any length, so partial words and the empty stream too), encoder streams
/// as they are, and encoder streams or Vela's (the spec vectors) with bits flipped, bytes
/// overwritten, inserted or deleted, or cut at any byte.
fn fuzz_stream() -> impl proptest::strategy::Strategy<Value = FuzzStream> {
    use proptest::prelude::*;
    let vela: Vec<Vec<u8>> = spec_vectors().into_iter().map(|v| v.1).collect();
    let encoded = fuzz_weights().prop_map(|w| (encode(&w, &EncodeOptions::default()).expect("weights in range"), w));
    let valid = prop_oneof![
        encoded.clone().prop_map(|(bytes, _)| bytes),
        proptest::sample::select(vela),
    ];
    // (position, value) pairs: position as a fraction of the length, so any stream takes them.
    let edits = prop::collection::vec((0.0..1.0f64, any::<u8>(), 0..5u8), 1..6);
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200).prop_map(|bytes| FuzzStream { bytes, weights: None, kind: "arbitrary bytes" }),
        encoded.prop_map(|(bytes, w)| FuzzStream { bytes, weights: Some(w), kind: "encoder stream" }),
        (valid, edits).prop_map(|(mut bytes, edits)| {
            for (at, value, op) in edits {
                let i = ((at * bytes.len() as f64) as usize).min(bytes.len().saturating_sub(1));
                match op {
                    _ if bytes.is_empty() => bytes.push(value),
                    0 => bytes[i] ^= 1 << (value % 8),
                    1 => bytes[i] = value,
                    2 => bytes.insert(i, value),
                    3 => drop(bytes.remove(i)),
                    _ => bytes.truncate(i),
                }
            }
            FuzzStream { bytes, weights: None, kind: "mutated stream" }
        }),
    ]
}

/// The proptest configuration of a fuzz target: `cases` (or `CYCLES`) from the printed
/// `SEED`, as every random test, no failure files.
fn fuzz_config(test: &str, cases: u32) -> (proptest::test_runner::Config, u64) {
    let run = Run::from_env(test, cases.into());
    let seed = run.seed;
    let config = proptest::test_runner::Config {
        cases: run.cycles.try_into().unwrap_or(u32::MAX),
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    };
    (config, seed)
}

/// Checks one fuzz stream's result: never a hang; an encoder stream decodes to its input.
fn check_fuzz(s: &FuzzStream, weights: &[i16], outcome: Outcome, coverage: &mut Coverage) -> Result<(), proptest::test_runner::TestCaseError> {
    use proptest::prop_assert;
    prop_assert!(outcome != Outcome::Hung, "{} of {} bytes hangs", s.kind, s.bytes.len());
    if let Some(expected) = &s.weights {
        prop_assert!(outcome == Outcome::Done && weights == expected.as_slice(), "an encoder stream of {} weights decodes to {} ({outcome})", expected.len(), weights.len());
    }
    coverage.hit(&format!("{}: {}", s.kind, if outcome == Outcome::Done { "accepted" } else { "refused" }));
    if let Outcome::Error(e) = outcome {
        coverage.hit(e.message());
    }
    Ok(())
}

/// Fuzz target (proptest; no nightly for cargo-fuzz): thousands of arbitrary, encoded and
/// mutated streams through the decoder's model. Never a panic (a panic fails the case and
/// is shrunk), never a hang, an encoder stream decodes to the encoder's input.
#[test]
fn fuzz_model_with_arbitrary_and_mutated_streams() {
    use npu::ethos::driver::decode;
    use npu::model::{ethos::weight_decoder::WeightDecoder, Block};
    use proptest::test_runner::TestRunner;
    let (config, _) = fuzz_config("fuzz_model_with_arbitrary_and_mutated_streams", 20_000);
    let coverage = std::cell::RefCell::new(Coverage::default());
    TestRunner::new(config)
        .run(&fuzz_stream(), |s| {
            let mut model = WeightDecoder::default();
            let d = decode(&s.bytes, |i| model.step(i));
            check_fuzz(&s, &d.weights, d.outcome, &mut coverage.borrow_mut())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let coverage = coverage.into_inner();
    eprintln!("{coverage}");
    coverage.require(&[
        "arbitrary bytes: refused", "encoder stream: accepted", "mutated stream: accepted", "mutated stream: refused",
        DecodeError::Truncated.message(), DecodeError::Length.message(), DecodeError::MissingEnd.message(),
        DecodeError::Quotient.message(), DecodeError::ReservedZdiv.message(),
    ]);
}

/// The same fuzz target, fewer cases, through the Verilated decoder in lock step with its
/// model (every output, every cycle, with random stalls on both sides).
#[test]
fn fuzz_rtl_in_lockstep() {
    use proptest::test_runner::TestRunner;
    let (config, seed) = fuzz_config("fuzz_rtl_in_lockstep", 300);
    let coverage = std::cell::RefCell::new(Coverage::default());
    TestRunner::new(config)
        .run(&proptest::collection::vec(fuzz_stream(), 1..12), |batch| {
            let streams: Vec<Vec<u8>> = batch.iter().map(|s| s.bytes.clone()).collect();
            let run = Run { seed, ..Run::fixed("fuzz_rtl_in_lockstep", 0) };
            let (results, _) = lockstep(&run, &streams, true).map_err(|m| proptest::test_runner::TestCaseError::fail(m.to_string()))?;
            for (s, r) in batch.iter().zip(&results) {
                check_fuzz(s, &r.weights, r.outcome, &mut coverage.borrow_mut())?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let coverage = coverage.into_inner();
    eprintln!("{coverage}");
    coverage.require(&["arbitrary bytes: refused", "encoder stream: accepted", "mutated stream: refused"]);
}

/// `decode_each` hands each weight to its sink in the cycle it leaves the decoder, not at the
/// end: so `npu ethos decode` writes weights as they come and holds none (a 305 KB stream of
/// long zero runs is 19.7 M weights: 4.5 MB peak instead of 42.5 MB for the model's CLI run).
/// Here 30 runs of 65535 zeros: the first weight arrives early, and at every step the sink
/// has all the weights that left.
#[test]
fn decode_each_hands_weights_out_as_they_leave() {
    use npu::ethos::driver::decode_each;
    use npu::model::{ethos::weight_decoder::WeightDecoder, Block};
    use std::cell::Cell;
    let mut weights = Vec::new();
    for i in 0..30 {
        weights.push(1 + i % 5);
        weights.resize(weights.len() + 65535, 0);
    }
    let stream = encode(&weights, &EncodeOptions::default()).unwrap();
    let (steps, received, first_at) = (Cell::new(0u64), Cell::new(0u64), Cell::new(None));
    let mut model = WeightDecoder::default();
    let mut delivered = 0u64;
    let tally = decode_each(
        &stream,
        |i| {
            // Every weight of the beats taken so far is already in the sink.
            assert_eq!(received.get(), delivered, "at step {}", steps.get());
            steps.set(steps.get() + 1);
            let out = model.step(i);
            if out.out_valid && i.out_ready {
                delivered += u64::from(out.out_count);
            }
            out
        },
        |_| {
            received.set(received.get() + 1);
            if first_at.get().is_none() {
                first_at.set(Some(steps.get()));
            }
        },
    );
    assert_eq!((tally.outcome, tally.weights), (Outcome::Done, weights.len() as u64));
    // A weight leaves with its zero run parsed (a pair), so the first comes after the first
    // run's ~8000 unary bits: well within the first 1 % of the cycles.
    assert!(first_at.get().unwrap() < tally.cycles / 100, "first weight at step {:?} of {}", first_at.get(), tally.cycles);
}

/// Zero runs of 1024 zeros and more, one after each nonzero weight (bit 10 of the run set
/// and clear): the emitter spends many cycles on each and the parser waits on the zero-run
/// queue's room. Kills the mutant that writes bit 10 of the run queue's lane 0 every cycle,
/// enabled or not (docs/ethos.md, "Mutation score"): with no enable, the write goes to the
/// undefined address `proc` gives an idle port (one fixed entry in Verilator), and a long run
/// held there loses or gains its bit 10; the first streams catch it. Those streams never
/// fill the queue (29 runs at most, found with the model's queue events below), so streams of
/// short runs behind long ones fill both queues; the model's `zero-run queue full` and `weight
/// queue full` events (a cycle that starts with 32 entries queued) are required, so the test
/// cannot pass without.
#[test]
fn long_zero_runs_fill_the_run_queue() {
    let run = Run::from_env("long_zero_runs_fill_the_run_queue", 3);
    let mut rng = run.rng();
    let ranges = [1024..2048, 2048..3072, 1..4096];
    let mut weights = Vec::new();
    for k in 0..run.cycles as usize {
        let range = ranges[k % ranges.len()].clone();
        let mut w = Vec::new();
        for _ in 0..48 {
            w.push(rng.gen_range(1..=127) * if rng.gen_bool(0.5) { 1 } else { -1 });
            w.extend(std::iter::repeat(0).take(rng.gen_range(range.clone())));
        }
        weights.push(w);
    }
    // These streams reach 29 runs queued at most: a long run's unary quotient is so long that
    // its chunk holds it alone, pushed alone, and the parser waits at 29 (its room check is
    // `<= 28`). 32 runs queued (tail on head) needs a push of 4 at 28, so a chunk of 4, 8 or
    // 12 short runs starting where both queues hold 32 minus that, while the emitter pops
    // nothing. Streams of their own (each starts from empty queues) do it: a long run keeps
    // the emitter busy, a 1024-2047 run (bit 10 set) behind it is the head, and short runs
    // pile up behind; `pre` and `mid` short pairs and the random lengths move the chunk
    // boundaries. About 3 in 10 such streams fill the queue (measured, SEED=1); 48 of them.
    for pre in 0..4 {
        for mid in 0..12 {
            let mut w = Vec::new();
            for (count, zeros) in [(pre, 1..8), (1, 2048..4096), (1, 1024..2048), (mid, 1..8), (1, 256..1024), (48, 1..8)] {
                for _ in 0..count {
                    w.push(rng.gen_range(1..=127) * if rng.gen_bool(0.5) { 1 } else { -1 });
                    w.extend(std::iter::repeat(0).take(rng.gen_range(zeros.clone())));
                }
            }
            weights.push(w);
        }
    }
    let options = EncodeOptions { zero_runs: Some(true), ..Default::default() };
    let streams: Vec<Vec<u8>> = weights.iter().map(|w| encode(w, &options).unwrap_or_else(|e| panic!("{e}"))).collect();
    let (results, coverage) = run_both(&run, &streams);
    assert_decoded(&run.test, &results, &weights);
    eprintln!("coverage:\n{coverage}");
    // Without a full queue the test would not reach the state it is for.
    coverage.require(&["zero-run queue full", "weight queue full"]);
}
