--------------------------- MODULE FiniteSetsExt ---------------------------
(***************************************************************************)
(* Operators on finite sets that TLA+ models commonly import from the      *)
(* CommunityModules library, defined here from their meaning so that       *)
(* models which EXTEND FiniteSetsExt parse and run with any tla2tools.jar. *)
(* Shipped by speckernel-tla; written for this project.                    *)
(***************************************************************************)
LOCAL INSTANCE Naturals
LOCAL INSTANCE FiniteSets

FoldSet(op(_, _), base, S) ==
  LET RECURSIVE F(_)
      F(T) == IF T = {} THEN base
              ELSE LET x == CHOOSE x \in T : TRUE IN op(x, F(T \ {x}))
  IN F(S)
  (* Combines the elements of S with op, starting from base; op should be *)
  (* commutative and associative, since the order is unspecified.         *)

ReduceSet(op(_, _), S, acc) == FoldSet(op, acc, S)

MapThenFoldSet(op(_, _), base, f(_), choose(_), S) ==
  LET RECURSIVE F(_)
      F(T) == IF T = {} THEN base
              ELSE LET x == choose(T) IN op(f(x), F(T \ {x}))
  IN F(S)
  (* Maps f over S, then folds with op, taking elements in the order choose picks. *)

SumSet(S) == FoldSet(LAMBDA x, y : x + y, 0, S)

ProductSet(S) == FoldSet(LAMBDA x, y : x * y, 1, S)

Max(S) == CHOOSE x \in S : \A y \in S : y <= x
  (* The greatest element of a non-empty set of numbers. *)

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
  (* The least element of a non-empty set of numbers. *)

Choose(S) == CHOOSE x \in S : TRUE

Quantify(S, P(_)) == Cardinality({ x \in S : P(x) })
  (* How many elements of S satisfy P. *)

kSubset(k, S) == { T \in SUBSET S : Cardinality(T) = k }

Ksubsets(S, k) == kSubset(k, S)

SymDiff(A, B) == (A \ B) \cup (B \ A)

Flatten(SS) == UNION SS

=============================================================================
