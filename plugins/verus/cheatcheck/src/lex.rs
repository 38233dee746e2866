//! Token-level facts about a file: how deep its brackets nest, its doc comments, raw
//! identifiers, and every use of a name that makes Verus take a fact without proof.
//!
//! These are read from the token stream rather than the syntax tree on purpose: a token stream
//! also holds macro bodies and attribute arguments, where a tree only holds opaque tokens, so a
//! name counted here is counted wherever it hides.

use std::collections::{BTreeMap, HashSet};

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};

/// Deeper nesting than any real proof has: refused before the recursive parser could run out
/// of stack on it. Brackets nest, and so does a run of prefix operators (`!!!!x`, `- - -x`,
/// `&&&&x`, `****x`): the parser recurses once per operator, with no bracket to count.
pub const MAX_NESTING: usize = 1000;

/// Characters that spell a prefix operator (`!`, `-`, `&`, `*`); a run of them, whitespace
/// between allowed, is as deep as it is long.
const PREFIX_OPERATORS: [char; 4] = ['!', '-', '&', '*'];

/// The line where brackets first nest, or prefix operators first run, deeper than
/// `MAX_NESTING` (counted over the raw text, so brackets and operators in strings and comments
/// count too: harmless at this depth).
pub fn too_deep(text: &str) -> Option<usize> {
    let (mut depth, mut run, mut line) = (0usize, 0usize, 1);
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '\n' => line += 1,
            _ => {}
        }
        if PREFIX_OPERATORS.contains(&c) {
            run += 1;
        } else if !c.is_whitespace() {
            run = 0;
        }
        if depth > MAX_NESTING || run > MAX_NESTING {
            return Some(line);
        }
    }
    None
}

/// An identifier as Rust resolves it: `r#name` and `name` are the same name.
pub fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    match text.strip_prefix("r#") {
        Some(bare) => bare.to_string(),
        None => text,
    }
}

/// Names that assume instead of prove, wherever they appear (a call, a path, a `use` with or
/// without `as`, a macro argument, an attribute): Verus's `assume`, `assume_` (the builtin the
/// prelude re-exports, which Verus treats as `assume`) and `admit`; vstd's `Tracked::assume_new`
/// (a tracked value from nothing); `assume_specification` (a contract for code Verus does not
/// see); and the attributes that make a body unchecked (`external_body`) or give external code
/// a trusted contract.
pub const ASSUMING: [&str; 11] = [
    "assume",
    "assume_",
    "admit",
    "assume_new",
    "assume_new_fallback",
    "assume_specification",
    "external_body",
    "external_fn_specification",
    "external_type_specification",
    "external_trait_specification",
    "external_trait_extension",
];

/// Inside an attribute, `external` also assumes (Verus neither checks nor erases the item).
pub const ASSUMING_IN_ATTRIBUTES: [&str; 1] = ["external"];

/// How often each assuming construct occurs, by name (`name!` for an invocation of an assuming
/// macro, `name (alias)` for a use of an assuming alias).
pub type Counts = BTreeMap<String, usize>;

/// What the task itself defines that assumes under a name of its own: macros whose bodies hold
/// an assuming name, and names its `use`s bind to one (`use vstd::prelude::assume_ as trust;`).
#[derive(Default)]
pub struct Aliases {
    pub macros: HashSet<String>,
    pub names: HashSet<String>,
}

pub fn count_assuming(tokens: &TokenStream, aliases: &Aliases) -> Counts {
    let mut counts = Counts::new();
    count_into(tokens, false, aliases, &mut counts);
    counts
}

fn count_into(tokens: &TokenStream, in_attribute: bool, aliases: &Aliases, counts: &mut Counts) {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) => {
                let name = unraw(ident);
                let assuming = ASSUMING.contains(&name.as_str())
                    || (in_attribute && ASSUMING_IN_ATTRIBUTES.contains(&name.as_str()));
                if assuming {
                    *counts.entry(name.clone()).or_default() += 1;
                }
                let bang = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
                if bang && aliases.macros.contains(&name) {
                    *counts.entry(format!("{name}!")).or_default() += 1;
                }
                if aliases.names.contains(&name) {
                    *counts.entry(format!("{name} (alias)")).or_default() += 1;
                }
            }
            TokenTree::Group(group) => {
                let attribute = group.delimiter() == Delimiter::Bracket && is_attribute_at(&trees, i);
                count_into(&group.stream(), in_attribute || attribute, aliases, counts);
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
}

/// Whether the bracket group at `i` is an attribute's: `#[..]` or `#![..]`.
fn is_attribute_at(trees: &[TokenTree], i: usize) -> bool {
    let punct = |k: usize, c: char| matches!(trees.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
    (i >= 1 && punct(i - 1, '#')) || (i >= 2 && punct(i - 1, '!') && punct(i - 2, '#'))
}

/// The calls that take a fact without proof and say which fact: `assume(..)` and `assume_(..)`
/// (any path, raw or not, macro bodies included).
pub const ASSUMING_CALLS: [&str; 2] = ["assume", "assume_"];

/// What `tokens` assume, as `name(arguments)` in canonical form, with how often: the counts
/// say how many assumptions there are, this says which, so a task's own `assume(10 < a)` cannot
/// become `assume(false)`.
pub fn assumed(tokens: &TokenStream) -> Counts {
    let mut out = Counts::new();
    assumed_into(tokens, &mut out);
    out
}

fn assumed_into(tokens: &TokenStream, out: &mut Counts) {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) if ASSUMING_CALLS.contains(&unraw(ident).as_str()) => {
                if let Some(TokenTree::Group(args)) = trees.get(i + 1) {
                    if args.delimiter() == Delimiter::Parenthesis {
                        let call = format!("{}({})", unraw(ident), canon_tokens(&args.stream()));
                        *out.entry(call).or_default() += 1;
                    }
                }
            }
            TokenTree::Group(group) => assumed_into(&group.stream(), out),
            _ => {}
        }
    }
}

/// Every identifier in `tokens`, raw or not, macro bodies included.
pub fn identifiers(tokens: &TokenStream, out: &mut HashSet<String>) {
    for tree in tokens.clone() {
        match tree {
            TokenTree::Ident(ident) => {
                out.insert(unraw(&ident));
            }
            TokenTree::Group(group) => identifiers(&group.stream(), out),
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
}

fn is_doc(group: &Group) -> bool {
    group.delimiter() == Delimiter::Bracket
        && matches!(group.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc")
}

/// The token stream without doc comments (`///`, `//!`, `#[doc = ..]`): prose is no part of
/// what a proof may or may not change.
pub fn strip_docs(tokens: TokenStream) -> TokenStream {
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

/// A compact canonical text of a small token stream (an attribute's arguments, a key): no
/// whitespace but between two words, identifiers unraw'd, no comma right before a closing
/// bracket.
pub fn canon_tokens(tokens: &TokenStream) -> String {
    let mut out = String::new();
    canon_into(tokens, &mut out);
    out
}

fn canon_into(tokens: &TokenStream, out: &mut String) {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
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
                canon_into(&g.stream(), out);
                out.push_str(close);
            }
            TokenTree::Punct(p) if p.as_char() == ',' && i + 1 == trees.len() => {}
            TokenTree::Punct(p) => out.push(p.as_char()),
            TokenTree::Ident(ident) => {
                if out.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '"') {
                    out.push(' ');
                }
                out.push_str(&unraw(ident));
            }
            TokenTree::Literal(lit) => {
                if out.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    out.push(' ');
                }
                out.push_str(&lit.to_string());
            }
        }
    }
}
