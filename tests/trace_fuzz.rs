//! The pin-trace parser (src/mnist/trace.rs) under proptest: arbitrary text, near-valid
//! lines and byte mutations of valid traces. It never panics, a repeat is never expanded
//! into memory (a trace of 2^32 cycles is checked and streamed at once), the validating
//! pass and the stream agree, and every accepted trace round-trips through `trace::write`
//! (`write_runs` for runs too long to expand). Coverage: accepted and refused traces,
//! repeats at the largest count, and each kind of error.
use npu::cosim::lockstep::{Coverage, Run};
use npu::mnist::trace::{self, Cycles, Runs, TraceError};
use npu::model::mnist::chip::In;
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestCaseError, TestRunner};
use std::cell::RefCell;

/// The cycles of a trace as runs of equal pins, adjacent equal runs merged: one form for
/// every way of writing the same cycles.
fn normalized(text: &[u8]) -> Result<Vec<(In, u64)>, TraceError> {
    let mut runs: Vec<(In, u64)> = Vec::new();
    for run in Runs::new(text) {
        let (pins, n) = run?;
        match runs.last_mut() {
            Some((last, count)) if *last == pins => *count += u64::from(n),
            _ => runs.push((pins, u64::from(n))),
        }
    }
    Ok(runs)
}

/// Cycles expanded in memory only for traces this short.
const EXPAND: u64 = 10_000;

fn check(text: &[u8], coverage: &RefCell<Coverage>) -> Result<(), TestCaseError> {
    let fail = |e: TraceError| TestCaseError::fail(e.to_string());
    let validated = trace::validate(text);
    let runs = normalized(text);
    let mut coverage = coverage.borrow_mut();
    match (validated, runs) {
        (Ok(total), Ok(runs)) => {
            coverage.hit("accepted");
            prop_assert_eq!(total, runs.iter().map(|r| r.1).sum::<u64>());
            if runs.iter().any(|r| r.1 >= u64::from(trace::MAX_REPEAT)) {
                coverage.hit("largest repeat");
            }
            // Written from its runs and read again, the trace has the same cycles.
            let written = trace::write_runs("fuzz", runs.iter().map(|(p, n)| (p, *n)));
            prop_assert_eq!(normalized(written.as_bytes()).map_err(fail)?, runs.clone());
            // The stream starts at once, whatever the repeats: its first cycles are the runs'.
            let first: Vec<In> = Cycles::new(text).take(EXPAND as usize).collect::<Result<_, _>>().map_err(fail)?;
            let expected: Vec<In> = runs.iter().flat_map(|(p, n)| std::iter::repeat_n(p, (*n).min(EXPAND) as usize)).take(EXPAND as usize).cloned().collect();
            prop_assert_eq!(&first, &expected);
            if total <= EXPAND {
                coverage.hit("round trip through write");
                let text = trace::write("fuzz", &first);
                prop_assert_eq!(trace::parse(&text).map_err(fail)?, first);
            }
        }
        (Err(a), Err(b)) => {
            coverage.hit("refused");
            prop_assert_eq!(&a, &b);
            prop_assert!(a.line >= 1, "an error names its line: {}", a);
            for (kind, needle) in [("bad flags", "flags must be"), ("bad byte", "two hexadecimal digits"), ("bad repeat", "repeat count"), ("bad field count", "expected 5 fields"), ("not UTF-8", "not UTF-8")] {
                if a.message.contains(needle) {
                    coverage.hit(kind);
                }
            }
        }
        (a, b) => prop_assert!(false, "validate says {:?}, the runs {:?}", a.map(|_| ()), b.map(|_| ())),
    }
    Ok(())
}

fn runner(test: &str, cases: u32) -> TestRunner {
    let seed = Run::from_env(test, 0).seed;
    TestRunner::new(ProptestConfig { cases, rng_seed: RngSeed::Fixed(seed), failure_persistence: None, ..ProptestConfig::default() })
}

fn pins() -> impl Strategy<Value = In> {
    (any::<u8>(), any::<[u8; 4]>()).prop_map(|(f, [a, b, c, d])| {
        let bit = |k: u8| f >> k & 1 == 1;
        In { RST_GLO: bit(7), EN_CONFIG: bit(6), EN_FSM: bit(5), SEL_CON: bit(4), RD_EN: bit(3), EXT_EN_PISO_DEB: bit(2), EXT_CLR_PISO_DEB: bit(1), EXT_SHIFT_DEB: bit(0), DA: a, DB: b, DC: c, DD: d }
    })
}

/// Lines near the format: flags, bytes, repeats and comments with the characters that
/// tempt a lax parser (signs, `x` without digits, huge counts, tabs, CR).
fn near_valid_line() -> impl Strategy<Value = String> {
    let repeat = prop_oneof![
        Just(String::new()),
        (1u64..5).prop_map(|n| format!(" x{n}")),
        Just(" x4294967295".to_string()),
        Just(" x4294967296".to_string()),
        Just(" x18446744073709551615".to_string()),
        "[ \t]x[0-9+\\- ]{0,22}",
    ];
    ("[01]{8}|[01x2+ ]{0,10}", prop::collection::vec("[0-9a-fA-F]{2}|[0-9a-fA-Fg+\\- ]{0,3}", 0..6), repeat, "( *#[^\n]{0,10})?", "\r?")
        .prop_map(|(flags, bytes, repeat, comment, cr)| format!("{flags} {}{repeat}{comment}{cr}", bytes.join(" ")))
}

#[test]
fn trace_parser_never_panics_and_accepted_traces_round_trip() {
    let coverage = RefCell::new(Coverage::default());

    // Arbitrary text, line by line.
    let text = prop::collection::vec(any::<String>(), 0..6).prop_map(|lines| lines.join("\n").into_bytes());
    runner("trace_fuzz_arbitrary_text", 1000).run(&text, |t| check(&t, &coverage)).unwrap();

    // Near-valid lines.
    let lines = prop::collection::vec(near_valid_line(), 0..8).prop_map(|lines| lines.join("\n").into_bytes());
    runner("trace_fuzz_near_valid_lines", 3000).run(&lines, |t| check(&t, &coverage)).unwrap();

    // Valid traces (runs of up to the largest repeat), then bytes replaced, inserted, removed.
    let runs = prop::collection::vec((pins(), prop_oneof![1u64..4, Just(u64::from(trace::MAX_REPEAT)), Just(u64::from(trace::MAX_REPEAT) + 1)]), 1..6);
    let edits = prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 0..4);
    let mutated = (runs, edits).prop_map(|(runs, edits)| {
        let mut text = trace::write_runs("valid", runs.iter().map(|(p, n)| (p, *n))).into_bytes();
        for (at, kind, byte) in edits {
            let at = at.index(text.len() + 1);
            // Mostly bytes of the format itself, sometimes any byte.
            let byte = if byte < 200 { b"01x9af +-#\n \t"[usize::from(byte) % 13] } else { byte };
            match kind {
                0 if at < text.len() => text[at] = byte,
                1 => text.insert(at, byte),
                _ if at < text.len() => {
                    text.remove(at);
                }
                _ => {}
            }
        }
        text
    });
    runner("trace_fuzz_mutated_traces", 3000).run(&mutated, |t| check(&t, &coverage)).unwrap();

    let coverage = coverage.into_inner();
    eprintln!("{coverage}");
    coverage.require(&["accepted", "refused", "largest repeat", "round trip through write", "bad flags", "bad byte", "bad repeat", "bad field count", "not UTF-8"]);
}
