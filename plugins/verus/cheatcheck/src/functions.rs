//! The functions a task defines inside `verus!`, for choosing its target by name: a target is
//! an exec or proof function with a real body (not a trusted stub), never a spec function.

use serde_json::{json, Value};

use crate::items::{parse, FnNode, Kind, Node};

pub fn functions(text: &str) -> Result<Vec<Value>, String> {
    let parsed = parse(text).map_err(|e| e.reason)?;
    let mut out = Vec::new();
    walk(&parsed.nodes, false, "", &mut out);
    Ok(out)
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

fn walk(nodes: &[Node], in_verus: bool, container: &str, out: &mut Vec<Value>) {
    for node in nodes {
        match node {
            Node::Fn(f) if in_verus => out.push(json!({
                "name": f.name,
                "mode": mode(f),
                "body": f.block.is_some(),
                "stub": f.is_stub(),
                "line": f.line,
                "container": container,
            })),
            Node::Container { kind, children, key, .. } => {
                let inner = if *kind == Kind::Verus { container } else { key.as_str() };
                walk(children, in_verus || *kind == Kind::Verus, inner, out);
            }
            _ => {}
        }
    }
}
