//! The second thread of a query split in two: one helper thread that stays up between
//! queries, instead of a thread started for each (docs/queries.md §4, "The second thread").
//!
//! On this project's 2-core machines a thread started per split ran its half late: two
//! halves of 1 ms each took 1.6 ms together, of 5 ms each 8 ms, where a thread already
//! running takes 1.0 and 5.1 ms. So the helper, after each job, keeps looking for the next
//! for [`STAY_AWAKE`] before it sleeps: a drag step's splits come within that of each other.

use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// How long the helper, and a caller waiting for it, keep checking before they sleep.
pub const STAY_AWAKE: Duration = Duration::from_millis(2);

/// The cores available, asked once (the call reads the scheduler's affinity and costs as
/// much as a small query).
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs `a` on this thread and `b` on another at the same time, and returns both results.
/// `b` runs on the helper when it is free (it serves one caller at a time), else on a thread
/// started for it, so the two always run concurrently: a split whose halves wait for each
/// other (the continuous query's sharing) cannot deadlock. A panic in either is raised here,
/// after both have ended.
pub fn join<RA, RB: Send>(a: impl FnOnce() -> RA, b: impl FnOnce() -> RB + Send) -> (RA, RB) {
    let Some(helper) =
        helper().filter(|h| h.taken.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok())
    else {
        return thread::scope(|s| {
            let b = s.spawn(b);
            let ra = a();
            (ra, b.join().unwrap_or_else(|e| panic::resume_unwind(e)))
        });
    };
    let mut b = Some(b);
    let mut rb = None;
    let mut run = || rb = b.take().map(|b| panic::catch_unwind(AssertUnwindSafe(b)));
    let job = Job { run: &mut run, done: AtomicBool::new(false), caller: thread::current() };
    helper.job.store(ptr::from_ref(&job).cast_mut().cast(), Ordering::Release);
    helper.thread.unpark();
    let ra = panic::catch_unwind(AssertUnwindSafe(a));
    // `job` and what `run` borrows must outlive the helper's use of them, even when `a`
    // panicked: wait for it first.
    let waiting = Instant::now();
    while !job.done.load(Ordering::Acquire) {
        if waiting.elapsed() < STAY_AWAKE {
            std::hint::spin_loop();
        } else {
            thread::park();
        }
    }
    helper.taken.store(false, Ordering::Release);
    let ra = ra.unwrap_or_else(|e| panic::resume_unwind(e));
    let rb = rb.expect("the helper ran the job").unwrap_or_else(|e| panic::resume_unwind(e));
    (ra, rb)
}

/// `f` of each item, in the items' order; with at least `min` items (below that, a split
/// costs more than it saves) and two cores, the second thread takes every other item (costs
/// vary along a list, so alternate items balance the two better than halves).
pub fn map<T: Sync, U: Send>(items: &[T], min: usize, f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    if items.len() < min.max(2) || cores() < 2 {
        return items.iter().map(f).collect();
    }
    let f = &f;
    let (evens, odds) = join(
        || items.iter().step_by(2).map(f).collect::<Vec<U>>(),
        || items.iter().skip(1).step_by(2).map(f).collect::<Vec<U>>(),
    );
    let mut out = Vec::with_capacity(items.len());
    let mut odds = odds.into_iter();
    for even in evens {
        out.push(even);
        out.extend(odds.next());
    }
    out
}

/// [`map`] of the items up to where `deadline` came: the results of a prefix of `items`, at
/// least `at_least` long (fewer only when there are fewer items). Each thread looks at the
/// clock before each of its items; the prefix ends at the first item not done, and a result
/// past it that the other thread made is dropped. For items whose costs vary too much for a
/// piece sized beforehand to end by a deadline.
pub fn map_until<T: Sync, U: Send>(
    items: &[T],
    min: usize,
    deadline: Instant,
    at_least: usize,
    f: impl Fn(&T) -> U + Sync,
) -> Vec<U> {
    let go = |i: usize| i < at_least || Instant::now() < deadline;
    if items.len() < min.max(2) || cores() < 2 {
        return items.iter().enumerate().map_while(|(i, x)| go(i).then(|| f(x))).collect();
    }
    let f = &f;
    let go = &go;
    let side = |first: usize| {
        move || {
            items.iter().enumerate().skip(first).step_by(2).map_while(|(i, x)| go(i).then(|| f(x))).collect::<Vec<U>>()
        }
    };
    let (evens, odds) = join(side(0), side(1));
    let done = (2 * evens.len()).min(2 * odds.len() + 1).min(items.len());
    let mut out = Vec::with_capacity(done);
    let mut odds = odds.into_iter();
    for even in evens {
        out.push(even);
        out.extend(odds.next());
    }
    out.truncate(done);
    out
}

/// A caller's job, on the caller's stack while it waits in [`join`].
struct Job<'a> {
    /// Runs `b` and keeps its result, or its panic, for the caller; never panics itself.
    run: *mut (dyn FnMut() + Send + 'a),
    done: AtomicBool,
    caller: Thread,
}

struct Helper {
    /// Whether a caller's job has the helper (from posting it until it is done).
    taken: AtomicBool,
    /// The posted job (a `Job`), null when none is waiting.
    job: AtomicPtr<()>,
    thread: Thread,
}

/// The helper, started on first use; `None` where no thread can be started.
fn helper() -> Option<&'static Helper> {
    static HELPER: OnceLock<Option<Helper>> = OnceLock::new();
    HELPER
        .get_or_init(|| {
            let handle = thread::Builder::new().name("mockup-helper".into()).spawn(serve).ok()?;
            Some(Helper {
                taken: AtomicBool::new(false),
                job: AtomicPtr::new(ptr::null_mut()),
                thread: handle.thread().clone(),
            })
        })
        .as_ref()
}

/// The helper's loop: take a posted job, run it, say it is done; between jobs, check for the
/// next one for `STAY_AWAKE`, then sleep until a caller wakes it.
fn serve() {
    // Blocks until `helper()`'s initialisation, which started this thread, has returned.
    let helper = helper().expect("the helper was started");
    loop {
        let idle = Instant::now();
        let job = loop {
            let job = helper.job.swap(ptr::null_mut(), Ordering::Acquire);
            if !job.is_null() {
                break job.cast::<Job<'static>>();
            }
            if idle.elapsed() < STAY_AWAKE {
                std::hint::spin_loop();
            } else {
                thread::park();
            }
        };
        // SAFETY: `job` points to a `Job` on the stack of a caller in `join`, which does not
        // return (nor unwind) before `done` is set, so the job and everything `run` borrows
        // live until then; `run` is called once, here, and not used after `done` is set.
        unsafe {
            (*(*job).run)();
            let caller = (*job).caller.clone();
            (*job).done.store(true, Ordering::Release);
            caller.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::mpsc;

    proptest! {
        /// The list one thread's map gives, in its order, on either side of `min`.
        #[test]
        fn map_keeps_order(items in proptest::collection::vec(any::<i64>(), 0..300), min in 0usize..100) {
            let one: Vec<i64> = items.iter().map(|x| x.wrapping_mul(3) - 1).collect();
            prop_assert_eq!(map(&items, min, |x| x.wrapping_mul(3) - 1), one);
        }
    }

    proptest! {
        /// A prefix of `map`'s list: all of it before a deadline far ahead, exactly
        /// `at_least` after one already past, on either side of `min`.
        #[test]
        fn map_until_gives_a_prefix(items in proptest::collection::vec(any::<i64>(), 0..300), min in 0usize..100, at_least in 0usize..320) {
            let all: Vec<i64> = items.iter().map(|x| x.wrapping_mul(3) - 1).collect();
            let later = Instant::now() + Duration::from_secs(3600);
            prop_assert_eq!(map_until(&items, min, later, at_least, |x| x.wrapping_mul(3) - 1), all.clone());
            let past = Instant::now();
            let some = map_until(&items, min, past, at_least, |x| x.wrapping_mul(3) - 1);
            prop_assert_eq!(&some[..], &all[..at_least.min(items.len())]);
        }
    }

    /// Items that take 1 ms each, 1,000 of them, and a deadline 20 ms away: a prefix, ended
    /// near the deadline, not the whole list's second.
    #[test]
    fn map_until_stops_at_the_deadline() {
        let items: Vec<u32> = (0..1000).collect();
        let deadline = Instant::now() + Duration::from_millis(20);
        let done = map_until(&items, 2, deadline, 1, |&x| {
            thread::sleep(Duration::from_millis(1));
            x
        });
        assert!(!done.is_empty() && done.len() < 1000, "{} items", done.len());
        assert_eq!(done, (0..done.len() as u32).collect::<Vec<_>>());
    }

    #[test]
    fn both_results_come_back() {
        for k in 0..200u64 {
            let v: Vec<u64> = (0..k).collect();
            let (x, y) = join(|| v.iter().sum::<u64>(), || v.iter().map(|x| x * 2).sum::<u64>());
            assert_eq!((x, 2 * x), (v.iter().sum(), y));
        }
    }

    /// Each side waits for a message from the other: run one after the other they would time
    /// out instead of finishing.
    #[test]
    fn the_two_sides_run_at_the_same_time() {
        for _ in 0..50 {
            let (to_b, from_a) = mpsc::channel();
            let (to_a, from_b) = mpsc::channel();
            let (a, b) = join(
                move || {
                    to_b.send(()).unwrap();
                    from_b.recv_timeout(Duration::from_secs(10)).is_ok()
                },
                move || {
                    to_a.send(()).unwrap();
                    from_a.recv_timeout(Duration::from_secs(10)).is_ok()
                },
            );
            assert!(a && b);
        }
    }

    /// A join inside a join (the helper taken) and joins from many threads at once all
    /// finish with their own results.
    #[test]
    fn nested_and_concurrent_joins() {
        let (x, (y, z)) = join(|| join(|| 1, || 2), || join(|| 3, || 4));
        assert_eq!((x, y, z), ((1, 2), 3, 4));
        thread::scope(|s| {
            for t in 0..8u64 {
                s.spawn(move || {
                    for k in 0..200u64 {
                        assert_eq!(join(|| t * k, || t + k), (t * k, t + k));
                    }
                });
            }
        });
    }

    /// A panic on either side reaches the caller with its message, and the helper goes on
    /// serving.
    #[test]
    fn panics_reach_the_caller() {
        for side in [0, 1] {
            let caught = panic::catch_unwind(|| {
                join(|| assert!(side != 0, "a failed"), || assert!(side != 1, "b failed"));
            });
            let message = caught.unwrap_err();
            let message =
                message.downcast_ref::<String>().map(String::as_str).or(message.downcast_ref::<&str>().copied());
            assert_eq!(message, Some(if side == 0 { "a failed" } else { "b failed" }));
        }
        assert_eq!(join(|| 5, || 6), (5, 6));
    }
}
