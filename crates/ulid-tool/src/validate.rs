//! `ulid-tool validate`: whether each id is valid, told by the exit status, and
//! why one is not on standard error (in `parse::read_id`'s words, the
//! type's error DETAIL and HINT). Unlike `parse`, no note of a time far
//! from now: validity is all it is asked.

use crate::cli::ValidateArgs;
use crate::exit::{Failure, INVALID, OK};
use crate::input::for_each_id;
use crate::output::Output;
use crate::parse::read_id;
use std::io::{BufReader, Read, Write};

/// `ulid-tool validate`: prints nothing; the exit status says.
pub(crate) fn run<R: Read, W: Write>(
    args: &ValidateArgs,
    reader: &mut BufReader<R>,
    errors: &mut impl Write,
    out: &mut Output<W>,
) -> Result<u8, Failure> {
    let mut invalid = false;
    for_each_id(&args.input.ids, reader, out, |_, item| {
        if read_id(&item, errors)?.is_none() {
            invalid = true;
        }
        Ok(())
    })?;
    Ok(if invalid { INVALID } else { OK })
}
