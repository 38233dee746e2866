//! The functions a task defines inside `verus!`, for choosing its target by name (a target is an
//! exec or proof function with a real body, never a spec function or a trusted stub), with
//! their byte offsets and those of the `verus!` blocks, for tools that edit a file in place.

use serde_json::{json, Value};

use crate::items::{parse, FnNode, Kind, Node};

/// `{"functions": [{"name", "mode", "body", "stub", "line", "container", "start", "head",
/// "open", "close"}], "verus": [[open, close]]}`: `start` is where the function's attributes
/// begin, `head` where the rest begins, `open`/`close` the bytes just inside its body's braces
/// (null without a body); each `verus!` block likewise.
pub fn functions(text: &str) -> Result<Value, String> {
    let parsed = parse(text).map_err(|e| e.reason)?;
    let (mut fns, mut blocks) = (Vec::new(), Vec::new());
    walk(&parsed.nodes, false, "", &mut fns, &mut blocks);
    Ok(json!({"functions": fns, "verus": blocks}))
}

fn mode(f: &FnNode) -> &'static str {
    use verus_syn::FnMode;
    match f.sig.mode {
        FnMode::Spec(_) | FnMode::SpecChecked(_) => "spec",
        FnMode::Proof(_) => "proof",
        FnMode::ProofAxiom(_) => "axiom",
        FnMode::Exec(_) | FnMode::Default => "exec",
    }
}

fn walk(
    nodes: &[Node],
    in_verus: bool,
    container: &str,
    fns: &mut Vec<Value>,
    blocks: &mut Vec<Value>,
) {
    for node in nodes {
        match node {
            Node::Fn(f) if in_verus => {
                let braces = f.block.as_ref().map(|b| b.brace_token.span);
                fns.push(json!({
                    "name": f.name,
                    "mode": mode(f),
                    "body": f.block.is_some(),
                    "stub": f.is_stub(),
                    "line": f.line,
                    "container": container,
                    "start": f.span.start,
                    "head": f.head,
                    "open": braces.map(|b| b.open().byte_range().end),
                    "close": braces.map(|b| b.close().byte_range().start),
                }));
            }
            Node::Container {
                kind,
                children,
                key,
                open,
                span,
                ..
            } => {
                if *kind == Kind::Verus {
                    blocks.push(json!([open, span.end.saturating_sub(1)]));
                }
                let inner = if *kind == Kind::Verus {
                    container
                } else {
                    key.as_str()
                };
                walk(children, in_verus || *kind == Kind::Verus, inner, fns, blocks);
            }
            _ => {}
        }
    }
}
