//! Attributes as Verus reads them, never as text: `#[verifier::x]`, `#[verifier(x)]`,
//! `#[verus::internal(x)]`, `#![...]` inside a body, raw identifiers (`r#external_body`) and
//! `#[cfg_attr(cond, a, b)]` (which stands for `a` and `b` whenever `cond` holds: Verus compiles
//! with `verus_keep_ghost`, the condition vstd itself uses) all mean the same attribute.

use proc_macro2::TokenStream;
use quote::ToTokens;
use verus_syn::parse::Parser;
use verus_syn::punctuated::Punctuated;
use verus_syn::{Attribute, Meta, Token};

use crate::lex::{canon_tokens, unraw};

/// One attribute after `cfg_attr` expansion: a Verus (`verifier`/`verus`) attribute named
/// `name`, or any other attribute with its path as `name`; `text` is its canonical form.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Effective {
    pub verus: bool,
    pub name: String,
    pub text: String,
}

/// Verifier attributes that only tune the solver, never the meaning of a function: a proof may
/// add them to its target, and they do not count when items are compared.
pub const TUNING: [&str; 5] = [
    "rlimit",
    "integer_ring",
    "memoize",
    "loop_isolation",
    "spinoff_prover",
];

/// Verus attributes a new spec or proof function may carry: the tuning ones, and those that
/// choose how a proved function is proved or revealed (none of them trusts anything).
pub const PROOF_ATTRIBUTES: [&str; 10] = [
    "rlimit",
    "integer_ring",
    "memoize",
    "loop_isolation",
    "spinoff_prover",
    "nonlinear",
    "bit_vector",
    "opaque",
    "auto_ext_equal",
    "inline",
];

/// Plain Rust attributes that change nothing Verus proves (lints, inlining, formatting): a new
/// item may carry them, and they do not count when items are compared (the benchmark's own
/// solutions add `#[inline]` to their targets).
pub const RUST_ATTRIBUTES: [&str; 8] = [
    "allow",
    "warn",
    "expect",
    "deny",
    "inline",
    "must_use",
    "rustfmt::skip",
    "verusfmt::skip",
];

/// The attributes `attr` stands for.
pub fn effective(attr: &Attribute) -> Vec<Effective> {
    let mut out = Vec::new();
    meta_effective(&attr.meta, &mut out);
    out
}

fn path_names(path: &verus_syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| unraw(&s.ident)).collect()
}

fn nested(tokens: &TokenStream) -> Option<Punctuated<Meta, Token![,]>> {
    Punctuated::<Meta, Token![,]>::parse_terminated
        .parse2(tokens.clone())
        .ok()
}

fn meta_effective(meta: &Meta, out: &mut Vec<Effective>) {
    let names = path_names(meta.path());
    let list = match meta {
        Meta::List(list) => Some(&list.tokens),
        _ => None,
    };
    let args = |meta: &Meta| -> String {
        match meta {
            Meta::Path(_) => String::new(),
            Meta::List(list) => format!("({})", canon_tokens(&list.tokens)),
            Meta::NameValue(nv) => format!("={}", canon_tokens(&nv.value.to_token_stream())),
        }
    };
    let joined = names.join("::");
    match (names.iter().map(String::as_str).collect::<Vec<_>>().as_slice(), list) {
        (["cfg_attr"], Some(tokens)) => match nested(tokens) {
            Some(metas) => metas.iter().skip(1).for_each(|m| meta_effective(m, out)),
            None => out.push(opaque(&joined, meta)),
        },
        (["verifier"], Some(tokens)) | (["verus", "internal"], Some(tokens)) => {
            match nested(tokens) {
                Some(metas) => metas.iter().for_each(|m| {
                    let inner = path_names(m.path()).join("::");
                    out.push(Effective {
                        verus: true,
                        text: format!("verifier::{inner}{}", args(m)),
                        name: inner,
                    });
                }),
                None => out.push(opaque(&joined, meta)),
            }
        }
        (["verifier" | "verus", rest @ ..], _) if !rest.is_empty() => {
            let inner = rest.join("::");
            out.push(Effective {
                verus: true,
                text: format!("verifier::{inner}{}", args(meta)),
                name: inner,
            });
        }
        _ => out.push(Effective {
            verus: false,
            text: format!("{joined}{}", args(meta)),
            name: joined,
        }),
    }
}

/// An attribute whose arguments do not parse: it keeps its whole text, and being unknown it is
/// never allowed where only known attributes are.
fn opaque(name: &str, meta: &Meta) -> Effective {
    Effective {
        verus: false,
        name: format!("{name}(?)"),
        text: canon_tokens(&meta.to_token_stream()),
    }
}

pub fn is_tuning(e: &Effective) -> bool {
    e.verus && TUNING.contains(&e.name.as_str())
}

/// Tuning or a plain Rust attribute that changes nothing Verus proves.
pub fn is_inert(e: &Effective) -> bool {
    is_tuning(e) || (!e.verus && RUST_ATTRIBUTES.contains(&e.name.as_str()))
}

/// The canonical texts of `attrs` but the inert ones, sorted: attribute order and spelling
/// mean nothing to Verus.
pub fn meaning(attrs: &[Attribute]) -> Vec<String> {
    let mut texts: Vec<String> = attrs
        .iter()
        .flat_map(effective)
        .filter(|e| !is_inert(e))
        .map(|e| e.text)
        .collect();
    texts.sort();
    texts
}

/// Whether `attrs` hold the Verus attribute `name` (in any spelling).
pub fn has_flag(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .flat_map(effective)
        .any(|e| e.verus && e.name == name)
}

/// The first attribute a new spec or proof item may not carry, as text.
pub fn disallowed_on_new(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().flat_map(effective).find_map(|e| {
        let allowed = if e.verus {
            PROOF_ATTRIBUTES.contains(&e.name.as_str())
        } else {
            RUST_ATTRIBUTES.contains(&e.name.as_str())
        };
        (!allowed).then(|| format!("#[{}]", e.text))
    })
}
