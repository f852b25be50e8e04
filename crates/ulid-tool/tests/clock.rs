//! `ulid-tool new --monotonic` with a clock the test controls: the library part
//! of the command, given a clock that stalls, steps back and moves on.

use ulid_core::codec;
use ulid_core::monotonic::{GenerateError, Layout, Step};
use ulid_core::rng::ProcessRng;
use ulid_tool::cli::IdFormat;
use ulid_tool::new::{write_new, Clock, NewError, NewOptions};
use ulid_tool::output::Output;

/// Readings from a list, the last one repeated.
struct Scripted {
    readings: Vec<u64>,
    at: usize,
}

impl Clock for Scripted {
    fn now_ms(&mut self) -> Result<u64, GenerateError> {
        let reading = self.readings[self.at.min(self.readings.len() - 1)];
        self.at += 1;
        Ok(reading)
    }
}

fn run(readings: Vec<u64>, count: u64, step: Step, layout: Layout) -> Vec<[u8; 16]> {
    let options = NewOptions {
        count,
        monotonic: Some(step),
        layout,
        format: IdFormat::Hex,
        after: None,
        one_millisecond: false,
    };
    let mut out = Output::new(Vec::new());
    let mut rng = ProcessRng::new();
    write_new(
        &options,
        &mut Scripted { readings, at: 0 },
        &mut rng.for_process(1),
        &mut out,
    )
    .unwrap();
    let bytes = out.buf;
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|line| codec::parse(line.as_bytes()).unwrap())
        .collect()
}

#[test]
fn a_clock_stepping_back_keeps_the_last_millisecond() {
    let t = 1_735_689_600_000;
    // on, back ten seconds, creeping up to t, then past it
    let mut readings = vec![t - 5, t];
    readings.extend((0..=10).map(|i| t - 10_000 + i * 1000));
    readings.extend([t + 1, t + 1, t + 2]);
    for layout in [Layout::Ulid, Layout::UuidV7] {
        for step in [Step::Random, Step::One] {
            let ids = run(readings.clone(), readings.len() as u64, step, layout);
            assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
            let ms: Vec<u64> = ids.iter().map(codec::timestamp_ms).collect();
            assert_eq!(ms[0], t - 5);
            // from the second value until the clock passes t: all of t
            assert!(ms[1..13].iter().all(|&m| m == t), "{ms:?}");
            assert_eq!(ms[13..], [t + 1, t + 1, t + 2]);
        }
    }
}

#[test]
fn the_exhausted_millisecond_stops_after_what_was_made() {
    let t = 1_735_689_600_000;
    let options = NewOptions {
        count: 10,
        monotonic: Some(Step::One),
        layout: Layout::Ulid,
        format: IdFormat::Ulid,
        after: Some((u128::from(t) << 80 | ((1 << 80) - 3)).to_be_bytes()),
        one_millisecond: false,
    };
    let mut out = Output::new(Vec::new());
    let mut rng = ProcessRng::new();
    let result = write_new(
        &options,
        &mut Scripted {
            readings: vec![t],
            at: 0,
        },
        &mut rng.for_process(1),
        &mut out,
    );
    assert!(matches!(
        result,
        Err(NewError::Generate {
            err: GenerateError::Exhausted,
            made: 2
        })
    ));
    assert_eq!(String::from_utf8(out.buf).unwrap().lines().count(), 2);
}

/// The loop `from-time` shares: held to the clock's millisecond, a UUIDv7
/// after a value with no UUIDv7 above it in its millisecond is the end of
/// that millisecond; not held (`new --monotonic`), it is the next one's.
#[test]
fn one_millisecond_ends_where_new_moves_on() {
    let t = 1_735_689_600_000;
    let full = (u128::from(t) << 80 | ((1 << 80) - 1)).to_be_bytes();
    for one_millisecond in [false, true] {
        let options = NewOptions {
            count: 2,
            monotonic: Some(Step::One),
            layout: Layout::UuidV7,
            format: IdFormat::Hex,
            after: Some(full),
            one_millisecond,
        };
        let mut out = Output::new(Vec::new());
        let mut rng = ProcessRng::new();
        let result = write_new(
            &options,
            &mut Scripted {
                readings: vec![t],
                at: 0,
            },
            &mut rng.for_process(1),
            &mut out,
        );
        let ids: Vec<[u8; 16]> = String::from_utf8(out.buf)
            .unwrap()
            .lines()
            .map(|line| codec::parse(line.as_bytes()).unwrap())
            .collect();
        if one_millisecond {
            assert!(matches!(
                result,
                Err(NewError::Generate {
                    err: GenerateError::Exhausted,
                    made: 0
                })
            ));
            assert!(ids.is_empty());
        } else {
            assert!(result.is_ok());
            assert_eq!(ids.len(), 2);
            assert!(ids.iter().all(|id| codec::timestamp_ms(id) == t + 1));
            assert!(ids[0] > full && ids[1] > ids[0]);
        }
    }
}
