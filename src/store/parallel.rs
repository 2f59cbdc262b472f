//! Work side by side: one thread per core, each taking the next item, the results given
//! back in the items' order. Reads of the embedded store go on together; a server takes
//! the requests as they come.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `work` on every item, one thread per core, and gives the results in the items'
/// order. A panic in `work` is raised again here.
pub(crate) fn side_by_side<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    on_threads(cores, items, work)
}

/// [`side_by_side`] on `workers` threads: for work that mostly waits (requests to a
/// server), more threads than cores.
pub(crate) fn on_threads<T: Sync, R: Send>(
    workers: usize,
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..workers.max(1).min(items.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(at) else {
                            return done;
                        };
                        done.push((at, work(item)));
                    }
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    done.sort_unstable_by_key(|(at, _)| *at);
    done.into_iter().map(|(_, result)| result).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_items_order() {
        let items: Vec<u64> = (0..100).collect();
        let doubled: Vec<u64> = items.iter().map(|n| n * 2).collect();
        assert_eq!(side_by_side(&items, |n| n * 2), doubled);
        for workers in [0, 1, 3, 200] {
            assert_eq!(on_threads(workers, &items, |n| n * 2), doubled);
        }
        assert!(side_by_side(&[] as &[u8], |n| *n).is_empty());
    }
}
