//! A file as the rules see it: its items in a tree (`verus!`, `impl`, `trait` and `mod` hold
//! items of their own), each normalised for layout (`layout.rs`) and keyed by kind and name so
//! that a candidate's items can be paired with the task's whatever their order and layout.

use std::ops::Range;
use std::str::FromStr;

use proc_macro2::TokenStream;
use quote::ToTokens;
use verus_syn::spanned::Spanned;
use verus_syn::visit_mut::VisitMut;
use verus_syn::{
    Attribute, Block, File, FnMode, ImplItem, Item, Signature, TraitItem, UseTree, Visibility,
};

use crate::attrs;
use crate::layout::Layout;
use crate::lex::{canon_tokens, strip_docs, too_deep, unraw, MAX_NESTING};

/// Why a file could not be read, and where.
pub struct ParseError {
    pub line: usize,
    pub reason: String,
}

pub fn line_of<T: Spanned>(node: &T) -> usize {
    node.span().start().line
}

pub fn fn_mode_is_ghost(mode: &FnMode) -> bool {
    matches!(
        mode,
        FnMode::Spec(_) | FnMode::SpecChecked(_) | FnMode::Proof(_) | FnMode::ProofAxiom(_)
    )
}

/// A function wherever it sits (module, impl, trait, a block), normalised.
#[derive(Clone)]
pub struct FnNode {
    pub name: String,
    pub attrs: Vec<Attribute>,
    pub vis: Option<Visibility>,
    pub sig: Signature,
    pub block: Option<Block>,
    pub line: usize,
    /// Its bytes in the source (attributes but doc comments included) and where the part after
    /// its attributes starts, for `transplant`.
    pub span: Range<usize>,
    pub head: usize,
    /// Its tokens as written (for the names it uses).
    pub tokens: TokenStream,
}

impl FnNode {
    pub fn is_spec(&self) -> bool {
        matches!(self.sig.mode, FnMode::Spec(_) | FnMode::SpecChecked(_))
    }

    pub fn is_proof(&self) -> bool {
        matches!(self.sig.mode, FnMode::Proof(_) | FnMode::ProofAxiom(_))
    }

    /// Context functions of a task are trusted stubs: `external_body` or `unimplemented!()`.
    pub fn is_stub(&self) -> bool {
        attrs::has_flag(&self.attrs, "external_body")
            || self
                .block
                .as_ref()
                .is_some_and(|b| canon_tokens(&b.to_token_stream()).contains("unimplemented!()"))
    }

    /// The signature as compared: a proof or exec function's termination measure is checked by
    /// Verus wherever it is verified and unused where it is not (the task's trusted stubs, to
    /// which the benchmark's own solutions add `decreases`), so it does not count.
    pub fn compared_sig(&self) -> Signature {
        let mut sig = self.sig.clone();
        if !self.is_spec() {
            sig.spec.decreases = None;
        }
        sig
    }

    /// Equal in meaning: attributes (but the tuning ones), visibility, signature, body.
    pub fn same(&self, other: &FnNode) -> bool {
        attrs::meaning(&self.attrs) == attrs::meaning(&other.attrs)
            && self.vis == other.vis
            && self.compared_sig() == other.compared_sig()
            && self.block == other.block
    }
}

/// What a container is, for the rules.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Verus,
    InherentImpl,
    TraitImpl,
    Trait,
    Mod,
}

/// A container's own part (its items aside), normalised, for comparison.
#[derive(PartialEq)]
pub enum Header {
    Verus(Vec<String>),
    Impl(Vec<String>, Box<verus_syn::ItemImpl>),
    Trait(Vec<String>, Box<verus_syn::ItemTrait>),
    Mod(Vec<String>, Box<verus_syn::ItemMod>),
}

pub enum Node {
    Fn(Box<FnNode>),
    Container {
        kind: Kind,
        key: String,
        header: Header,
        attrs: Vec<Attribute>,
        children: Vec<Node>,
        line: usize,
        span: Range<usize>,
        /// The byte just after the opening brace.
        open: usize,
    },
    /// Any other item, compared as a whole; `addable` for the items a proof may add.
    Leaf {
        key: String,
        /// The names it binds (a `use`'s imported names, a macro's name), each with where it
        /// comes from.
        binds: Vec<(String, Origin)>,
        meaning: Vec<String>,
        item: Box<Item>,
        attrs: Vec<Attribute>,
        addable: bool,
        line: usize,
        span: Range<usize>,
        tokens: TokenStream,
    },
}

impl Node {
    pub fn key(&self) -> String {
        match self {
            Node::Fn(f) => format!("fn {}", f.name),
            Node::Container { key, .. } | Node::Leaf { key, .. } => key.clone(),
        }
    }

    pub fn span(&self) -> Range<usize> {
        match self {
            Node::Fn(f) => f.span.clone(),
            Node::Container { span, .. } | Node::Leaf { span, .. } => span.clone(),
        }
    }

    pub fn line(&self) -> usize {
        match self {
            Node::Fn(f) => f.line,
            Node::Container { line, .. } | Node::Leaf { line, .. } => *line,
        }
    }

    pub fn describe(&self) -> String {
        let key = self.key();
        let short: String = key.chars().take(80).collect();
        if short.len() < key.len() {
            format!("{short}...")
        } else {
            short
        }
    }
}

/// A parsed file: its items, and its tokens (doc comments removed).
pub struct Parsed {
    pub nodes: Vec<Node>,
    pub tokens: TokenStream,
}

pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    if let Some(line) = too_deep(text) {
        return Err(ParseError {
            line,
            reason: format!("brackets or prefix operators nest deeper than {MAX_NESTING}"),
        });
    }
    let tokens = TokenStream::from_str(text).map_err(|e| ParseError {
        line: e.span().start().line,
        reason: format!("does not lex as Rust: {e}"),
    })?;
    let tokens = strip_docs(tokens);
    let file: File = verus_syn::parse2(tokens.clone()).map_err(parse_error)?;
    let mut nodes = Vec::new();
    if !file.attrs.is_empty() {
        nodes.push(leaf_of(
            "inner attributes".to_string(),
            Vec::new(),
            Item::Verbatim(TokenStream::new()),
            file.attrs.clone(),
            false,
            1,
            0..0,
            TokenStream::new(),
        ));
    }
    for item in file.items {
        nodes.push(item_node(item, &[])?);
    }
    Ok(Parsed { nodes, tokens })
}

fn parse_error(err: verus_syn::Error) -> ParseError {
    ParseError {
        line: err.span().start().line,
        reason: format!("does not parse as Verus: {err}"),
    }
}

fn normalize_attrs(attrs: &[Attribute], module: &[String]) -> Vec<Attribute> {
    let mut out = attrs.to_vec();
    let mut layout = Layout { module };
    for attr in &mut out {
        layout.visit_attribute_mut(attr);
    }
    out
}

pub fn fn_node(
    attrs: &[Attribute],
    vis: Option<&Visibility>,
    sig: &Signature,
    block: Option<&Block>,
    semi: Option<verus_syn::token::Semi>,
    module: &[String],
) -> FnNode {
    let mut layout = Layout { module };
    let mut nsig = sig.clone();
    layout.visit_signature_mut(&mut nsig);
    let nvis = vis.map(|v| {
        let mut v = v.clone();
        layout.visit_visibility_mut(&mut v);
        v
    });
    let nblock = block.filter(|_| semi.is_none()).map(|b| {
        let mut b = b.clone();
        layout.visit_block_mut(&mut b);
        b
    });
    let mut head = vis.map(ToTokens::to_token_stream).unwrap_or_default();
    sig.to_tokens(&mut head);
    let mut tokens = TokenStream::new();
    attrs.iter().for_each(|a| a.to_tokens(&mut tokens));
    tokens.extend(head.clone());
    if let Some(b) = block {
        b.to_tokens(&mut tokens);
    }
    let end = match (semi, block) {
        (Some(semi), _) => semi.span.byte_range().end,
        (None, Some(block)) => block.brace_token.span.close().byte_range().end,
        (None, None) => last_byte(head.clone()).unwrap_or(0),
    };
    FnNode {
        name: unraw(&sig.ident),
        attrs: normalize_attrs(attrs, module),
        vis: nvis,
        sig: nsig,
        block: nblock,
        line: line_of(&sig.ident),
        span: start_of(attrs, head.clone())..end,
        head: first_byte(head).unwrap_or(0),
        tokens,
    }
}

/// Takes an item's attributes out of it (an item without them compares by the rest).
fn take_attrs(item: &mut Item) -> Vec<Attribute> {
    let attrs = match item {
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::ExternCrate(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::ForeignMod(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Macro(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::TraitAlias(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Union(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        Item::BroadcastUse(i) => &mut i.attrs,
        Item::BroadcastGroup(i) => &mut i.attrs,
        Item::AssumeSpecification(i) => &mut i.attrs,
        _ => return Vec::new(),
    };
    std::mem::take(attrs)
}

#[allow(clippy::too_many_arguments)]
fn leaf_of(
    key: String,
    binds: Vec<(String, Origin)>,
    item: Item,
    attrs: Vec<Attribute>,
    addable: bool,
    line: usize,
    span: Range<usize>,
    tokens: TokenStream,
) -> Node {
    Node::Leaf {
        key,
        binds,
        meaning: attrs::meaning(&attrs),
        item: Box::new(item),
        attrs,
        addable,
        line,
        span,
        tokens,
    }
}

/// The leaf for `item` (any kind but those with items of their own).
fn leaf(item: Item, module: &[String]) -> Node {
    let tokens = item.to_token_stream();
    let line = line_of(&item);
    let span = first_byte(tokens.clone()).unwrap_or(0)..last_byte(tokens.clone()).unwrap_or(0);
    let mut normal = item.clone();
    Layout { module }.visit_item_mut(&mut normal);
    let attrs = take_attrs(&mut normal);
    let canon = || canon_tokens(&normal.to_token_stream());
    let named = |kind: &str, ident: &verus_syn::Ident| format!("{kind} {}", unraw(ident));
    let (key, binds, addable) = match &normal {
        Item::Use(u) => {
            let names = use_bindings(&u.tree, &[])
                .into_iter()
                .filter_map(|b| {
                    let root = b.path.first().map_or("", String::as_str);
                    let origin = match root {
                        _ if !b.own_name => Origin::Other,
                        "crate" | "self" | "super" => Origin::Crate,
                        "vstd" => Origin::Vstd(b.path.join("::")),
                        _ => Origin::Other,
                    };
                    Some((b.name?, origin))
                })
                .collect();
            (format!("use {}", canon()), names, true)
        }
        Item::Macro(m) if m.ident.is_some() => {
            let name = m.ident.as_ref().map(unraw).unwrap_or_default();
            (format!("macro_rules {name}"), vec![(name, Origin::Other)], true)
        }
        Item::BroadcastUse(_) => (format!("broadcast use {}", canon()), Vec::new(), true),
        Item::BroadcastGroup(g) => (
            named("broadcast group", &g.ident),
            vec![(unraw(&g.ident), Origin::Other)],
            true,
        ),
        Item::Struct(s) => (named("struct", &s.ident), Vec::new(), false),
        Item::Enum(e) => (named("enum", &e.ident), Vec::new(), false),
        Item::Union(u) => (named("union", &u.ident), Vec::new(), false),
        Item::Type(t) => (named("type", &t.ident), Vec::new(), false),
        Item::Const(c) => (named("const", &c.ident), Vec::new(), false),
        Item::Static(s) => (named("static", &s.ident), Vec::new(), false),
        Item::Mod(m) => (named("mod", &m.ident), Vec::new(), false),
        Item::Trait(t) => (named("trait", &t.ident), Vec::new(), false),
        Item::Global(_) => (format!("global {}", canon()), Vec::new(), false),
        _ => (format!("item {}", canon()), Vec::new(), false),
    };
    leaf_of(key, binds, normal, attrs, addable, line, span, tokens)
}

/// The node for one item, in the module chain `module`.
pub fn item_node(item: Item, module: &[String]) -> Result<Node, ParseError> {
    Ok(match item {
        Item::Fn(f) => Node::Fn(Box::new(fn_node(
            &f.attrs,
            Some(&f.vis),
            &f.sig,
            Some(&f.block),
            f.semi_token,
            module,
        ))),
        Item::Macro(m) if m.mac.path.is_ident("verus") => {
            let braces = m.mac.delimiter.span();
            let span = start_of(&m.attrs, m.mac.path.to_token_stream())
                ..braces.close().byte_range().end;
            let file: File = verus_syn::parse2(m.mac.tokens).map_err(parse_error)?;
            Node::Container {
                kind: Kind::Verus,
                key: "verus!".to_string(),
                header: Header::Verus(attrs::meaning(&file.attrs)),
                attrs: file.attrs,
                children: file
                    .items
                    .into_iter()
                    .map(|i| item_node(i, module))
                    .collect::<Result<_, _>>()?,
                line: line_of(&m.mac.path),
                span,
                open: braces.open().byte_range().end,
            }
        }
        Item::Impl(mut i) => {
            let items = std::mem::take(&mut i.items);
            let attrs = std::mem::take(&mut i.attrs);
            let line = line_of(&i.impl_token);
            let span = start_of(&attrs, i.to_token_stream())
                ..i.brace_token.span.close().byte_range().end;
            let open = i.brace_token.span.open().byte_range().end;
            let mut header = i.clone();
            Layout { module }.visit_item_impl_mut(&mut header);
            Node::Container {
                kind: if i.trait_.is_some() {
                    Kind::TraitImpl
                } else {
                    Kind::InherentImpl
                },
                key: format!("impl {}", canon_tokens(&header.to_token_stream())),
                header: Header::Impl(attrs::meaning(&attrs), Box::new(header)),
                attrs,
                children: items
                    .into_iter()
                    .map(|it| impl_item_node(it, module))
                    .collect(),
                line,
                span,
                open,
            }
        }
        Item::Trait(mut t) => {
            let items = std::mem::take(&mut t.items);
            let attrs = std::mem::take(&mut t.attrs);
            let span = start_of(&attrs, t.to_token_stream())
                ..t.brace_token.span.close().byte_range().end;
            let open = t.brace_token.span.open().byte_range().end;
            let mut header = t.clone();
            Layout { module }.visit_item_trait_mut(&mut header);
            Node::Container {
                kind: Kind::Trait,
                key: format!("trait {}", unraw(&t.ident)),
                header: Header::Trait(attrs::meaning(&attrs), Box::new(header)),
                attrs,
                children: items
                    .into_iter()
                    .map(|it| trait_item_node(it, module))
                    .collect(),
                line: line_of(&t.ident),
                span,
                open,
            }
        }
        Item::Mod(mut m) if m.content.is_some() => {
            let items = m
                .content
                .as_mut()
                .map(|(_, items)| std::mem::take(items))
                .unwrap_or_default();
            let attrs = std::mem::take(&mut m.attrs);
            let braces = m.content.as_ref().map(|(brace, _)| brace.span);
            let span = start_of(&attrs, m.to_token_stream())
                ..braces.map_or(0, |b| b.close().byte_range().end);
            let open = braces.map_or(0, |b| b.open().byte_range().end);
            let mut inner = module.to_vec();
            inner.push(unraw(&m.ident));
            let mut header = m.clone();
            Layout { module }.visit_item_mod_mut(&mut header);
            Node::Container {
                kind: Kind::Mod,
                key: format!("mod {}", unraw(&m.ident)),
                header: Header::Mod(attrs::meaning(&attrs), Box::new(header)),
                attrs,
                children: items
                    .into_iter()
                    .map(|i| item_node(i, &inner))
                    .collect::<Result<_, _>>()?,
                line: line_of(&m.ident),
                span,
                open,
            }
        }
        other => leaf(other, module),
    })
}

fn impl_item_node(item: ImplItem, module: &[String]) -> Node {
    match item {
        ImplItem::Fn(f) => Node::Fn(Box::new(fn_node(
            &f.attrs,
            Some(&f.vis),
            &f.sig,
            Some(&f.block),
            f.semi_token,
            module,
        ))),
        other => leaf(as_item(other.to_token_stream()), module),
    }
}

fn trait_item_node(item: TraitItem, module: &[String]) -> Node {
    match item {
        TraitItem::Fn(f) => Node::Fn(Box::new(fn_node(
            &f.attrs,
            None,
            &f.sig,
            f.default.as_ref(),
            f.semi_token,
            module,
        ))),
        other => leaf(as_item(other.to_token_stream()), module),
    }
}

/// An associated item (const, type, macro) read as the free item it is spelled like, so that
/// it is normalised like one; what does not read so is compared as tokens.
fn as_item(tokens: TokenStream) -> Item {
    verus_syn::parse2::<Item>(tokens.clone()).unwrap_or(Item::Verbatim(tokens))
}

/// Where a name a new item binds comes from: an item of this crate or of vstd imported under
/// its own name (`use crate::m::n;`, `use vstd::calc;`, with the path of the module it is taken
/// from), or anything else (a definition, a renamed import, another crate).
#[derive(Clone, PartialEq, Eq)]
pub enum Origin {
    Crate,
    Vstd(String),
    Other,
}

/// One name a `use` binds, or one glob it imports (`name` None): the module path it is taken
/// from, and whether it keeps its own name (`use a::b::name;`, not `use a::b::other as name;`).
pub struct Binding {
    pub name: Option<String>,
    pub path: Vec<String>,
    pub own_name: bool,
}

pub fn use_bindings(tree: &UseTree, path: &[String]) -> Vec<Binding> {
    let bind = |name: Option<String>, own_name: bool| Binding {
        name,
        path: path.to_vec(),
        own_name,
    };
    match tree {
        UseTree::Path(p) => {
            let mut inner = path.to_vec();
            inner.push(unraw(&p.ident));
            use_bindings(&p.tree, &inner)
        }
        UseTree::Name(n) => vec![bind(Some(unraw(&n.ident)), true)],
        UseTree::Rename(r) => vec![bind(Some(unraw(&r.rename)), false)],
        UseTree::Glob(_) => vec![bind(None, false)],
        UseTree::Group(g) => g.items.iter().flat_map(|t| use_bindings(t, path)).collect(),
    }
}

/// The module paths a `use` item glob-imports (`use vstd::seq_lib::*;` → `vstd::seq_lib`).
pub fn glob_paths(item: &Item) -> Vec<String> {
    match item {
        Item::Use(u) => use_bindings(&u.tree, &[])
            .into_iter()
            .filter(|b| b.name.is_none())
            .map(|b| b.path.join("::"))
            .collect(),
        _ => Vec::new(),
    }
}

// ------------------------------------------------------------------------------------ spans

/// Where the first token with a place in the source starts (tokens the printer makes up have
/// none).
pub fn first_byte(tokens: TokenStream) -> Option<usize> {
    tokens
        .into_iter()
        .map(|t| t.span().byte_range())
        .find(|r| !r.is_empty())
        .map(|r| r.start)
}

pub fn last_byte(tokens: TokenStream) -> Option<usize> {
    tokens
        .into_iter()
        .map(|t| t.span().byte_range())
        .filter(|r| !r.is_empty())
        .last()
        .map(|r| r.end)
}

/// The start of an item: its first outer attribute, else the first token of the rest (inner
/// attributes sit inside its body).
pub fn start_of(attrs: &[Attribute], rest: TokenStream) -> usize {
    attrs
        .iter()
        .find(|a| matches!(a.style, verus_syn::AttrStyle::Outer))
        .map(|a| a.pound_token.span.byte_range().start)
        .or_else(|| first_byte(rest))
        .unwrap_or(0)
}
