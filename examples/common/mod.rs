//! What the measuring examples share: their command line (`STORE_DIR [--sample N]`),
//! the sessions they sample, and the quantiles they print.

use std::error::Error;
use std::time::Duration;

/// `STORE_DIR [--sample N]` from the command line; `N` is 1,000 when not given.
pub fn store_and_sample(program: &str) -> Result<(String, usize), Box<dyn Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let Some(store_dir) = arguments.first() else {
        return Err(format!("usage: {program} STORE_DIR [--sample N]").into());
    };
    let sample = match arguments.iter().position(|a| a == "--sample") {
        Some(at) => arguments.get(at + 1).ok_or("--sample needs N")?.parse()?,
        None => 1_000,
    };
    Ok((store_dir.clone(), sample))
}

/// Up to `sample` of `items`, spread evenly over them.
pub fn spread<T>(items: &[T], sample: usize) -> Vec<&T> {
    let step = (items.len() / sample.max(1)).max(1);
    items.iter().step_by(step).take(sample).collect()
}

/// The `quantile` (0 to 1) of `times`, which it sorts.
pub fn quantile(times: &mut [Duration], quantile: f64) -> Duration {
    times.sort();
    times[((times.len() - 1) as f64 * quantile).round() as usize]
}
