//! Layout normalisation: rewrites a syntax tree into the one tree every formatting of it
//! (verusfmt's, rustfmt's, a model's) shares, so that trees are compared by meaning.
//!
//! What it erases: the optional comma at the end of every comma-separated list (arguments,
//! parameters, generics, fields, patterns, bounds, `use` groups, requires/ensures/invariant
//! clauses), the comma after a match arm, a leading `|` in an or-pattern, empty `<>`, empty
//! `where`, empty spec clauses (`requires` with nothing after it), raw identifiers (`r#x` is
//! `x`), the same trailing commas inside the arguments of expression-list macros (`seq![a, b,]`)
//! and, at a path's start, `crate::<this module>::` before a path of two or more segments (at
//! the crate root `crate::a::b` and `a::b` name the same item). A one-element tuple keeps its
//! comma: `(a,)` is a tuple, `(a)` is `a`, and the tree says which.
//!
//! The tree keeps its spans, so a normalised node still knows its line. Whitespace and comments
//! never reach a tree, so they need no erasing.

use quote::ToTokens;
use verus_syn::parse::Parser;
use verus_syn::punctuated::Punctuated;
use verus_syn::visit_mut::{self, VisitMut};
use verus_syn::*;

use crate::lex::unraw;

pub struct Layout<'a> {
    /// The names of the modules the nodes sit in, outermost first.
    pub module: &'a [String],
}

/// Drops a list's optional final separator.
fn trim<T, P>(list: &mut Punctuated<T, P>) {
    if list.trailing_punct() {
        if let Some(last) = list.pop() {
            list.push_value(last.into_value());
        }
    }
}

/// A tuple's list: one element keeps (gains) its comma, more lose the final one.
fn tuple<T, P: Default>(list: &mut Punctuated<T, P>) {
    if list.len() == 1 {
        if !list.trailing_punct() {
            list.push_punct(P::default());
        }
    } else {
        trim(list);
    }
}

macro_rules! trimmed {
    ($($visit:ident($ty:ty): $($field:ident),+;)*) => {
        $(
            fn $visit(&mut self, node: &mut $ty) {
                $(trim(&mut node.$field);)+
                visit_mut::$visit(self, node);
            }
        )*
    };
}

macro_rules! empty_to_none {
    ($($field:expr),+) => {
        $(if $field.as_ref().is_some_and(|c| c.exprs.exprs.is_empty()) {
            $field = None;
        })+
    };
}

impl VisitMut for Layout<'_> {
    trimmed! {
        visit_angle_bracketed_generic_arguments_mut(AngleBracketedGenericArguments): args;
        visit_assert_forall_mut(AssertForall): inputs;
        visit_bound_lifetimes_mut(BoundLifetimes): lifetimes;
        visit_broadcast_use_mut(BroadcastUse): paths;
        visit_constraint_mut(Constraint): bounds;
        visit_expr_array_mut(ExprArray): elems;
        visit_expr_call_mut(ExprCall): args;
        visit_expr_closure_mut(ExprClosure): inputs;
        visit_expr_method_call_mut(ExprMethodCall): args;
        visit_expr_struct_mut(ExprStruct): fields;
        visit_fields_named_mut(FieldsNamed): named;
        visit_fields_unnamed_mut(FieldsUnnamed): unnamed;
        visit_fn_proof_options_mut(FnProofOptions): options;
        visit_invariant_name_set_list_mut(InvariantNameSetList): exprs;
        visit_invariant_name_set_list_compl_mut(InvariantNameSetListCompl): exprs;
        visit_item_broadcast_group_mut(ItemBroadcastGroup): paths;
        visit_item_enum_mut(ItemEnum): variants;
        visit_item_trait_mut(ItemTrait): supertraits;
        visit_item_trait_alias_mut(ItemTraitAlias): bounds;
        visit_lifetime_param_mut(LifetimeParam): bounds;
        visit_parenthesized_generic_arguments_mut(ParenthesizedGenericArguments): inputs;
        visit_pat_slice_mut(PatSlice): elems;
        visit_pat_struct_mut(PatStruct): fields;
        visit_pat_tuple_struct_mut(PatTupleStruct): elems;
        visit_perm_tuple_mut(PermTuple): fields;
        visit_precise_capture_mut(PreciseCapture): params;
        visit_predicate_lifetime_mut(PredicateLifetime): bounds;
        visit_predicate_type_mut(PredicateType): bounds;
        visit_specification_mut(Specification): exprs;
        visit_trait_item_type_mut(TraitItemType): bounds;
        visit_type_bare_fn_mut(TypeBareFn): inputs;
        visit_type_fn_proof_mut(TypeFnProof): inputs;
        visit_type_fn_spec_mut(TypeFnSpec): inputs;
        visit_type_impl_trait_mut(TypeImplTrait): bounds;
        visit_type_param_mut(TypeParam): bounds;
        visit_type_trait_object_mut(TypeTraitObject): bounds;
        visit_use_group_mut(UseGroup): items;
        visit_with_spec_on_expr_mut(WithSpecOnExpr): inputs, erased_fields;
    }

    fn visit_expr_tuple_mut(&mut self, node: &mut ExprTuple) {
        tuple(&mut node.elems);
        visit_mut::visit_expr_tuple_mut(self, node);
    }

    fn visit_pat_tuple_mut(&mut self, node: &mut PatTuple) {
        tuple(&mut node.elems);
        visit_mut::visit_pat_tuple_mut(self, node);
    }

    fn visit_type_tuple_mut(&mut self, node: &mut TypeTuple) {
        tuple(&mut node.elems);
        visit_mut::visit_type_tuple_mut(self, node);
    }

    fn visit_pat_or_mut(&mut self, node: &mut PatOr) {
        trim(&mut node.cases);
        node.leading_vert = None;
        visit_mut::visit_pat_or_mut(self, node);
    }

    fn visit_arm_mut(&mut self, node: &mut Arm) {
        node.comma = None;
        visit_mut::visit_arm_mut(self, node);
    }

    fn visit_generics_mut(&mut self, node: &mut Generics) {
        trim(&mut node.params);
        if node.params.is_empty() {
            node.lt_token = None;
            node.gt_token = None;
        }
        if node
            .where_clause
            .as_ref()
            .is_some_and(|w| w.predicates.is_empty())
        {
            node.where_clause = None;
        }
        visit_mut::visit_generics_mut(self, node);
    }

    fn visit_where_clause_mut(&mut self, node: &mut WhereClause) {
        trim(&mut node.predicates);
        visit_mut::visit_where_clause_mut(self, node);
    }

    fn visit_signature_mut(&mut self, node: &mut Signature) {
        trim(&mut node.inputs);
        visit_mut::visit_signature_mut(self, node);
    }

    fn visit_with_spec_on_fn_mut(&mut self, node: &mut WithSpecOnFn) {
        trim(&mut node.inputs);
        if let Some((_, outputs)) = &mut node.outputs {
            trim(outputs);
        }
        visit_mut::visit_with_spec_on_fn_mut(self, node);
    }

    fn visit_assume_specification_mut(&mut self, node: &mut AssumeSpecification) {
        if let Some((_, inputs)) = &mut node.inputs {
            trim(inputs);
        }
        visit_mut::visit_assume_specification_mut(self, node);
    }

    fn visit_signature_spec_mut(&mut self, node: &mut SignatureSpec) {
        empty_to_none!(node.requires, node.recommends, node.ensures);
        empty_to_none!(node.default_ensures, node.returns);
        if node
            .decreases
            .as_ref()
            .is_some_and(|d| d.decreases.exprs.exprs.is_empty())
        {
            node.decreases = None;
        }
        if let Some(invariants) = &mut node.invariants {
            invariants.comma = None;
        }
        visit_mut::visit_signature_spec_mut(self, node);
    }

    fn visit_expr_while_mut(&mut self, node: &mut ExprWhile) {
        empty_to_none!(node.invariant_except_break, node.invariant, node.invariant_ensures);
        empty_to_none!(node.ensures, node.decreases);
        visit_mut::visit_expr_while_mut(self, node);
    }

    fn visit_expr_loop_mut(&mut self, node: &mut ExprLoop) {
        empty_to_none!(node.invariant_except_break, node.invariant, node.invariant_ensures);
        empty_to_none!(node.ensures, node.decreases);
        visit_mut::visit_expr_loop_mut(self, node);
    }

    fn visit_expr_for_loop_mut(&mut self, node: &mut ExprForLoop) {
        empty_to_none!(node.invariant_except_break, node.invariant);
        empty_to_none!(node.ensures, node.decreases);
        visit_mut::visit_expr_for_loop_mut(self, node);
    }

    fn visit_ident_mut(&mut self, node: &mut Ident) {
        if node.to_string().starts_with("r#") {
            *node = Ident::new(&unraw(node), node.span());
        }
    }

    fn visit_macro_mut(&mut self, node: &mut Macro) {
        visit_mut::visit_macro_mut(self, node);
        let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
        if let Ok(mut args) = parser.parse2(node.tokens.clone()) {
            for arg in args.iter_mut() {
                self.visit_expr_mut(arg);
            }
            trim(&mut args);
            node.tokens = args.to_token_stream();
        }
    }

    fn visit_path_mut(&mut self, node: &mut Path) {
        visit_mut::visit_path_mut(self, node);
        let names: Vec<String> = node.segments.iter().map(|s| s.ident.to_string()).collect();
        let depth = self.module.len();
        let plain = node
            .segments
            .iter()
            .take(depth + 1)
            .all(|s| s.arguments.is_none());
        if node.leading_colon.is_none()
            && plain
            && names.first().is_some_and(|n| n == "crate")
            && names.len() >= depth + 3
            && names[1..=depth] == *self.module
        {
            node.segments = node.segments.clone().into_pairs().skip(depth + 1).collect();
        }
    }
}
