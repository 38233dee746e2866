"""``testinputs``: which methods a program declares and the types of their parameters, read
from the code tokens; modifiers and annotations are no part of a parameter's type, and calls
are not declarations."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from speckernel_jml.testinputs import Call, Parameter, input_lines, method_parameters

PROGRAM = """
public class A {
    //@ requires x > 0;
    public static int f(final int x, @Nullable String[] names) { return g(x, 1); }
    int g(@javax.annotation.Nonnull int a, final @Size(max = 3, min = (1)) int b) {
        return h(a + b);
    }
    <T> java.util.List<T> wrap(java.util.List<T> xs) throws Exception { return xs; }
    abstract void none();
    void callsOnly() { foo(bar, 2); new A(1); }
}
"""


def test_declared_methods_and_their_parameter_types() -> None:
    assert method_parameters(PROGRAM) == {
        ("f", 2): (Parameter("int", "x"), Parameter("String[]", "names")),
        ("g", 2): (Parameter("int", "a"), Parameter("int", "b")),
        ("wrap", 1): (Parameter("java.util.List<T>", "xs"),),
        ("none", 0): (),
        ("callsOnly", 0): (),
    }


ANNOTATIONS = st.sampled_from(["", "@A ", "@a.b.C ", "@A(1) ", "@A(x = {1, 2}) ",
                               "@A(f(g(1))) ", "@ A ", "final ", "final @A ", "@A final "])
TYPES = st.sampled_from(["int", "long", "char", "boolean", "String", "int[]", "String[]"])


@given(st.lists(st.tuples(ANNOTATIONS, TYPES), min_size=1, max_size=4))
def test_annotations_and_modifiers_leave_the_types_and_inputs_alone(
        params: list[tuple[str, str]]) -> None:
    """The same method with and without modifiers and annotations on its parameters: the
    same parameter types, and the same input lines for a call."""
    names = [f"p{i}" for i in range(len(params))]
    plain = ", ".join(f"{kind} {name}" for (_, kind), name in zip(params, names, strict=True))
    decorated = ", ".join(f"{prefix}{kind} {name}"
                          for (prefix, kind), name in zip(params, names, strict=True))
    found = method_parameters(f"class A {{ void m({decorated}) {{ }} }}")
    assert found == method_parameters(f"class A {{ void m({plain}) {{ }} }}")
    assert found[("m", len(params))] == tuple(
        Parameter(kind, name) for (_, kind), name in zip(params, names, strict=True))
    values = {"int": 3, "long": 4, "char": "c", "boolean": True, "String": "s",
              "int[]": [1, 2], "String[]": ["a"]}
    call = [Call("m", tuple(values[kind] for _, kind in params))]
    assert input_lines(f"class A {{ void m({decorated}) {{ }} }}", call) == input_lines(
        f"class A {{ void m({plain}) {{ }} }}", call)
