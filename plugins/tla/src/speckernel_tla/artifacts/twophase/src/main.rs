//! Two-phase commit between a coordinator process and participant processes over TCP on
//! 127.0.0.1, instrumented to write an NDJSON trace.
//!
//! Usage: twophase SEED OUT.ndjson [PARTICIPANTS=3] [TXS=2]
//!
//! The command is the coordinator. It listens on an ephemeral loopback port and starts one child
//! process per participant (`twophase --participant NAME PORT SEED LOG`). For each transaction
//! 1..TXS in turn the coordinator sends PREPARE to all participants; each participant votes YES or
//! NO at random (NO = it aborts its part) and replies; when all votes are in, the coordinator
//! decides COMMIT iff all voted YES and sends the decision; each participant applies it and
//! replies ACK; when all ACKs are in the transaction is complete. Then the coordinator sends BYE.
//!
//! Wire protocol (text lines): `HELLO name`, `PREPARE tx lc`, `VOTE tx yes|no lc`,
//! `DECISION tx commit|abort lc`, `ACK tx lc`, `BYE` (lc = Lamport clock of the sender).
//!
//! Trace: every process writes its own NDJSON log; each event carries the process's Lamport clock
//! `lc` (a receive is logged after the clock is advanced past the message's clock, a send before
//! the message leaves). After all participants exit, the coordinator merges the logs sorted by
//! (lc, actor) into OUT: a total order consistent with causality. Connection set-up (HELLO) and
//! BYE are not logged.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

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
        match self.next() % 3 {
            0 => thread::sleep(Duration::from_micros(self.next() % 2000)),
            1 => thread::yield_now(),
            _ => {}
        }
    }
}

// ---------------------------------------------------------------- per-process trace log
struct Log {
    actor: String,
    lc: u64,
    out: BufWriter<File>,
}

impl Log {
    fn new(actor: &str, path: &str) -> Log {
        Log { actor: actor.to_string(), lc: 0, out: BufWriter::new(File::create(path).expect("log file")) }
    }
    /// Advance the clock for a local or send event.
    fn tick(&mut self) -> u64 {
        self.lc += 1;
        self.lc
    }
    /// Advance the clock past a received message's clock.
    fn recv(&mut self, msg_lc: u64) {
        self.lc = self.lc.max(msg_lc) + 1;
    }
    /// Write an event; `fields` is a JSON fragment like `"tx":1,"vote":"yes"`.
    fn event(&mut self, name: &str, fields: &str) {
        let sep = if fields.is_empty() { "" } else { "," };
        writeln!(self.out, "{{\"lc\":{},\"event\":\"{}\",\"actor\":\"{}\"{}{}}}", self.lc, name, self.actor, sep, fields)
            .unwrap();
        self.out.flush().unwrap();
    }
}

fn send(stream: &mut TcpStream, line: &str) {
    stream.write_all(line.as_bytes()).unwrap();
    stream.write_all(b"\n").unwrap();
}

// ---------------------------------------------------------------- participant process
fn participant(name: &str, port: u16, seed: u64, log_path: &str) {
    let idx: u64 = name.trim_start_matches('p').parse().unwrap_or(0);
    let mut rng = Rng::new(seed * 7_919 + idx);
    let mut log = Log::new(name, log_path);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    send(&mut stream, &format!("HELLO {name}"));
    let reader = BufReader::new(stream.try_clone().unwrap());
    for line in reader.lines() {
        let line = line.unwrap();
        let f: Vec<&str> = line.split_whitespace().collect();
        rng.pause();
        match f.as_slice() {
            ["PREPARE", tx, lc] => {
                log.recv(lc.parse().unwrap());
                let yes = rng.next() % 4 != 0;
                let (vote, state) = if yes { ("yes", "prepared") } else { ("no", "refused") };
                log.event("Vote", &format!("\"tx\":{tx},\"vote\":\"{vote}\",\"state\":\"{state}\""));
                rng.pause();
                send(&mut stream, &format!("VOTE {tx} {vote} {}", log.lc));
            }
            ["DECISION", tx, decision, lc] => {
                log.recv(lc.parse().unwrap());
                let state = if *decision == "commit" { "committed" } else { "aborted" };
                log.event("RecvDecision", &format!("\"tx\":{tx},\"decision\":\"{decision}\",\"state\":\"{state}\""));
                rng.pause();
                send(&mut stream, &format!("ACK {tx} {}", log.lc));
            }
            ["BYE"] => break,
            _ => panic!("{name}: bad message {line:?}"),
        }
    }
}

// ---------------------------------------------------------------- coordinator process
enum Msg {
    Vote { from: String, tx: u64, yes: bool, lc: u64 },
    Ack { from: String, tx: u64, lc: u64 },
}

fn coordinator(seed: u64, out: &str, n: usize, txs: u64) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    let exe = std::env::current_exe().unwrap();
    let names: Vec<String> = (1..=n).map(|i| format!("p{i}")).collect();
    let tmp = std::env::temp_dir().join(format!("twophase-{}-{}", std::process::id(), seed));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut children: Vec<Child> = names
        .iter()
        .map(|p| {
            Command::new(&exe)
                .args(["--participant", p, &port.to_string(), &seed.to_string()])
                .arg(tmp.join(format!("{p}.ndjson")))
                .spawn()
                .expect("spawn participant")
        })
        .collect();

    // accept all participants; one reader thread per connection feeds the coordinator loop
    let (txc, rxc) = mpsc::channel::<Msg>();
    let mut conns: BTreeMap<String, TcpStream> = BTreeMap::new();
    while conns.len() < n {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut hello = String::new();
        reader.read_line(&mut hello).unwrap();
        let who = hello.trim().strip_prefix("HELLO ").expect("HELLO").to_string();
        let txc = txc.clone();
        let from = who.clone();
        thread::spawn(move || {
            for line in reader.lines() {
                let Ok(line) = line else { break };
                let f: Vec<&str> = line.split_whitespace().collect();
                let msg = match f.as_slice() {
                    ["VOTE", tx, v, lc] => {
                        Msg::Vote { from: from.clone(), tx: tx.parse().unwrap(), yes: *v == "yes", lc: lc.parse().unwrap() }
                    }
                    ["ACK", tx, lc] => Msg::Ack { from: from.clone(), tx: tx.parse().unwrap(), lc: lc.parse().unwrap() },
                    _ => panic!("coordinator: bad message {line:?}"),
                };
                if txc.send(msg).is_err() {
                    break;
                }
            }
        });
        conns.insert(who, stream);
    }

    let coord_log = tmp.join("coordinator.ndjson");
    let mut log = Log::new("coordinator", coord_log.to_str().unwrap());
    let mut rng = Rng::new(seed * 7_919);
    let plist: Vec<String> = names.iter().map(|p| format!("\"{p}\"")).collect();
    log.event(
        "Init",
        &format!("\"participants\":[{}],\"transactions\":{txs},\"tx\":1,\"tm_state\":\"init\"", plist.join(",")),
    );
    let wait = Duration::from_secs(10);
    for tx in 1..=txs {
        rng.pause();
        log.tick();
        log.event("SendPrepare", &format!("\"tx\":{tx},\"tm_state\":\"collecting\""));
        for s in conns.values_mut() {
            send(s, &format!("PREPARE {tx} {}", log.lc));
        }
        let mut all_yes = true;
        for _ in 0..n {
            match rxc.recv_timeout(wait).expect("vote timeout") {
                Msg::Vote { from, tx: t, yes, lc } => {
                    assert_eq!(t, tx);
                    log.recv(lc);
                    all_yes &= yes;
                    let v = if yes { "yes" } else { "no" };
                    log.event("RecvVote", &format!("\"from\":\"{from}\",\"tx\":{tx},\"vote\":\"{v}\""));
                }
                Msg::Ack { .. } => panic!("unexpected ACK"),
            }
        }
        rng.pause();
        let (decision, state) = if all_yes { ("commit", "committed") } else { ("abort", "aborted") };
        log.tick();
        log.event("Decide", &format!("\"tx\":{tx},\"decision\":\"{decision}\",\"tm_state\":\"{state}\""));
        for s in conns.values_mut() {
            send(s, &format!("DECISION {tx} {decision} {}", log.lc));
        }
        for _ in 0..n {
            match rxc.recv_timeout(wait).expect("ack timeout") {
                Msg::Ack { from, tx: t, lc } => {
                    assert_eq!(t, tx);
                    log.recv(lc);
                    log.event("RecvAck", &format!("\"from\":\"{from}\",\"tx\":{tx}"));
                }
                Msg::Vote { .. } => panic!("unexpected VOTE"),
            }
        }
        log.tick();
        log.event("Complete", &format!("\"tx\":{},\"tm_state\":\"init\"", tx + 1));
    }
    for s in conns.values_mut() {
        send(s, "BYE");
    }
    for c in children.iter_mut() {
        let st = c.wait().unwrap();
        assert!(st.success(), "participant failed: {st}");
    }
    drop(log);

    // merge the per-process logs by (lc, actor)
    let mut events: Vec<(u64, String, String)> = Vec::new();
    let mut files = vec![coord_log];
    files.extend(names.iter().map(|p| tmp.join(format!("{p}.ndjson"))));
    for f in &files {
        let actor = f.file_stem().unwrap().to_string_lossy().to_string();
        for line in BufReader::new(File::open(f).unwrap()).lines() {
            let line = line.unwrap();
            let lc: u64 = line["{\"lc\":".len()..].split(',').next().unwrap().parse().unwrap();
            events.push((lc, actor.clone(), line));
        }
    }
    events.sort();
    let mut w = BufWriter::new(File::create(out).expect("output"));
    for (_, _, line) in events {
        writeln!(w, "{line}").unwrap();
    }
    std::fs::remove_dir_all(&tmp).ok();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 6 && args[1] == "--participant" {
        participant(&args[2], args[3].parse().unwrap(), args[4].parse().unwrap(), &args[5]);
        return;
    }
    if args.len() < 3 {
        eprintln!("usage: {} SEED OUT.ndjson [PARTICIPANTS] [TXS]", args[0]);
        std::process::exit(2);
    }
    let seed: u64 = args[1].parse().expect("SEED");
    let n: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(3);
    let txs: u64 = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(2);
    assert!((1..=9).contains(&n) && txs <= 20, "PARTICIPANTS 1..9, TXS 0..20");
    coordinator(seed, &args[2], n, txs);
}
