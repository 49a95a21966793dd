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
    "weight remainders", "zero-run remainders", "end marker", "end marker at a byte boundary (or 0xFF padding)",
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

/// Random vectors of every distribution, encoded by Vela, decode to themselves.
#[test]
fn vela_streams_decode_exactly() {
    let run = Run::from_env("vela_streams_decode_exactly", 3000);
    let mut rng = run.rng();
    let weights: Vec<Vec<i16>> = (0..run.cycles)
        .map(|i| sample(&mut rng, Distribution::ALL[i as usize % Distribution::ALL.len()]))
        .collect();
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
    cases.push(([good.as_slice(), &[0xFF; 4]].concat(), DecodeError::Length));
    cases.push((good[..good.len() / 32 * 16].to_vec(), DecodeError::Truncated));
    cases
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
