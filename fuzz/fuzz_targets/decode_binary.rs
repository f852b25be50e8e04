//! The binary input path: whatever 16 bytes arrive are a value, and any other
//! length is refused.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ulid_fuzz::check_value;
use ulid_fuzz::codec::BYTES;

fuzz_target!(|data: &[u8]| match recv(data) {
    Some(bytes) => {
        assert_eq!(&bytes[..], data);
        check_value(&bytes);
    }
    None => assert_ne!(data.len(), BYTES, "refused 16 bytes"),
});

/// `ulid_recv` without PostgreSQL around it: exactly 16 bytes, taken as
/// they are.
fn recv(data: &[u8]) -> Option<[u8; BYTES]> {
    data.try_into().ok()
}
