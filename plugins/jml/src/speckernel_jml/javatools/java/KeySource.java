package speckernel.javatools;

import com.sun.source.tree.ArrayAccessTree;
import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.DoWhileLoopTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.ForLoopTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewArrayTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParameterizedTypeTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.SwitchTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TypeParameterTree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * The program as KeY can read it: what javac does implicitly, written out.
 *
 * <p>KeY's Java front end (recoder) predates generics and autoboxing: it rejects type arguments
 * on its library classes, cannot parse the diamond, and has no boxing conversions. javac, which
 * this helper already runs, attributes the program; the rewrite then states its meaning in the
 * Java KeY reads, exactly as javac's own translation does: type arguments are erased (JLS 4.6),
 * a call whose erased result type is wider than the attributed one gets the cast javac inserts,
 * and boxing and unboxing conversions (JLS 5.1.7, 5.1.8) become {@code Integer.valueOf(e)} and
 * {@code e.intValue()}. Every edit is inline, so lines keep their numbers, and comments (the
 * JML) are untouched; a for-each loop over a collection becomes the iterator loop the language
 * defines it as. Constructs with no such translation KeY can read (lambdas, method references,
 * generic declarations) are reported, not rewritten:
 * the verifier's outcome for them is "unsupported by KeY", not a failure of the specification.
 */
final class KeySource {
    /** The rewritten source, and why KeY cannot verify it (empty when it can try). */
    record Result(String source, String unsupported) {
    }

    private KeySource() {
    }

    static Result prepare(String className, String source) {
        Result result = rewrite(className, source);
        if (!result.unsupported().isEmpty() || result.source().equals(source)) {
            return result;
        }
        // The rewrite is javac's meaning written out: it must compile to the same program.
        String problem = firstError(className, result.source());
        if (problem != null) {
            throw new IllegalStateException("the program rewritten for KeY does not compile: "
                                            + problem);
        }
        return result;
    }

    private static String firstError(String className, String source) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavacTask task = (JavacTask) compiler.getTask(null, null, diagnostics,
            List.of("-proc:none", "-Xlint:none", "-encoding", "UTF-8"), null,
            List.of(file(className, source)));
        try {
            task.analyze();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                return "line " + d.getLineNumber() + ": " + d.getMessage(null);
            }
        }
        return null;
    }

    private static JavaFileObject file(String className, String source) {
        return new SimpleJavaFileObject(URI.create("string:///" + className + ".java"),
                                        JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
    }

    private static Result rewrite(String className, String source) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavacTask task = (JavacTask) compiler.getTask(null, null, diagnostics,
            List.of("-proc:none", "-Xlint:none", "-encoding", "UTF-8"), null,
            List.of(file(className, source)));
        try {
            CompilationUnitTree unit = task.parse().iterator().next();
            task.analyze();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    return new Result(source, "");  // KeY reports what javac rejects itself
                }
            }
            Rewriter rewriter = new Rewriter(Trees.instance(task), task.getTypes(), unit, source);
            rewriter.scan(unit, null);
            if (!rewriter.unsupported.isEmpty()) {
                return new Result(source, rewriter.unsupported.get(0));
            }
            return new Result(apply(source, rewriter.edits), "");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A rewrite of one span: replaced by {@code replacement} (a deletion), or wrapped in
     * {@code prefix} and {@code suffix}; {@code depth} orders wraps of the same span (the cast
     * javac inserts inside the unboxing call). */
    private record Edit(int start, int end, String prefix, String suffix, String replacement,
                        int depth) {
        int length() {
            return end - start;
        }
    }

    private static String apply(String source, List<Edit> edits) {
        StringBuilder out = new StringBuilder();
        List<Edit> sorted = new ArrayList<>(edits);
        int[] deletedUntil = {0};
        for (int offset = 0; offset <= source.length(); offset++) {
            final int at = offset;
            sorted.stream().filter(e -> e.replacement == null && e.end == at)
                .sorted((a, b) -> a.length() != b.length() ? Integer.compare(a.length(), b.length())
                        : Integer.compare(a.depth, b.depth))
                .forEach(e -> out.append(e.suffix));
            sorted.stream().filter(e -> e.replacement == null && e.start == at)
                .sorted((a, b) -> a.length() != b.length() ? Integer.compare(b.length(), a.length())
                        : Integer.compare(b.depth, a.depth))
                .forEach(e -> out.append(e.prefix));
            sorted.stream().filter(e -> e.replacement != null && e.start == at)
                .forEach(e -> {
                    out.append(e.replacement);
                    deletedUntil[0] = Math.max(deletedUntil[0], e.end);
                });
            if (offset < source.length() && offset >= deletedUntil[0]) {
                out.append(source.charAt(offset));
            }
        }
        return out.toString();
    }

    private static final class Rewriter extends TreePathScanner<Void, Void> {
        private final Trees trees;
        private final Types types;
        private final CompilationUnitTree unit;
        private final SourcePositions positions;
        final List<Edit> edits = new ArrayList<>();
        final List<String> unsupported = new ArrayList<>();
        private final java.util.Set<String> names = new java.util.HashSet<>();
        private int counter;

        Rewriter(Trees trees, Types types, CompilationUnitTree unit, String source) {
            this.trees = trees;
            this.types = types;
            this.unit = unit;
            this.positions = trees.getSourcePositions();
            java.util.regex.Matcher words = java.util.regex.Pattern.compile("\\w+")
                .matcher(source);
            while (words.find()) {
                names.add(words.group());
            }
        }

        private int start(Tree tree) {
            return (int) positions.getStartPosition(unit, tree);
        }

        private int end(Tree tree) {
            return (int) positions.getEndPosition(unit, tree);
        }

        private long line(Tree tree) {
            return unit.getLineMap().getLineNumber(positions.getStartPosition(unit, tree));
        }

        private void refuse(Tree tree, String what) {
            unsupported.add(what + " (line " + line(tree) + ")");
        }

        private TypeMirror typeOf(Tree tree) {
            TreePath path = TreePath.getPath(getCurrentPath(), tree);
            if (path == null) {
                path = TreePath.getPath(unit, tree);
            }
            return path == null ? null : trees.getTypeMirror(path);
        }

        private static boolean primitive(TypeMirror type) {
            return type != null && type.getKind().isPrimitive();
        }

        private static boolean reference(TypeMirror type) {
            return type != null && (type.getKind() == TypeKind.DECLARED
                || type.getKind() == TypeKind.TYPEVAR || type.getKind() == TypeKind.ARRAY
                || type.getKind() == TypeKind.INTERSECTION);
        }

        /** The primitive type a boxed type unboxes to, or null. */
        private TypeMirror unboxed(TypeMirror type) {
            if (type == null || type.getKind() != TypeKind.DECLARED) {
                return null;
            }
            try {
                return types.unboxedType(type);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }

        private static String boxName(TypeMirror primitive) {
            return switch (primitive.getKind()) {
                case INT -> "Integer";
                case CHAR -> "Character";
                case BOOLEAN -> "Boolean";
                case LONG -> "Long";
                case DOUBLE -> "Double";
                case FLOAT -> "Float";
                case SHORT -> "Short";
                case BYTE -> "Byte";
                default -> throw new IllegalArgumentException(primitive.toString());
            };
        }

        /** Make the conversion of {@code expr} to {@code target} explicit, as javac performs it
         * in an assignment context: boxing a primitive into a reference type, unboxing a boxed
         * value into a primitive. */
        private void convert(ExpressionTree expr, TypeMirror target) {
            if (expr == null || target == null) {
                return;
            }
            TypeMirror type = typeOf(expr);
            if (primitive(type) && reference(target)) {
                edits.add(new Edit(start(expr), end(expr), "java.lang." + boxName(type)
                    + ".valueOf(", ")", null, 1));
            } else if (primitive(target)) {
                unbox(expr);
            }
        }

        /** Unbox {@code expr} if it has a boxed type (numeric and boolean contexts); a
         * parenthesised condition is unboxed inside its parentheses, which its statement
         * needs. */
        private void unbox(ExpressionTree expr) {
            if (expr instanceof ParenthesizedTree parenthesized) {
                expr = parenthesized.getExpression();
            }
            TypeMirror value = unboxed(typeOf(expr));
            if (value != null) {
                edits.add(new Edit(start(expr), end(expr), "(", ")." + value + "Value()", null,
                                   1));
            }
        }

        @Override
        public Void visitParameterizedType(ParameterizedTypeTree tree, Void p) {
            // List<Integer> -> List, new ArrayList<>() -> new ArrayList(): JLS 4.6 erasure
            edits.add(new Edit(end(tree.getType()), end(tree), null, null, "", 0));
            return super.visitParameterizedType(tree, p);
        }

        @Override
        public Void visitTypeParameter(TypeParameterTree tree, Void p) {
            refuse(tree, "a generic class or method declaration");
            return null;
        }

        @Override
        public Void visitLambdaExpression(LambdaExpressionTree tree, Void p) {
            refuse(tree, "a lambda expression");
            return null;
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree tree, Void p) {
            refuse(tree, "a method reference");
            return null;
        }

        @Override
        public Void visitClass(ClassTree tree, Void p) {
            if (getCurrentPath().getParentPath() != null
                && getCurrentPath().getParentPath().getLeaf() instanceof NewClassTree) {
                refuse(tree, "an anonymous class");
                return null;
            }
            return super.visitClass(tree, p);
        }

        @Override
        public Void visitEnhancedForLoop(EnhancedForLoopTree tree, Void p) {
            TypeMirror over = typeOf(tree.getExpression());
            if (over != null && over.getKind() == TypeKind.DECLARED) {
                return iterate(tree, p);
            }
            if (over == null || over.getKind() != TypeKind.ARRAY) {
                refuse(tree, "a for-each loop over a collection");
                return null;
            }
            TypeMirror element = ((javax.lang.model.type.ArrayType) over).getComponentType();
            TypeMirror variable = typeOf(tree.getVariable());
            if (primitive(element) != primitive(variable)) {
                refuse(tree, "a for-each loop that boxes or unboxes its elements");
                return null;
            }
            return super.visitEnhancedForLoop(tree, p);
        }

        /** {@code for (T x : c) body} over an Iterable becomes the loop JLS 14.14.2 defines,
         * erased: {@code for (java.util.Iterator i = (c).iterator(); i.hasNext(); ) { T x =
         * (T) i.next(); body }} (unboxed for a primitive {@code T}), on the same lines. */
        private Void iterate(EnhancedForLoopTree tree, Void p) {
            String iterator;
            do {
                iterator = "iterator" + counter++;
            } while (names.contains(iterator));
            names.add(iterator);
            TypeMirror variable = typeOf(tree.getVariable());
            if (variable == null) {
                refuse(tree, "a for-each loop over a collection");
                return null;
            }
            String next;
            String declared;
            if (primitive(variable)) {
                declared = variable.toString();
                next = "((java.lang." + boxName(variable) + ") " + iterator + ".next())."
                    + variable + "Value()";
            } else {
                declared = types.erasure(variable).toString();
                next = "((" + declared + ") " + iterator + ".next())";
            }
            edits.add(new Edit(start(tree), start(tree.getExpression()), null, null,
                               "for (java.util.Iterator " + iterator + " = (", 0));
            edits.add(new Edit(end(tree.getExpression()), start(tree.getStatement()), null, null,
                               ").iterator(); " + iterator + ".hasNext(); ) { " + declared + " "
                               + tree.getVariable().getName() + " = " + next + "; ", 0));
            edits.add(new Edit(start(tree.getStatement()), end(tree.getStatement()), "", " }",
                               null, 2));
            scan(tree.getExpression(), p);
            scan(tree.getStatement(), p);
            return null;
        }

        @Override
        public Void visitVariable(VariableTree tree, Void p) {
            if (tree.getInitializer() != null) {
                convert(tree.getInitializer(), typeOf(tree));
            }
            return super.visitVariable(tree, p);
        }

        @Override
        public Void visitAssignment(AssignmentTree tree, Void p) {
            convert(tree.getExpression(), typeOf(tree.getVariable()));
            return super.visitAssignment(tree, p);
        }

        @Override
        public Void visitCompoundAssignment(CompoundAssignmentTree tree, Void p) {
            if (unboxed(typeOf(tree.getVariable())) != null) {
                refuse(tree, "a compound assignment to a boxed variable");
                return null;
            }
            unbox(tree.getExpression());
            return super.visitCompoundAssignment(tree, p);
        }

        @Override
        public Void visitReturn(ReturnTree tree, Void p) {
            for (TreePath path = getCurrentPath(); path != null; path = path.getParentPath()) {
                if (path.getLeaf() instanceof LambdaExpressionTree) {
                    break;
                }
                if (path.getLeaf() instanceof MethodTree method) {
                    Element element = trees.getElement(path);
                    if (element instanceof ExecutableElement executable) {
                        convert(tree.getExpression(), executable.getReturnType());
                    }
                    break;
                }
            }
            return super.visitReturn(tree, p);
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree tree, Void p) {
            Element element = trees.getElement(getCurrentPath());
            if (element instanceof ExecutableElement method) {
                arguments(tree, method, tree.getArguments());
                TypeMirror declared = types.erasure(method.getReturnType());
                TypeMirror actual = typeOf(tree);
                boolean used = !(getCurrentPath().getParentPath().getLeaf()
                    instanceof ExpressionStatementTree);
                if (used && reference(actual) && reference(declared)
                    && !types.isSameType(declared, types.erasure(actual))) {
                    edits.add(new Edit(start(tree), end(tree), "((" + types.erasure(actual)
                        + ") ", ")", null, 0));
                }
            }
            return super.visitMethodInvocation(tree, p);
        }

        @Override
        public Void visitNewClass(NewClassTree tree, Void p) {
            Element element = trees.getElement(getCurrentPath());
            if (element instanceof ExecutableElement constructor) {
                arguments(tree, constructor, tree.getArguments());
            }
            return super.visitNewClass(tree, p);
        }

        private void arguments(Tree call, ExecutableElement method,
                               List<? extends ExpressionTree> args) {
            int declared = method.getParameters().size();
            TypeMirror last = args.isEmpty() ? null : typeOf(args.get(args.size() - 1));
            if (method.isVarArgs() && (args.size() != declared || last == null
                                       || last.getKind() != TypeKind.ARRAY)) {
                refuse(call, "a call with variable arguments");
                return;
            }
            for (int i = 0; i < args.size() && i < declared; i++) {
                convert(args.get(i), method.getParameters().get(i).asType());
            }
        }

        @Override
        public Void visitBinary(BinaryTree tree, Void p) {
            TypeMirror left = typeOf(tree.getLeftOperand());
            TypeMirror right = typeOf(tree.getRightOperand());
            boolean equality = tree.getKind() == Tree.Kind.EQUAL_TO
                || tree.getKind() == Tree.Kind.NOT_EQUAL_TO;
            boolean concatenation = tree.getKind() == Tree.Kind.PLUS
                && !primitive(typeOf(tree));
            if (!concatenation && (!equality || primitive(left) || primitive(right))) {
                unbox(tree.getLeftOperand());
                unbox(tree.getRightOperand());
            }
            return super.visitBinary(tree, p);
        }

        @Override
        public Void visitUnary(UnaryTree tree, Void p) {
            Tree.Kind kind = tree.getKind();
            if ((kind == Tree.Kind.PREFIX_INCREMENT || kind == Tree.Kind.POSTFIX_INCREMENT
                 || kind == Tree.Kind.PREFIX_DECREMENT || kind == Tree.Kind.POSTFIX_DECREMENT)
                && unboxed(typeOf(tree.getExpression())) != null) {
                refuse(tree, "an increment of a boxed variable");
                return null;
            }
            unbox(tree.getExpression());
            return super.visitUnary(tree, p);
        }

        @Override
        public Void visitConditionalExpression(ConditionalExpressionTree tree, Void p) {
            unbox(tree.getCondition());
            TypeMirror type = typeOf(tree);
            convert(tree.getTrueExpression(), type);
            convert(tree.getFalseExpression(), type);
            return super.visitConditionalExpression(tree, p);
        }

        @Override
        public Void visitIf(IfTree tree, Void p) {
            unbox(tree.getCondition());
            return super.visitIf(tree, p);
        }

        @Override
        public Void visitWhileLoop(WhileLoopTree tree, Void p) {
            unbox(tree.getCondition());
            return super.visitWhileLoop(tree, p);
        }

        @Override
        public Void visitDoWhileLoop(DoWhileLoopTree tree, Void p) {
            unbox(tree.getCondition());
            return super.visitDoWhileLoop(tree, p);
        }

        @Override
        public Void visitForLoop(ForLoopTree tree, Void p) {
            if (tree.getCondition() != null) {
                unbox(tree.getCondition());
            }
            return super.visitForLoop(tree, p);
        }

        @Override
        public Void visitArrayAccess(ArrayAccessTree tree, Void p) {
            unbox(tree.getIndex());
            return super.visitArrayAccess(tree, p);
        }

        @Override
        public Void visitNewArray(NewArrayTree tree, Void p) {
            for (ExpressionTree dimension : tree.getDimensions()) {
                unbox(dimension);
            }
            if (tree.getInitializers() != null) {
                TypeMirror type = typeOf(tree);
                if (type instanceof javax.lang.model.type.ArrayType array) {
                    for (ExpressionTree item : tree.getInitializers()) {
                        convert(item, array.getComponentType());
                    }
                }
            }
            return super.visitNewArray(tree, p);
        }

        @Override
        public Void visitSwitch(SwitchTree tree, Void p) {
            unbox(tree.getExpression());
            return super.visitSwitch(tree, p);
        }
    }
}
