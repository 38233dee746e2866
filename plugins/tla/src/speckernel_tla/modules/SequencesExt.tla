---------------------------- MODULE SequencesExt ----------------------------
(***************************************************************************)
(* Operators on sequences that TLA+ models commonly import from the       *)
(* CommunityModules library, defined here from their meaning so that       *)
(* models which EXTEND SequencesExt parse and run with any tla2tools.jar.  *)
(* Shipped by speckernel-tla; written for this project.                    *)
(***************************************************************************)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE FiniteSets

LOCAL SmallerOf(a, b) == IF a <= b THEN a ELSE b

ToSet(s) == { s[i] : i \in DOMAIN s }
  (* The set of the elements of s. *)

IsInjective(s) == \A i, j \in DOMAIN s : s[i] = s[j] => i = j
  (* No element occurs twice in s. *)

SetToSeq(S) == CHOOSE f \in [1..Cardinality(S) -> S] : IsInjective(f)
  (* Some sequence holding each element of the finite set S once. *)

SetToSeqs(S) == { f \in [1..Cardinality(S) -> S] : IsInjective(f) }
  (* Every such sequence: the permutations of S. *)

SetToSortSeq(S, lt(_, _)) ==
  CHOOSE f \in SetToSeqs(S) : \A i \in 1..(Len(f) - 1) : lt(f[i], f[i + 1])
  (* The elements of S in the order given by the strict order lt. *)

TupleOf(S, n) == [1..n -> S]
  (* Sequences of length n over S. *)

SeqOf(S, n) == UNION { [1..m -> S] : m \in 0..n }
  (* Sequences of length at most n over S. *)

BoundedSeq(S, n) == SeqOf(S, n)

Contains(s, e) == \E i \in DOMAIN s : s[i] = e

Cons(e, s) == <<e>> \o s
  (* s with e put in front. *)

Front(s) == SubSeq(s, 1, Len(s) - 1)
  (* s without its last element. *)

Last(s) == s[Len(s)]
  (* The last element of a non-empty s. *)

Reverse(s) == [i \in 1..Len(s) |-> s[Len(s) - i + 1]]

IsPrefix(s, t) == Len(s) <= Len(t) /\ SubSeq(t, 1, Len(s)) = s

IsStrictPrefix(s, t) == IsPrefix(s, t) /\ s # t

IsSuffix(s, t) == IsPrefix(Reverse(s), Reverse(t))

IsStrictSuffix(s, t) == IsSuffix(s, t) /\ s # t

Prefixes(s) == { SubSeq(s, 1, n) : n \in 0..Len(s) }

Suffixes(s) == { SubSeq(s, n + 1, Len(s)) : n \in 0..Len(s) }

SubSeqs(s) == { SubSeq(s, i + 1, j) : i, j \in 0..Len(s) }
  (* The contiguous pieces of s, the empty one included. *)

InsertAt(s, i, e) == SubSeq(s, 1, i - 1) \o <<e>> \o SubSeq(s, i, Len(s))

ReplaceAt(s, i, e) == [s EXCEPT ![i] = e]

RemoveAt(s, i) == SubSeq(s, 1, i - 1) \o SubSeq(s, i + 1, Len(s))

Remove(s, e) == SelectSeq(s, LAMBDA x : x # e)
  (* s without any occurrence of e. *)

ReplaceAll(s, old, new) == [i \in DOMAIN s |-> IF s[i] = old THEN new ELSE s[i]]

SelectInSeq(s, Test(_)) ==
  LET I == { i \in 1..Len(s) : Test(s[i]) }
  IN IF I = {} THEN 0 ELSE CHOOSE i \in I : \A j \in I : i <= j
  (* The first index whose element satisfies Test, 0 if none does. *)

SelectLastInSeq(s, Test(_)) ==
  LET I == { i \in 1..Len(s) : Test(s[i]) }
  IN IF I = {} THEN 0 ELSE CHOOSE i \in I : \A j \in I : j <= i

RemoveFirst(s, e) ==
  LET i == SelectInSeq(s, LAMBDA x : x = e)
  IN IF i = 0 THEN s ELSE RemoveAt(s, i)

RemoveFirstMatch(s, Test(_)) ==
  LET i == SelectInSeq(s, Test)
  IN IF i = 0 THEN s ELSE RemoveAt(s, i)

FoldLeft(op(_, _), base, s) ==
  LET RECURSIVE F(_)
      F(n) == IF n = 0 THEN base ELSE op(F(n - 1), s[n])
  IN F(Len(s))
  (* op(...op(op(base, s[1]), s[2])..., s[Len(s)]). *)

FoldRight(op(_, _), s, base) ==
  LET RECURSIVE F(_)
      F(n) == IF n > Len(s) THEN base ELSE op(s[n], F(n + 1))
  IN F(1)
  (* op(s[1], op(s[2], ... op(s[Len(s)], base)...)). *)

FoldSeq(op(_, _), base, s) == FoldRight(op, s, base)

FlattenSeq(ss) == FoldLeft(LAMBDA acc, x : acc \o x, <<>>, ss)
  (* The concatenation of a sequence of sequences. *)

Zip(s, t) == [i \in 1..SmallerOf(Len(s), Len(t)) |-> <<s[i], t[i]>>]

Interleave(s, t) ==
  FoldLeft(LAMBDA acc, p : acc \o p, <<>>, [i \in 1..SmallerOf(Len(s), Len(t)) |-> <<s[i], t[i]>>])

LongestCommonPrefix(S) ==
  CHOOSE p \in UNION { Prefixes(s) : s \in S } :
    /\ \A s \in S : IsPrefix(p, s)
    /\ \A q \in UNION { Prefixes(s) : s \in S } : (\A s \in S : IsPrefix(q, s)) => Len(q) <= Len(p)

SeqMod(a, b) == IF a % b = 0 THEN b ELSE a % b
  (* a modulo b in 1..b, the index arithmetic of a ring over 1..b. *)

=============================================================================
