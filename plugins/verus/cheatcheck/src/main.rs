//! verus-cheatcheck: does a candidate Verus file only add proof code to its task?
//!
//! The candidate and the task are both parsed with `verus_syn` (the parser Verus itself uses), so
//! the rules below are checked on the Verus syntax tree, never on text:
//!
//! * the counts of `assume(..)`, `admit()`, `#[verifier::external_body]` and `#[verifier::admit]`
//!   are equal in both files;
//! * every item of the task is still there and unchanged, recursively inside `verus!`, `impl`,
//!   `trait` and `mod` blocks. What does not count: comments and doc comments, layout and
//!   list-ending commas, item order (the benchmark's own solutions move the target), the
//!   solver-tuning verifier attributes, and the `decreases` of a proof or exec function (Verus
//!   checks it where the body is verified; stubs have none to check). A `global` fact may be
//!   dropped (fewer facts prove less). `fn main` outside `verus!` may change its body: Verus
//!   never sees it;
//! * the target function(s) may gain proof code only: their attributes may gain the allowed
//!   verifier attributes, their signature may gain `decreases`, `opens_invariants` and a
//!   `by(..)` prover, an exec body must be unchanged once its ghost code is removed, a proof
//!   body is free;
//! * a new item is a `spec` or `proof` function that is no axiom, an inherent `impl` holding
//!   only such functions, a `use`, or a `macro_rules!` (its tokens are counted like the rest of
//!   the file; it may not take the name of a vstd proof macro).
//!
//! Protocol (one process serves many pairs): stdin holds one JSON object per line,
//! `{"id": .., "original": .., "candidate": .., "target": name or null}`; after end of input,
//! stdout holds one line per request in input order, `{"id": .., "violations": [{"rule": ..,
//! "reason": .., "line": ..}]}`. An empty violation list means the candidate is safe.
//!
//! With `--transplant`, `original` is a task and `candidate` its ground truth, and the answer is
//! `{"id": .., "text": ..}`: the task with its target function(s) replaced by the ground truth's
//! and the ground truth's new items that the rules allow inserted, every other byte the task's
//! (or `{"id": .., "error": ..}` when either file does not parse).

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{BufRead, Write};
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::ToTokens;
use serde_json::{json, Value};
use verus_syn::spanned::Spanned;
use verus_syn::visit_mut::{self, VisitMut};
use verus_syn::{
    Attribute, Block, Expr, ExprCall, ExprForLoop, ExprLoop, ExprWhile, File, FnMode, ImplItem,
    Item, Signature, Stmt, TraitItem, UnOp, UseTree, Visibility,
};

const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (verus_syn 0.0.0-2026-11-01-0251)"
);

/// Verifier attributes a proof may add to its target function: they tune the solver, never the
/// meaning of the function.
const ALLOWED_ATTRIBUTES: [&str; 5] = [
    "rlimit",
    "integer_ring",
    "memoize",
    "loop_isolation",
    "spinoff_prover",
];

/// vstd's proof macros, which exec code may call as statements: they expand to proof blocks.
const PROOF_MACROS: [&str; 6] = [
    "assert_seqs_equal",
    "assert_sets_equal",
    "assert_maps_equal",
    "assert_by_contradiction",
    "assert_nonlinear_by",
    "assert_bitvector_by",
];

/// Attributes that make a function's body unchecked: a new function carrying one is an axiom.
const UNCHECKED_ATTRIBUTES: [&str; 4] =
    ["external_body", "external", "admit", "assume_specification"];

/// The constructs whose number must not change: each one assumes a fact instead of proving it.
const COUNTED: [&str; 4] = [
    "assume(",
    "admit()",
    "#[verifier::external_body]",
    "#[verifier::admit]",
];

struct Violation {
    rule: &'static str,
    reason: String,
    line: usize,
}

fn violation(rule: &'static str, line: usize, reason: String) -> Violation {
    Violation { rule, reason, line }
}

fn line_of<T: Spanned>(node: &T) -> usize {
    node.span().start().line
}

/// Token text with all whitespace removed: the canonical form of a small token stream.
fn compact(tokens: TokenStream) -> String {
    tokens
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Keywords that open a specification clause: a comma before one ends a clause list.
const CLAUSE_KEYWORDS: [&str; 9] = [
    "requires",
    "ensures",
    "recommends",
    "decreases",
    "invariant",
    "invariant_except_break",
    "opens_invariants",
    "returns",
    "no_unwind",
];

/// The canonical text of a syntax node: its tokens, minus the commas that only end a list
/// (`(a, b,)`, `ensures x, {`); a one-element tuple's comma is kept.
fn canon<T: ToTokens>(node: &T) -> String {
    let mut out = String::new();
    canon_into(node.to_token_stream(), true, &mut out);
    out
}

/// `top`: the node's own stream, where a final comma ends a clause list (a group's final comma
/// is dealt with by the group).
fn canon_into(tokens: TokenStream, top: bool, out: &mut String) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let inner_commas = inner
                    .iter()
                    .filter(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                    .count();
                let one_tuple = g.delimiter() == Delimiter::Parenthesis && inner_commas == 1;
                let trailing =
                    matches!(inner.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',');
                let keep = inner.len() - usize::from(trailing && !one_tuple);
                canon_into(inner.into_iter().take(keep).collect(), false, out);
                out.push_str(close);
                out.push(' ');
            }
            TokenTree::Punct(p) if p.as_char() == ',' => {
                let ends_list = match trees.get(i + 1) {
                    None => top,
                    Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::Brace,
                    Some(TokenTree::Ident(id)) => CLAUSE_KEYWORDS.iter().any(|k| id == k),
                    _ => false,
                };
                if !ends_list {
                    out.push_str(", ");
                }
            }
            other => {
                out.push_str(&other.to_string());
                if !matches!(other, TokenTree::Punct(p) if p.spacing() == proc_macro2::Spacing::Joint)
                {
                    out.push(' ');
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------ counts

fn count_constructs(tokens: &TokenStream, counts: &mut [usize; 4]) {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) => {
                if let Some(TokenTree::Group(g)) = trees.get(i + 1) {
                    if g.delimiter() == Delimiter::Parenthesis {
                        if ident == "assume" {
                            counts[0] += 1;
                        } else if ident == "admit" && g.stream().is_empty() {
                            counts[1] += 1;
                        }
                    }
                }
            }
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = trees.get(i + 1) {
                    if g.delimiter() == Delimiter::Bracket {
                        match compact(g.stream()).as_str() {
                            "verifier::external_body" | "verifier(external_body)" => counts[2] += 1,
                            "verifier::admit" | "verifier(admit)" => counts[3] += 1,
                            _ => {}
                        }
                    }
                }
            }
            TokenTree::Group(g) => count_constructs(&g.stream(), counts),
            _ => {}
        }
    }
}

// ------------------------------------------------------------------------------------ parsing

fn is_doc(group: &Group) -> bool {
    group.delimiter() == Delimiter::Bracket
        && matches!(group.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc")
}

/// The token stream without doc comments (`///`, `//!`, `#[doc = ..]`): prose is no part of
/// what a proof may or may not change.
fn strip_docs(tokens: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        if let TokenTree::Punct(p) = &trees[i] {
            if p.as_char() == '#' {
                let bang =
                    matches!(trees.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == '!');
                let at = if bang { i + 2 } else { i + 1 };
                if let Some(TokenTree::Group(g)) = trees.get(at) {
                    if is_doc(g) {
                        i = at + 1;
                        continue;
                    }
                }
            }
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), strip_docs(g.stream()));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// A function wherever it sits (module, impl, trait), with what the rules look at.
#[derive(Clone)]
struct FnNode {
    attrs: Vec<Attribute>,
    vis: Option<Visibility>,
    sig: Signature,
    block: Option<Block>,
    line: usize,
    /// Its bytes in the source text (attributes but doc comments included), for `transplant`.
    span: Range<usize>,
}

impl FnNode {
    fn text(&self) -> String {
        // The allowed verifier attributes only tune the solver, on any function.
        let mut tokens = TokenStream::new();
        for attr in without_attrs(&self.attrs) {
            attr.to_tokens(&mut tokens);
        }
        self.vis.to_tokens(&mut tokens);
        let mut sig = self.sig.clone();
        if !self.is_spec() {
            // A proof or exec function's termination measure is checked by Verus wherever it
            // is verified and unused where it is not (the task's trusted stubs, to which the
            // benchmark's own solutions add `decreases`): changing it proves nothing false.
            sig.spec.decreases = None;
        }
        sig.to_tokens(&mut tokens);
        self.block.to_tokens(&mut tokens);
        canon(&tokens)
    }

    /// Without its body: `fn main` outside `verus!` is plain Rust that Verus never looks at, and
    /// Verus-Bench's solutions fill it with test calls.
    fn header_text(&self) -> String {
        FnNode {
            block: None,
            ..self.clone()
        }
        .text()
    }

    fn is_spec(&self) -> bool {
        matches!(self.sig.mode, FnMode::Spec(_) | FnMode::SpecChecked(_))
    }

    fn is_proof(&self) -> bool {
        matches!(self.sig.mode, FnMode::Proof(_) | FnMode::ProofAxiom(_))
    }

    /// Context functions of a task are trusted stubs: `external_body` or `unimplemented!()`.
    fn is_stub(&self) -> bool {
        self.attrs
            .iter()
            .any(|a| has_verifier_flag(a, "external_body"))
            || self
                .block
                .as_ref()
                .is_some_and(|b| compact(b.to_token_stream()).contains("unimplemented!()"))
    }
}

enum Node {
    Fn(Box<FnNode>),
    /// `verus!`, `impl`, `trait`, `mod`: a header plus items compared one by one;
    /// `addable` for an inherent `impl`, which a proof may add to hold its new lemmas.
    Container {
        key: String,
        header: String,
        children: Vec<Node>,
        line: usize,
        addable: bool,
        span: Range<usize>,
        /// The byte just after the opening brace (0 for the file itself).
        open: usize,
    },
    /// Any other item, compared as a whole; `addable` for the items a proof may add (`use`).
    Leaf {
        key: String,
        text: String,
        addable: bool,
        line: usize,
        span: Range<usize>,
    },
}

impl Node {
    fn key(&self) -> String {
        match self {
            Node::Fn(f) => format!("fn {}", f.sig.ident),
            Node::Container { key, .. } | Node::Leaf { key, .. } => key.clone(),
        }
    }

    fn span(&self) -> Range<usize> {
        match self {
            Node::Fn(f) => f.span.clone(),
            Node::Container { span, .. } | Node::Leaf { span, .. } => span.clone(),
        }
    }

    fn line(&self) -> usize {
        match self {
            Node::Fn(f) => f.line,
            Node::Container { line, .. } | Node::Leaf { line, .. } => *line,
        }
    }

    fn describe(&self) -> String {
        let key = self.key();
        let short: String = key.chars().take(80).collect();
        if short.len() < key.len() {
            format!("{short}...")
        } else {
            short
        }
    }
}

fn leaf<T: ToTokens + Spanned>(kind: &str, name: Option<String>, item: &T, addable: bool) -> Node {
    let text = canon(&item);
    let key = match name {
        Some(name) => format!("{kind} {name}"),
        None => format!("{kind} {text}"),
    };
    Node::Leaf {
        key,
        text,
        addable,
        line: line_of(item),
        span: first_byte(item.to_token_stream()).unwrap_or(0)
            ..last_byte(item.to_token_stream()).unwrap_or(0),
    }
}

fn without_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| !is_allowed_attribute(a))
        .cloned()
        .collect()
}

/// The node for one item; takes the item apart rather than copying it.
fn item_node(item: Item) -> Result<Node, Violation> {
    Ok(match item {
        Item::Fn(f) => Node::Fn(Box::new(FnNode {
            line: line_of(&f.sig.ident),
            span: fn_span(&f.attrs, Some(&f.vis), &f.sig, Some(&*f.block), f.semi_token),
            block: if f.semi_token.is_some() {
                None
            } else {
                Some(*f.block)
            },
            attrs: f.attrs,
            vis: Some(f.vis),
            sig: f.sig,
        })),
        Item::Macro(m) if m.mac.path.is_ident("verus") => {
            let braces = m.mac.delimiter.span();
            let span = start_of(&m.attrs, m.mac.path.to_token_stream())
                ..braces.close().byte_range().end;
            let open = braces.open().byte_range().end;
            let file: File = verus_syn::parse2(m.mac.tokens).map_err(parse_violation)?;
            Node::Container {
                span,
                open,
                addable: false,
                key: "verus!".to_string(),
                header: compact(file.attrs.iter().map(|a| a.to_token_stream()).collect()),
                children: file
                    .items
                    .into_iter()
                    .map(item_node)
                    .collect::<Result<_, _>>()?,
                line: line_of(&m.mac.path),
            }
        }
        Item::Impl(mut i) => {
            let items = std::mem::take(&mut i.items);
            let attrs = std::mem::take(&mut i.attrs);
            let key = format!("impl {}", i.to_token_stream());
            let line = line_of(&i.impl_token);
            let span = start_of(&attrs, i.to_token_stream())..i.brace_token.span.close().byte_range().end;
            let open = i.brace_token.span.open().byte_range().end;
            i.attrs = without_attrs(&attrs);
            Node::Container {
                span,
                open,
                addable: i.trait_.is_none(),
                key,
                header: canon(&i),
                children: items.into_iter().map(impl_item_node).collect(),
                line,
            }
        }
        Item::Trait(mut t) => {
            let items = std::mem::take(&mut t.items);
            let span = start_of(&t.attrs, t.to_token_stream())..t.brace_token.span.close().byte_range().end;
            let open = t.brace_token.span.open().byte_range().end;
            t.attrs = without_attrs(&t.attrs);
            Node::Container {
                span,
                open,
                addable: false,
                key: format!("trait {}", t.ident),
                header: canon(&t),
                children: items.into_iter().map(trait_item_node).collect(),
                line: line_of(&t.ident),
            }
        }
        Item::Mod(mut m) if m.content.is_some() => {
            let items = m
                .content
                .as_mut()
                .map(|(_, items)| std::mem::take(items))
                .unwrap_or_default();
            let braces = m.content.as_ref().map(|(brace, _)| brace.span);
            let span = start_of(&m.attrs, m.to_token_stream())
                ..braces.map_or(0, |b| b.close().byte_range().end);
            let open = braces.map_or(0, |b| b.open().byte_range().end);
            Node::Container {
                span,
                open,
                addable: false,
                key: format!("mod {}", m.ident),
                header: canon(&m),
                children: items.into_iter().map(item_node).collect::<Result<_, _>>()?,
                line: line_of(&m.ident),
            }
        }
        Item::Use(u) => leaf("use", None, &u, true),
        // A macro's expansion holds no more than its tokens, which the counts already cover.
        Item::Macro(m) if m.ident.is_some() => {
            let name = m.ident.as_ref().map(ToString::to_string);
            leaf("macro_rules", name, &m, true)
        }
        Item::BroadcastUse(u) => leaf("broadcast use", None, &u, true),
        Item::Struct(s) => leaf("struct", Some(s.ident.to_string()), &s, false),
        Item::Enum(e) => leaf("enum", Some(e.ident.to_string()), &e, false),
        Item::Union(u) => leaf("union", Some(u.ident.to_string()), &u, false),
        Item::Type(t) => leaf("type", Some(t.ident.to_string()), &t, false),
        Item::Const(c) => leaf("const", Some(c.ident.to_string()), &c, false),
        Item::Static(s) => leaf("static", Some(s.ident.to_string()), &s, false),
        Item::Mod(m) => leaf("mod", Some(m.ident.to_string()), &m, false),
        Item::Global(g) => leaf("global", None, &g, false),
        other => leaf("item", None, &other, false),
    })
}

fn impl_item_node(item: ImplItem) -> Node {
    match item {
        ImplItem::Fn(f) => Node::Fn(Box::new(FnNode {
            line: line_of(&f.sig.ident),
            span: fn_span(&f.attrs, Some(&f.vis), &f.sig, Some(&f.block), f.semi_token),
            block: if f.semi_token.is_some() {
                None
            } else {
                Some(f.block)
            },
            attrs: f.attrs,
            vis: Some(f.vis),
            sig: f.sig,
        })),
        ImplItem::Const(c) => leaf("const", Some(c.ident.to_string()), &c, false),
        ImplItem::Type(t) => leaf("type", Some(t.ident.to_string()), &t, false),
        other => leaf("item", None, &other, false),
    }
}

fn trait_item_node(item: TraitItem) -> Node {
    match item {
        TraitItem::Fn(f) => Node::Fn(Box::new(FnNode {
            line: line_of(&f.sig.ident),
            span: fn_span(&f.attrs, None, &f.sig, f.default.as_ref(), f.semi_token),
            attrs: f.attrs,
            vis: None,
            sig: f.sig,
            block: f.default,
        })),
        TraitItem::Const(c) => leaf("const", Some(c.ident.to_string()), &c, false),
        TraitItem::Type(t) => leaf("type", Some(t.ident.to_string()), &t, false),
        other => leaf("item", None, &other, false),
    }
}

// ------------------------------------------------------------------------------------ spans

/// Where the first token with a place in the source starts (tokens the printer makes up have
/// none).
fn first_byte(tokens: TokenStream) -> Option<usize> {
    tokens
        .into_iter()
        .map(|t| t.span().byte_range())
        .find(|r| !r.is_empty())
        .map(|r| r.start)
}

fn last_byte(tokens: TokenStream) -> Option<usize> {
    tokens
        .into_iter()
        .map(|t| t.span().byte_range())
        .filter(|r| !r.is_empty())
        .last()
        .map(|r| r.end)
}

/// The start of an item: its first attribute, else the first token of the rest.
fn start_of(attrs: &[Attribute], rest: TokenStream) -> usize {
    attrs
        .first()
        .map(|a| a.pound_token.span.byte_range().start)
        .or_else(|| first_byte(rest))
        .unwrap_or(0)
}

fn fn_span(
    attrs: &[Attribute],
    vis: Option<&Visibility>,
    sig: &Signature,
    block: Option<&Block>,
    semi: Option<verus_syn::token::Semi>,
) -> Range<usize> {
    let mut head = vis.map(ToTokens::to_token_stream).unwrap_or_default();
    sig.to_tokens(&mut head);
    let end = match (semi, block) {
        (Some(semi), _) => semi.span.byte_range().end,
        (None, Some(block)) => block.brace_token.span.close().byte_range().end,
        (None, None) => last_byte(head.clone()).unwrap_or(0),
    };
    start_of(attrs, head)..end
}

fn parse_violation(err: verus_syn::Error) -> Violation {
    violation(
        "parse",
        err.span().start().line,
        format!("does not parse as Verus: {err}"),
    )
}

/// Deeper bracket nesting than any real proof has: refused before the recursive parser could
/// run out of stack on it.
const MAX_NESTING: usize = 1000;

/// The line where brackets first nest deeper than `MAX_NESTING` (counted over the raw text, so
/// brackets in strings and comments count too: harmless at this depth).
fn too_deep(text: &str) -> Option<usize> {
    let (mut depth, mut line) = (0usize, 1);
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '\n' => line += 1,
            _ => {}
        }
        if depth > MAX_NESTING {
            return Some(line);
        }
    }
    None
}

/// The file's counted constructs and its items.
fn parse(text: &str) -> Result<([usize; 4], Vec<Node>), Violation> {
    if let Some(line) = too_deep(text) {
        return Err(violation(
            "parse",
            line,
            format!("brackets nest deeper than {MAX_NESTING}"),
        ));
    }
    let tokens = TokenStream::from_str(text).map_err(|e| {
        violation(
            "parse",
            e.span().start().line,
            format!("does not lex as Rust: {e}"),
        )
    })?;
    let mut counts = [0; 4];
    count_constructs(&tokens, &mut counts);
    let file: File = verus_syn::parse2(strip_docs(tokens)).map_err(parse_violation)?;
    let mut nodes = Vec::new();
    if !file.attrs.is_empty() {
        let attrs: TokenStream = file.attrs.iter().map(|a| a.to_token_stream()).collect();
        nodes.push(Node::Leaf {
            key: "inner attributes".to_string(),
            text: attrs.to_string(),
            addable: false,
            line: 1,
            span: 0..0,
        });
    }
    for item in file.items {
        nodes.push(item_node(item)?);
    }
    Ok((counts, nodes))
}

// ------------------------------------------------------------------------------------ attributes

/// `#[verifier::name..]` or `#[verifier(name..)]`.
fn has_verifier_flag(attr: &Attribute, name: &str) -> bool {
    let text = compact(attr.to_token_stream());
    let rest = text
        .strip_prefix("#[verifier::")
        .or_else(|| text.strip_prefix("#[verifier("))
        .unwrap_or("");
    rest.strip_prefix(name)
        .is_some_and(|tail| tail.starts_with(']') || tail.starts_with('(') || tail.starts_with(')'))
}

fn is_allowed_attribute(attr: &Attribute) -> bool {
    ALLOWED_ATTRIBUTES
        .iter()
        .any(|name| has_verifier_flag(attr, name))
}

// ------------------------------------------------------------------------------------ ghost code

/// Removes everything Verus erases before compiling: what remains of an exec body is the code
/// that runs, which a proof must leave as it was.
struct Deghost;

fn is_ghost_wrapper(expr: &Expr) -> bool {
    matches!(expr, Expr::Path(p) if p.path.is_ident("Ghost") || p.path.is_ident("Tracked"))
}

fn is_ghost_stmt(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Local(local) => {
            local.ghost.is_some()
                || local.tracked.is_some()
                || local.init.as_ref().is_some_and(|init| {
                    init.diverge.is_none()
                        && matches!(&*init.expr, Expr::Call(call) if is_ghost_wrapper(&call.func))
                })
        }
        Stmt::Expr(expr, _) => match expr {
            Expr::Assert(_) | Expr::AssertForall(_) | Expr::Assume(_) | Expr::RevealHide(_) => true,
            Expr::Unary(unary) => matches!(unary.op, UnOp::Proof(_)),
            Expr::Macro(m) => is_proof_macro(&m.mac.path),
            _ => false,
        },
        Stmt::Item(Item::BroadcastUse(_)) => true,
        Stmt::Macro(m) => is_proof_macro(&m.mac.path),
        _ => false,
    }
}

fn is_proof_macro(path: &verus_syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| PROOF_MACROS.iter().any(|name| s.ident == name))
}

/// Clears what a loop of any kind (while, loop, for) may carry as proof: allowed verifier
/// attributes, invariants, ensures and decreases. The three loop types share these fields
/// without sharing a type, hence a macro.
macro_rules! strip_loop_proof {
    ($e:ident) => {
        $e.attrs.retain(|a| !is_allowed_attribute(a));
        $e.invariant_except_break = None;
        $e.invariant = None;
        $e.ensures = None;
        $e.decreases = None;
    };
}

impl VisitMut for Deghost {
    fn visit_block_mut(&mut self, block: &mut Block) {
        block.stmts.retain(|stmt| !is_ghost_stmt(stmt));
        for stmt in &mut block.stmts {
            // `x;` and `x` as a block's last statement only differ in the block's type, which
            // rustc checks: where both compile, `x` is `()` and they run alike.
            if let Stmt::Expr(_, semi) = stmt {
                *semi = None;
            }
        }
        visit_mut::visit_block_mut(self, block);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // Parentheses are grouping only: the tree already holds the precedence they spell.
        while let Expr::Paren(paren) = expr {
            let inner = std::mem::replace(&mut *paren.expr, Expr::Verbatim(TokenStream::new()));
            *expr = inner;
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_expr_call_mut(&mut self, call: &mut ExprCall) {
        if is_ghost_wrapper(&call.func) {
            call.args.clear();
        } else {
            visit_mut::visit_expr_call_mut(self, call);
        }
    }

    fn visit_expr_while_mut(&mut self, e: &mut ExprWhile) {
        strip_loop_proof!(e);
        e.invariant_ensures = None;
        visit_mut::visit_expr_while_mut(self, e);
    }

    fn visit_expr_loop_mut(&mut self, e: &mut ExprLoop) {
        strip_loop_proof!(e);
        e.invariant_ensures = None;
        visit_mut::visit_expr_loop_mut(self, e);
    }

    fn visit_expr_for_loop_mut(&mut self, e: &mut ExprForLoop) {
        strip_loop_proof!(e);
        e.expr_name = None;
        visit_mut::visit_expr_for_loop_mut(self, e);
    }
}

fn executable(block: &Block) -> Block {
    let mut block = block.clone();
    Deghost.visit_block_mut(&mut block);
    block
}

// ------------------------------------------------------------------------------------ rules

struct Checker<'a> {
    target: Option<&'a str>,
    /// Whether the items being compared sit inside a `verus!` block.
    in_verus: bool,
    out: Vec<Violation>,
}

impl Checker<'_> {
    /// Functions a proof may work on: the named target, or (no target named) every exec or
    /// proof function with a real body.
    fn is_target(&self, f: &FnNode) -> bool {
        self.in_verus && provable(f, self.target)
    }

    /// Each candidate item is matched to the first unused task item of the same kind and name;
    /// order is free (the benchmark's own solutions move the target among its neighbours, and
    /// item order means nothing to Rust). Task items left unmatched were removed or renamed.
    fn compare_lists(&mut self, original: &[Node], candidate: &[Node], end_line: usize) {
        let mut unused: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (i, orig) in original.iter().enumerate() {
            unused.entry(orig.key()).or_default().push_back(i);
        }
        let mut used = vec![false; original.len()];
        for cand in candidate {
            match unused.get_mut(&cand.key()).and_then(VecDeque::pop_front) {
                Some(i) => {
                    used[i] = true;
                    self.compare(&original[i], cand);
                }
                None => self.added(cand),
            }
        }
        for (i, orig) in original.iter().enumerate() {
            // A `global` line states a layout fact (`size_of usize == 8`) the proof may rely on;
            // dropping one leaves the proof with fewer facts, never more.
            if !used[i] && !orig.key().starts_with("global ") {
                self.removed(orig, end_line);
            }
        }
    }

    fn removed(&mut self, original: &Node, line: usize) {
        let what = match original {
            Node::Fn(f) if self.is_target(f) => "target function",
            _ => "item",
        };
        self.out.push(violation(
            "item-removed",
            line,
            format!(
                "{what} `{}` (task line {}) is missing",
                original.describe(),
                original.line()
            ),
        ));
    }

    fn added(&mut self, cand: &Node) {
        let reason = match cand {
            Node::Fn(f) => {
                let unchecked = f.attrs.iter().find(|a| {
                    UNCHECKED_ATTRIBUTES
                        .iter()
                        .any(|name| has_verifier_flag(a, name))
                });
                if let Some(attr) = unchecked {
                    Some(format!(
                        "new function `{}` is an axiom: {}",
                        f.sig.ident,
                        compact(attr.to_token_stream())
                    ))
                } else if matches!(f.sig.mode, FnMode::ProofAxiom(_)) {
                    Some(format!("new function `{}` is an axiom", f.sig.ident))
                } else if f.is_proof() && f.block.is_none() {
                    Some(format!("new proof function `{}` has no body", f.sig.ident))
                } else if !f.is_spec() && !f.is_proof() {
                    Some(format!(
                        "new function `{}` is executable; only spec and proof functions \
                                  may be added",
                        f.sig.ident
                    ))
                } else {
                    let body = f
                        .block
                        .as_ref()
                        .map(|b| b.to_token_stream())
                        .unwrap_or_default();
                    let mut counts = [0; 4];
                    count_constructs(&body, &mut counts);
                    (counts[0] + counts[1] > 0).then(|| {
                        format!("new function `{}` assumes instead of proving", f.sig.ident)
                    })
                }
            }
            Node::Leaf { key, .. }
                if PROOF_MACROS
                    .iter()
                    .any(|name| *key == format!("macro_rules {name}")) =>
            {
                Some(format!(
                    "new macro `{}` takes the name of a vstd proof macro",
                    cand.describe()
                ))
            }
            Node::Leaf { addable: true, .. } => None,
            Node::Container {
                addable: true,
                children,
                ..
            } => {
                for child in children {
                    self.added(child);
                }
                None
            }
            other => Some(format!(
                "new item `{}` is not allowed; only spec and proof functions \
                                   and uses may be added",
                other.describe()
            )),
        };
        if let Some(reason) = reason {
            self.out.push(violation("new-item", cand.line(), reason));
        }
    }

    fn compare(&mut self, original: &Node, cand: &Node) {
        match (original, cand) {
            (Node::Fn(o), Node::Fn(c)) if self.is_target(o) => self.compare_target(o, c),
            (Node::Fn(o), Node::Fn(c)) if !self.in_verus && o.sig.ident == "main" => {
                if o.header_text() != c.header_text() {
                    self.changed(original, cand);
                }
            }
            (Node::Fn(o), Node::Fn(c)) => {
                let same_tree =
                    o.attrs == c.attrs && o.vis == c.vis && o.sig == c.sig && o.block == c.block;
                if !same_tree && o.text() != c.text() {
                    self.changed(original, cand);
                }
            }
            (
                Node::Container {
                    header: oh,
                    children: oc,
                    ..
                },
                Node::Container {
                    header: ch,
                    children: cc,
                    line,
                    ..
                },
            ) => {
                if oh != ch {
                    self.changed(original, cand);
                }
                let end = cc.last().map_or(*line, Node::line);
                let outer = self.in_verus;
                self.in_verus |= original.key() == "verus!";
                self.compare_lists(oc, cc, end);
                self.in_verus = outer;
            }
            (Node::Leaf { text: ot, .. }, Node::Leaf { text: ct, .. }) if ot == ct => {}
            _ => self.changed(original, cand),
        }
    }

    fn changed(&mut self, original: &Node, cand: &Node) {
        self.out.push(violation(
            "item-changed",
            cand.line(),
            format!(
                "`{}` differs from the task (task line {})",
                original.describe(),
                original.line()
            ),
        ));
    }

    fn compare_target(&mut self, o: &FnNode, c: &FnNode) {
        let name = &o.sig.ident;
        let attrs =
            |f: &FnNode| -> String { without_attrs(&f.attrs).iter().map(|a| canon(&a)).collect() };
        if attrs(o) != attrs(c) {
            self.out.push(violation(
                "target-attributes",
                c.line,
                format!(
                    "target `{name}` changed attributes other than {}",
                    ALLOWED_ATTRIBUTES.join(", ")
                ),
            ));
        }
        if canon(&o.vis) != canon(&c.vis) {
            self.out.push(violation(
                "target-signature",
                c.line,
                format!("target `{name}` changed its visibility"),
            ));
        }
        let bare = |f: &FnNode| -> String {
            let mut sig = f.sig.clone();
            sig.erase_spec_fields();
            canon(&sig)
        };
        let contract = |f: &FnNode| -> String {
            let mut sig = f.sig.clone();
            sig.spec.decreases = None;
            sig.spec.invariants = None;
            sig.spec.prover = None;
            canon(&sig)
        };
        if bare(o) != bare(c) {
            self.out.push(violation(
                "target-signature",
                c.line,
                format!("target `{name}` changed its signature"),
            ));
        } else if contract(o) != contract(c) {
            self.out.push(violation(
                "target-spec",
                c.line,
                format!(
                "target `{name}` changed its specification (only decreases, opens_invariants and \
                 a by(..) prover may be added)"),
            ));
        }
        match (&o.block, &c.block) {
            (Some(_), None) => self.out.push(violation(
                "target-body",
                c.line,
                format!("target `{name}` lost its body"),
            )),
            (Some(ob), Some(cb)) if !o.is_proof() => {
                let (oe, ce) = (executable(ob), executable(cb));
                if canon(&oe) != canon(&ce) {
                    let line = first_difference(&oe, &ce).unwrap_or(c.line);
                    self.out.push(violation(
                        "target-body",
                        line,
                        format!(
                        "target `{name}`: executable code differs from the task once ghost code \
                         is removed"),
                    ));
                }
            }
            _ => {}
        }
    }
}

/// Line of the first statement where two de-ghosted bodies part ways (searched top level first).
fn first_difference(original: &Block, cand: &Block) -> Option<usize> {
    let text = |s: &Stmt| canon(&s);
    for (i, stmt) in cand.stmts.iter().enumerate() {
        if original.stmts.get(i).map(text) != Some(text(stmt)) {
            return Some(line_of(stmt));
        }
    }
    None
}

fn check(original: &str, candidate: &str, target: Option<&str>) -> Vec<Violation> {
    let (before, orig_nodes) = match parse(original) {
        Ok(parsed) => parsed,
        Err(v) => {
            return vec![violation(
                "parse",
                0,
                format!("the task itself is unreadable: {}", v.reason),
            )]
        }
    };
    let (after, cand_nodes) = match parse(candidate) {
        Ok(parsed) => parsed,
        Err(v) => return vec![v],
    };
    let mut checker = Checker {
        target,
        in_verus: false,
        out: Vec::new(),
    };
    for (i, name) in COUNTED.iter().enumerate() {
        if before[i] != after[i] {
            checker.out.push(violation(
                "counts",
                0,
                format!(
                    "`{name}` occurs {} times in the candidate and {} times in the task",
                    after[i], before[i]
                ),
            ));
        }
    }
    let end = candidate.lines().count();
    checker.compare_lists(&orig_nodes, &cand_nodes, end);
    if let Some(name) = target {
        if !any_target(&orig_nodes, target, false) {
            checker.out.push(violation(
                "target-missing",
                0,
                format!("the task has no function `{name}` with a body to prove"),
            ));
        }
    }
    checker.out
}

/// An exec or proof function with a real body, named `target` when a target is given.
fn provable(f: &FnNode, target: Option<&str>) -> bool {
    !f.is_spec() && f.block.is_some() && !f.is_stub() && target.is_none_or(|t| f.sig.ident == t)
}

fn any_target(nodes: &[Node], target: Option<&str>, in_verus: bool) -> bool {
    nodes.iter().any(|n| match n {
        Node::Fn(f) => in_verus && provable(f, target),
        Node::Container { key, children, .. } => {
            any_target(children, target, in_verus || key == "verus!")
        }
        Node::Leaf { .. } => false,
    })
}

// ------------------------------------------------------------------------------------ transplant

/// The ground truth's proof moved into its task: the task's text with each target function
/// replaced by the ground truth's function of the same name and place (`impl`, `mod`, `verus!`),
/// plus the ground truth's new items that the rules allow, each after the item it follows in
/// the ground truth. Everything else keeps the task's bytes: the benchmark extracted task and
/// solution separately, so their context items differ in ways no proof asks for.
fn transplant(task: &str, truth: &str, target: Option<&str>) -> Result<String, String> {
    let (_, task_nodes) = parse(task).map_err(|v| format!("the task: {}", v.reason))?;
    let (_, truth_nodes) = parse(truth).map_err(|v| format!("the ground truth: {}", v.reason))?;
    let mut graft = Graft {
        target,
        task,
        truth,
        edits: Vec::new(),
    };
    graft.lists(&task_nodes, &truth_nodes, false, None, &names(&task_nodes));
    let mut edits = graft.edits;
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(task.len() + truth.len() / 4);
    let mut cursor = 0;
    for (range, text) in edits {
        if range.start < cursor {
            return Err("overlapping edits".into());
        }
        out.push_str(&task[cursor..range.start]);
        out.push_str(&text);
        cursor = range.end;
    }
    out.push_str(&task[cursor..]);
    Ok(out)
}

struct Graft<'a> {
    target: Option<&'a str>,
    task: &'a str,
    truth: &'a str,
    /// Task byte ranges and their new text (an empty range inserts).
    edits: Vec<(Range<usize>, String)>,
}

impl Graft<'_> {
    /// `open`: where an item goes that follows no kept item (None: the file's start); `scope`:
    /// the names the task binds where these items sit.
    fn lists(
        &mut self,
        task: &[Node],
        truth: &[Node],
        in_verus: bool,
        open: Option<usize>,
        scope: &HashSet<String>,
    ) {
        let mut unused: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (i, node) in task.iter().enumerate() {
            unused.entry(node.key()).or_default().push_back(i);
        }
        let matched: Vec<Option<usize>> = truth
            .iter()
            .map(|node| unused.get_mut(&node.key()).and_then(VecDeque::pop_front))
            .collect();
        for (j, node) in truth.iter().enumerate() {
            match matched[j] {
                Some(i) => self.matched(&task[i], node, in_verus, scope),
                // A `use` of a name the task binds itself would clash with it: the task's own
                // definition (often a stub of what the ground truth imports) stays in charge.
                None if allowed(node) && bound(node).iter().all(|n| !scope.contains(n)) => {
                    let text = self.slice(node.span());
                    let indent = indent_before(self.truth, node.span().start);
                    let after = matched[..j].iter().rev().flatten().next();
                    let (at, text) = match (after, open) {
                        (Some(&i), _) => (task[i].span().end, format!("\n\n{indent}{text}")),
                        (None, Some(at)) => (at, format!("\n{indent}{text}")),
                        (None, None) => (0, format!("{text}\n")),
                    };
                    self.edits.push((at..at, text));
                }
                None => {}
            }
        }
    }

    fn matched(&mut self, task: &Node, truth: &Node, in_verus: bool, scope: &HashSet<String>) {
        match (task, truth) {
            (Node::Fn(o), Node::Fn(c)) if in_verus && provable(o, self.target) => {
                let text = self.slice(c.span.clone());
                if text != self.task[o.span.clone()] {
                    self.edits.push((o.span.clone(), text));
                }
            }
            (
                Node::Container {
                    children: oc,
                    open,
                    ..
                },
                Node::Container { children: cc, .. },
            ) => {
                // `verus!` adds no scope: its items live in the module around it.
                let verus = task.key() == "verus!";
                let inner = if verus { scope.clone() } else { names(oc) };
                self.lists(oc, cc, in_verus || verus, Some(*open), &inner);
            }
            _ => {}
        }
    }

    fn slice(&self, range: Range<usize>) -> String {
        self.truth.get(range).unwrap_or_default().to_string()
    }
}

/// The names items bind in one module (through `verus!` blocks, which add no scope).
fn names(nodes: &[Node]) -> HashSet<String> {
    let mut out = HashSet::new();
    for node in nodes {
        match node {
            Node::Container { key, children, .. } if key == "verus!" => out.extend(names(children)),
            _ => out.extend(bound(node)),
        }
    }
    out
}

/// The names one item binds: a definition's name, a `use`'s imported names (a glob none).
fn bound(node: &Node) -> Vec<String> {
    let key = node.key();
    let (kind, rest) = key.split_once(' ').unwrap_or((key.as_str(), ""));
    match kind {
        "use" => verus_syn::parse_str::<verus_syn::ItemUse>(rest)
            .map(|u| {
                let mut out = Vec::new();
                use_names(&u.tree, &mut out);
                out
            })
            .unwrap_or_default(),
        "fn" | "struct" | "enum" | "union" | "type" | "const" | "static" | "mod" | "trait" => {
            vec![rest.to_string()]
        }
        _ => Vec::new(),
    }
}

fn use_names(tree: &UseTree, out: &mut Vec<String>) {
    match tree {
        UseTree::Path(p) => use_names(&p.tree, out),
        UseTree::Name(n) => out.push(n.ident.to_string()),
        UseTree::Rename(r) => out.push(r.rename.to_string()),
        UseTree::Glob(_) => {}
        UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, out)),
    }
}

/// Whether the cheat checker accepts `node` as a new item.
fn allowed(node: &Node) -> bool {
    let mut checker = Checker {
        target: None,
        in_verus: false,
        out: Vec::new(),
    };
    checker.added(node);
    checker.out.is_empty() && !node.span().is_empty()
}

/// The blanks between the start of `at`'s line and `at` (nothing when other text is there).
fn indent_before(text: &str, at: usize) -> &str {
    let line = &text[..at];
    let start = line.rfind('\n').map_or(0, |i| i + 1);
    let indent = &line[start..];
    if indent.chars().all(char::is_whitespace) {
        indent
    } else {
        ""
    }
}

// ------------------------------------------------------------------------------------ driver

/// `--transplant` mode: `original` is the task, `candidate` its ground truth; the answer is
/// `{"id": .., "text": ..}` or `{"id": .., "error": ..}`.
fn answer_transplant(request: &Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let field = |name: &str| request.get(name).and_then(Value::as_str);
    let result = match (field("original"), field("candidate")) {
        (Some(task), Some(truth)) => {
            catch_unwind(AssertUnwindSafe(|| transplant(task, truth, field("target"))))
                .unwrap_or_else(|_| Err("the Verus parser crashed on this input".into()))
        }
        _ => Err("request lacks `original` or `candidate` text".into()),
    };
    match result {
        Ok(text) => json!({"id": id, "text": text}),
        Err(error) => json!({"id": id, "error": error}),
    }
}

fn answer(request: &Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let field = |name: &str| request.get(name).and_then(Value::as_str);
    let violations = match (field("original"), field("candidate")) {
        (Some(original), Some(candidate)) => {
            let target = field("target");
            match catch_unwind(AssertUnwindSafe(|| check(original, candidate, target))) {
                Ok(found) => found,
                Err(_) => vec![violation(
                    "parse",
                    0,
                    "the Verus parser crashed on this input".into(),
                )],
            }
        }
        _ => vec![violation(
            "protocol",
            0,
            "request lacks `original` or `candidate` text".into(),
        )],
    };
    let list: Vec<Value> = violations
        .iter()
        .map(|v| json!({"rule": v.rule, "reason": v.reason, "line": v.line}))
        .collect();
    json!({"id": id, "violations": list})
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
        .max(1);
    let respond = if args.iter().any(|a| a == "--transplant") {
        answer_transplant
    } else {
        answer
    };
    std::panic::set_hook(Box::new(|_| {}));
    let requests: Vec<Value> = std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(&line)
                .unwrap_or_else(|e| json!({"id": null, "error": e.to_string()}))
        })
        .collect();
    let answers: Vec<Mutex<Option<Value>>> = requests.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(requests.len().max(1)) {
            std::thread::Builder::new()
                .stack_size(512 << 20)
                .spawn_scoped(scope, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(request) = requests.get(i) else {
                        break;
                    };
                    *answers[i].lock().expect("answer slot") = Some(respond(request));
                    // Every span of this pair is gone: let the thread's source map start over.
                    proc_macro2::extra::invalidate_current_thread_spans();
                })
                .expect("worker thread");
        }
    });
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for slot in answers {
        let value = slot
            .into_inner()
            .expect("answer slot")
            .unwrap_or(Value::Null);
        writeln!(stdout, "{value}").expect("stdout");
    }
}
