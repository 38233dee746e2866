//! verus-cheatcheck: does a candidate Verus file only add proof code to its task?
//!
//! Both files are parsed with `verus_syn` (the parser Verus itself uses) and compared as syntax
//! trees with their layout erased (`layout.rs`), names resolved as Rust resolves them
//! (`lex.rs`, `attrs.rs`) and ghost code erased where executable code must stay (`ghost.rs`);
//! `rules.rs` states the rules.
//!
//! Protocol: stdin holds one JSON request per line, `{"id": .., "mode": .., ...}`; each answer is
//! one line on stdout, written as soon as it is ready (with `--jobs N` answers may come out of
//! order: match them by `id`). One process serves any number of requests, so a benchmark (or a
//! whole run of the kernel) costs one start-up. Modes:
//!
//! * `check` (the default): `original`, `candidate`, `target` (a name or null: every exec or
//!   proof function with a real body) → `{"id", "violations": [{"rule", "reason", "line"}]}`,
//!   an empty list meaning the candidate is safe;
//! * `transplant`: `original` a task, `candidate` its ground truth, `target` →
//!   `{"id", "text"}` (see `transplant.rs`) or `{"id", "error"}`;
//! * `functions`: `original` → `{"id", "functions": [..], "verus": [..]}` (see
//!   `functions.rs`) or `{"id", "error"}`.

mod attrs;
mod claims;
mod functions;
mod ghost;
mod items;
mod layout;
mod lex;
mod rules;
mod transplant;

use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (verus_syn 0.0.0-2026-11-01-0251)"
);

/// Each worker's stack: the parser recurses once per nesting level, and `lex::MAX_NESTING`
/// levels of the deepest construct fit well within this.
const STACK: usize = 512 << 20;

fn answer(request: &Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let field = |name: &str| request.get(name).and_then(Value::as_str);
    if let Some(error) = field("error") {
        return json!({"id": id, "error": error});
    }
    let crashed = || "the Verus parser crashed on this input".to_string();
    let (Some(original), candidate) = (field("original"), field("candidate")) else {
        return json!({"id": id, "error": "request lacks `original` text"});
    };
    match field("mode").unwrap_or("check") {
        "check" => {
            let Some(candidate) = candidate else {
                return json!({"id": id, "error": "request lacks `candidate` text"});
            };
            let target = field("target");
            let found = catch_unwind(AssertUnwindSafe(|| rules::check(original, candidate, target)))
                .unwrap_or_else(|_| vec![rules::Violation { rule: "parse", reason: crashed(), line: 0 }]);
            let list: Vec<Value> = found
                .iter()
                .map(|v| json!({"rule": v.rule, "reason": v.reason, "line": v.line}))
                .collect();
            json!({"id": id, "violations": list})
        }
        "transplant" => {
            let Some(truth) = candidate else {
                return json!({"id": id, "error": "request lacks `candidate` text"});
            };
            let result = catch_unwind(AssertUnwindSafe(|| {
                transplant::transplant(original, truth, field("target"))
            }))
            .unwrap_or_else(|_| Err(crashed()));
            match result {
                Ok(text) => json!({"id": id, "text": text}),
                Err(error) => json!({"id": id, "error": error}),
            }
        }
        "functions" => {
            match catch_unwind(|| functions::functions(original)).unwrap_or_else(|_| Err(crashed()))
            {
                Ok(mut listing) => {
                    listing["id"] = id;
                    listing
                }
                Err(error) => json!({"id": id, "error": error}),
            }
        }
        other => json!({"id": id, "error": format!("unknown mode `{other}`")}),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--version") {
        println!("verus-cheatcheck {VERSION}");
        return;
    }
    let jobs = args
        .iter()
        .position(|a| a == "--jobs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, 64);
    std::panic::set_hook(Box::new(|_| {}));
    let (send, receive) = mpsc::channel::<String>();
    let receive = Arc::new(Mutex::new(receive));
    let stdout = Arc::new(Mutex::new(std::io::stdout()));
    let workers: Vec<_> = (0..jobs)
        .map(|_| {
            let receive = Arc::clone(&receive);
            let stdout = Arc::clone(&stdout);
            std::thread::Builder::new()
                .stack_size(STACK)
                .spawn(move || loop {
                    let line = match receive.lock().expect("queue").recv() {
                        Ok(line) => line,
                        Err(_) => break,
                    };
                    let request = serde_json::from_str::<Value>(&line)
                        .unwrap_or_else(|e| json!({"id": null, "error": e.to_string()}));
                    let reply = answer(&request);
                    // Every span of this request is gone: the thread's source map starts over.
                    proc_macro2::extra::invalidate_current_thread_spans();
                    let mut out = stdout.lock().expect("stdout");
                    if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
                        std::process::exit(0);
                    }
                })
                .expect("worker thread")
        })
        .collect();
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        if !line.trim().is_empty() && send.send(line).is_err() {
            break;
        }
    }
    drop(send);
    for worker in workers {
        let _ = worker.join();
    }
}
