"""The JML plugin's Java helper on JavaParser: mutants and semantic-preserving transformations.

The parsing, rewriting and compiling happen in Java (``java/*.java``), because the mutants must
be real Java edits judged by the real compiler: one JVM, started once, parses with JavaParser
and compiles with the JDK's in-process compiler (``javax.tools``) for every request.
:mod:`speckernel_jml.mutants` and :mod:`speckernel_jml.transforms` are the APIs on top.
"""

from speckernel_jml.javatools.client import JavaTools, JavaToolsError, shared_tools
from speckernel_jml.javatools.toolchain import JavaParserToolchain

__all__ = ["JavaParserToolchain", "JavaTools", "JavaToolsError", "shared_tools"]
