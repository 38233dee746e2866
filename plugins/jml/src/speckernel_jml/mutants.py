"""Mutation analysis for FormalBench's completeness metric (notes §A4).

FormalBench mutates the *spec-annotated* file with Major (operators AOR, ROR, COR, LOR, SOR,
ORU, LVR, STD) and counts how many mutants the spec rejects. Major is not on any registry these
machines reach, so the same operator set is implemented on JavaParser (``javatools/java/
Mutator.java``): each mutant is a text edit of one operator, literal, expression or statement,
so the JML comments stay byte for byte. Mutants that do not compile are dropped, and so are
mutants the compiler proves equivalent — class files (``javac -g:none``) identical to the
original's (trivial compiler equivalence) — or identical to an earlier mutant's.

The operator semantics follow Major's definitions:

- AOR: ``+ - * / %`` replaced by each other (also in compound assignments).
- ROR: ``< <= > >= == !=`` replaced by each other and the whole comparison by true and false.
- COR: ``&&``/``||`` replaced by each other, by either operand, by ``==``/``!=``, true, false.
- LOR: ``& | ^`` replaced by each other (also ``&= |= ^=``).
- SOR: ``<< >> >>>`` replaced by each other (also in compound assignments).
- ORU: unary ``- ~ +`` replaced by each other, ``!`` dropped, ``++``/``--`` swapped.
- LVR: a number by 0 and by itself ±1, a boolean by its negation, a string by ``""``.
- STD: an expression statement, ``break``, ``continue`` or ``return`` deleted.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from speckernel_jml.javatools import JavaTools, shared_tools

OPERATORS = ("AOR", "ROR", "COR", "LOR", "SOR", "ORU", "LVR", "STD")


@attrs.frozen
class Mutant:
    """One mutant of a class. ``id`` is its number among all generated mutants, in source
    order, so the same source always gives the same ids whatever the compiler dropped."""

    id: str
    operator: str
    line: int
    description: str
    """``original |==> mutated`` for the expression or statement that changed."""
    source: str


@attrs.frozen
class MutationAnalysis:
    """The surviving mutants and how many of the generated ones each filter removed."""

    mutants: tuple[Mutant, ...]
    generated: int
    uncompilable: int
    equivalent: int
    """Byte-identical to the original once compiled (trivial compiler equivalence)."""
    duplicate: int
    """Byte-identical to an earlier mutant."""


def analyse(source: str, class_name: str, operators: Iterable[str] = OPERATORS,
            tools: JavaTools | None = None) -> MutationAnalysis:
    """Generate, compile and filter the mutants of ``source``, whose top-level class is
    ``class_name``. Raises ``JavaToolsError`` when the original does not parse or compile."""
    chosen = list(operators)
    unknown = sorted(set(chosen) - set(OPERATORS))
    if unknown:
        raise ValueError(f"unknown mutation operators {unknown}; known: {OPERATORS}")
    answer = (tools or shared_tools()).request("mutate", class_name, source, ",".join(chosen))
    mutants = tuple(Mutant(id=m["id"], operator=m["operator"], line=m["line"],
                           description=m["description"], source=m["source"])
                    for m in answer["mutants"])
    return MutationAnalysis(mutants=mutants, generated=answer["generated"],
                            uncompilable=answer["uncompilable"],
                            equivalent=answer["equivalent"], duplicate=answer["duplicate"])


def generate_mutants(source: str, class_name: str, operators: Iterable[str] = OPERATORS,
                     tools: JavaTools | None = None) -> list[Mutant]:
    """The compiling, non-equivalent mutants of ``source``, in id order."""
    return list(analyse(source, class_name, operators, tools).mutants)
