//! A mutex with a FIFO wait queue (in the style of the Asterinas `Mutex` + `WaitQueue`), built on
//! std atomics, exercised by std threads and instrumented to write an NDJSON trace of its actions.
//!
//! Usage: mutex SEED OUT.ndjson [THREADS=3] [ROUNDS=3]
//!
//! Lock protocol (`WqMutex`):
//! * `lock()`: compare-and-swap `locked` false -> true. On failure the thread enqueues its waiter
//!   at the back of the wait queue, then re-checks the lock with another CAS (so that an unlock
//!   that ran between the failed CAS and the enqueue is not missed). If the re-check succeeds it
//!   removes itself from the queue and owns the lock; otherwise it parks until woken, and then
//!   starts over (a woken thread competes with newcomers: no hand-off).
//! * `try_lock()`: one CAS, never blocks.
//! * `unlock()`: store false, then `wake_one()`: pop the head of the queue (FIFO) and wake it.
//!
//! Every action below is performed together with writing its trace line while holding the trace
//! mutex, so the order of lines is the order in which the actions took effect:
//!   Init, Acquire, AcquireFail, Enqueue, RecheckAcquire, Sleep, Wakeup, TryLockSuccess,
//!   TryLockFail, Unlock, WakeOne.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

// ---------------------------------------------------------------- trace instrumentation
static TRACE: Mutex<Option<BufWriter<File>>> = Mutex::new(None);

struct Trace<'a>(MutexGuard<'a, Option<BufWriter<File>>>);

fn trace() -> Trace<'static> {
    Trace(TRACE.lock().unwrap())
}

impl Trace<'_> {
    fn emit(&mut self, line: String) {
        let w = self.0.as_mut().expect("trace file");
        w.write_all(line.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }
}

fn json_list(names: &[String]) -> String {
    let items: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    format!("[{}]", items.join(","))
}

// ---------------------------------------------------------------- randomness (xorshift64*)
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pause(&mut self) {
        match self.next() % 4 {
            0 => thread::yield_now(),
            1 => thread::sleep(Duration::from_micros(self.next() % 300)),
            _ => {}
        }
    }
}

// ---------------------------------------------------------------- the mutex
struct Waiter {
    name: String,
    woken: Mutex<bool>,
    cv: Condvar,
}

impl Waiter {
    /// Block until woken, then consume the wake-up.
    fn park(&self) {
        let mut w = self.woken.lock().unwrap();
        while !*w {
            w = self.cv.wait(w).unwrap();
        }
    }
}

struct WqMutex {
    locked: AtomicBool,
    queue: Mutex<VecDeque<Arc<Waiter>>>,
}

impl WqMutex {
    fn new() -> WqMutex {
        WqMutex { locked: AtomicBool::new(false), queue: Mutex::new(VecDeque::new()) }
    }

    fn cas(&self) -> bool {
        self.locked.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok()
    }

    fn queue_names(q: &VecDeque<Arc<Waiter>>) -> Vec<String> {
        q.iter().map(|w| w.name.clone()).collect()
    }

    fn lock(&self, me: &Arc<Waiter>, rng: &mut Rng) {
        loop {
            {
                let mut tr = trace();
                if self.cas() {
                    tr.emit(format!(
                        "{{\"event\":\"Acquire\",\"actor\":\"{}\",\"locked\":true,\"state\":\"in_cs\"}}",
                        me.name
                    ));
                    return;
                }
                tr.emit(format!("{{\"event\":\"AcquireFail\",\"actor\":\"{}\",\"state\":\"enqueue\"}}", me.name));
            }
            rng.pause();
            {
                let mut tr = trace();
                let mut q = self.queue.lock().unwrap();
                q.push_back(me.clone());
                let names = Self::queue_names(&q);
                drop(q);
                tr.emit(format!(
                    "{{\"event\":\"Enqueue\",\"actor\":\"{}\",\"queue\":{},\"state\":\"recheck\"}}",
                    me.name,
                    json_list(&names)
                ));
            }
            rng.pause();
            {
                let mut tr = trace();
                if self.cas() {
                    let mut q = self.queue.lock().unwrap();
                    q.retain(|w| !Arc::ptr_eq(w, me));
                    let names = Self::queue_names(&q);
                    drop(q);
                    *me.woken.lock().unwrap() = false; // a wake-up that raced with us is not needed
                    tr.emit(format!(
                        "{{\"event\":\"RecheckAcquire\",\"actor\":\"{}\",\"locked\":true,\"queue\":{},\"state\":\"in_cs\",\"woken\":false}}",
                        me.name,
                        json_list(&names)
                    ));
                    return;
                }
                tr.emit(format!("{{\"event\":\"Sleep\",\"actor\":\"{}\",\"state\":\"waiting\"}}", me.name));
            }
            me.park();
            {
                let mut tr = trace();
                *me.woken.lock().unwrap() = false;
                tr.emit(format!(
                    "{{\"event\":\"Wakeup\",\"actor\":\"{}\",\"state\":\"retry\",\"woken\":false}}",
                    me.name
                ));
            }
            rng.pause();
        }
    }

    fn try_lock(&self, me: &Waiter) -> bool {
        let mut tr = trace();
        if self.cas() {
            tr.emit(format!(
                "{{\"event\":\"TryLockSuccess\",\"actor\":\"{}\",\"locked\":true,\"state\":\"in_cs\"}}",
                me.name
            ));
            true
        } else {
            tr.emit(format!(
                "{{\"event\":\"TryLockFail\",\"actor\":\"{}\",\"locked\":true,\"state\":\"idle\"}}",
                me.name
            ));
            false
        }
    }

    fn unlock(&self, me: &Waiter, rng: &mut Rng) {
        {
            let mut tr = trace();
            self.locked.store(false, Ordering::Release);
            tr.emit(format!(
                "{{\"event\":\"Unlock\",\"actor\":\"{}\",\"locked\":false,\"state\":\"waking\"}}",
                me.name
            ));
        }
        rng.pause();
        // wake_one(): pop the head of the queue and wake it
        let mut tr = trace();
        let mut q = self.queue.lock().unwrap();
        let head = q.pop_front();
        let names = Self::queue_names(&q);
        drop(q);
        let woken = match &head {
            Some(w) => {
                *w.woken.lock().unwrap() = true;
                w.cv.notify_one();
                w.name.clone()
            }
            None => "none".to_string(),
        };
        tr.emit(format!(
            "{{\"event\":\"WakeOne\",\"actor\":\"{}\",\"queue\":{},\"woken\":\"{}\",\"state\":\"idle\"}}",
            me.name,
            json_list(&names),
            woken
        ));
    }
}

// ---------------------------------------------------------------- workload
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: {} SEED OUT.ndjson [THREADS] [ROUNDS]", args[0]);
        std::process::exit(2);
    }
    let seed: u64 = args[1].parse().expect("SEED");
    let nthreads: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(3);
    let rounds: usize = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(3);
    assert!((1..=16).contains(&nthreads) && rounds <= 50, "THREADS 1..16, ROUNDS 0..50");
    *TRACE.lock().unwrap() = Some(BufWriter::new(File::create(&args[2]).expect("open trace")));
    let names: Vec<String> = (1..=nthreads).map(|i| format!("t{i}")).collect();
    trace().emit(format!(
        "{{\"event\":\"Init\",\"actor\":\"main\",\"threads\":{},\"locked\":false,\"queue\":[]}}",
        json_list(&names)
    ));

    let m = Arc::new(WqMutex::new());
    let counter = Arc::new(AtomicU64::new(0)); // updated non-atomically inside the critical section
    let acquisitions = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let (m, counter, acq) = (m.clone(), counter.clone(), acquisitions.clone());
        let me = Arc::new(Waiter { name: name.clone(), woken: Mutex::new(false), cv: Condvar::new() });
        handles.push(thread::spawn(move || {
            let mut rng = Rng::new(seed * 1_000_003 + i as u64 + 1);
            for _ in 0..rounds {
                rng.pause();
                let got = if rng.next() % 4 == 0 {
                    m.try_lock(&me)
                } else {
                    m.lock(&me, &mut rng);
                    true
                };
                if got {
                    let c = counter.load(Ordering::Relaxed);
                    rng.pause();
                    thread::sleep(Duration::from_micros(50 + rng.next() % 200));
                    counter.store(c + 1, Ordering::Relaxed);
                    acq.fetch_add(1, Ordering::Relaxed);
                    m.unlock(&me, &mut rng);
                }
            }
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
    TRACE.lock().unwrap().take();
    let (c, a) = (counter.load(Ordering::SeqCst), acquisitions.load(Ordering::SeqCst));
    if c != a {
        eprintln!("mutual exclusion broken: counter={c} acquisitions={a}");
        std::process::exit(1);
    }
}
