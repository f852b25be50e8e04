//! ulid-core's own loops, for bench/cli to measure the command-line tool
//! against: per id, what each command does minus its input and output.
//!
//! - `new`: read the clock, `monotonic::generate` with the process's
//!   CSPRNG, encode the text into a buffer;
//! - `new --monotonic`: the same with `Monotonic::next`;
//! - `parse`: `codec::parse` of a ULID text and the fields `ulid-tool parse`
//!   prints (texts, time, random part), into a buffer.
//!
//! Usage: core_loop IDS ROUNDS; prints one JSON object: for each loop, the
//! median over ROUNDS of the nanoseconds per id.

use std::time::{Instant, SystemTime, UNIX_EPOCH};
use ulid_core::codec;
use ulid_core::monotonic::{self, Layout, Monotonic, Step};
use ulid_core::rng::ProcessRng;
use ulid_tool::cli::ParseFormat;
use ulid_tool::parse::Printer;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The buffer is emptied every 64 KiB, as the tool's output is.
fn drain(out: &mut Vec<u8>) {
    if out.len() >= 64 * 1024 {
        std::hint::black_box(&out);
        out.clear();
    }
}

fn new_loop(ids: u64, monotonic: bool) -> f64 {
    let mut rng = ProcessRng::new();
    let mut rng = rng.for_process(std::process::id() as i32);
    let mut state = Monotonic::new();
    let mut out = Vec::with_capacity(70 * 1024);
    let start = Instant::now();
    for _ in 0..ids {
        let now = now_ms();
        let value = if monotonic {
            state.next(now, &mut rng, Step::Random, Layout::Ulid)
        } else {
            monotonic::generate(now, &mut rng, Layout::Ulid)
        }
        .unwrap();
        out.extend_from_slice(&codec::encode(&value));
        out.push(b'\n');
        drain(&mut out);
    }
    start.elapsed().as_nanos() as f64 / ids as f64
}

fn parse_loop(texts: &[[u8; codec::TEXT_LEN]]) -> f64 {
    let mut printer = Printer::new(ParseFormat::Text);
    let mut out = Vec::with_capacity(70 * 1024);
    let start = Instant::now();
    for text in texts {
        let value = codec::parse(std::hint::black_box(text)).unwrap();
        printer.print(&mut out, &value);
        drain(&mut out);
    }
    start.elapsed().as_nanos() as f64 / texts.len() as f64
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: core_loop IDS ROUNDS"))
        .collect();
    let (ids, rounds) = (args[0], args[1].max(1));
    let mut rng = ProcessRng::new();
    let mut rng = rng.for_process(1);
    let texts: Vec<_> = (0..ids)
        .map(|_| codec::encode(&monotonic::generate(now_ms(), &mut rng, Layout::Ulid).unwrap()))
        .collect();
    let (mut new, mut monotonic, mut parse) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        new.push(new_loop(ids, false));
        monotonic.push(new_loop(ids, true));
        parse.push(parse_loop(&texts));
    }
    println!(
        "{{\"new\": {:.2}, \"new --monotonic\": {:.2}, \"parse\": {:.2}}}",
        median(new),
        median(monotonic),
        median(parse)
    );
}
