package speckernel.javatools;

import com.github.javaparser.Position;
import com.github.javaparser.Range;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.BinaryExpr;
import com.github.javaparser.ast.expr.BooleanLiteralExpr;
import com.github.javaparser.ast.expr.ConditionalExpr;
import com.github.javaparser.ast.expr.DoubleLiteralExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.InstanceOfExpr;
import com.github.javaparser.ast.expr.IntegerLiteralExpr;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.LongLiteralExpr;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import com.github.javaparser.ast.expr.UnaryExpr;
import com.github.javaparser.ast.expr.VariableDeclarationExpr;
import com.github.javaparser.ast.stmt.BreakStmt;
import com.github.javaparser.ast.stmt.ContinueStmt;
import com.github.javaparser.ast.stmt.ExpressionStmt;
import com.github.javaparser.ast.stmt.ReturnStmt;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Major's mutation operators (AOR, ROR, COR, LOR, SOR, ORU, LVR, STD) as text edits on the
 * parsed program. Each mutant replaces the characters of one operator token or one expression
 * or statement, so everything else in the file, the JML comments above all, stays byte for byte.
 */
final class Mutator {
    /** One mutant before the compiler has judged it; {@code index} numbers them 1..n in source
     * order, which is also the mutant's id. */
    record Mutant(int index, String operator, int line, String description, String source) {}

    static final List<String> OPERATORS =
        List.of("AOR", "ROR", "COR", "LOR", "SOR", "ORU", "LVR", "STD");

    private static final List<BinaryExpr.Operator> ARITHMETIC = List.of(
        BinaryExpr.Operator.PLUS, BinaryExpr.Operator.MINUS, BinaryExpr.Operator.MULTIPLY,
        BinaryExpr.Operator.DIVIDE, BinaryExpr.Operator.REMAINDER);
    private static final List<BinaryExpr.Operator> RELATIONAL = List.of(
        BinaryExpr.Operator.LESS, BinaryExpr.Operator.LESS_EQUALS, BinaryExpr.Operator.GREATER,
        BinaryExpr.Operator.GREATER_EQUALS, BinaryExpr.Operator.EQUALS,
        BinaryExpr.Operator.NOT_EQUALS);
    private static final List<BinaryExpr.Operator> CONDITIONAL =
        List.of(BinaryExpr.Operator.AND, BinaryExpr.Operator.OR);
    private static final List<BinaryExpr.Operator> LOGICAL = List.of(
        BinaryExpr.Operator.BINARY_AND, BinaryExpr.Operator.BINARY_OR, BinaryExpr.Operator.XOR);
    private static final List<BinaryExpr.Operator> SHIFT = List.of(
        BinaryExpr.Operator.LEFT_SHIFT, BinaryExpr.Operator.SIGNED_RIGHT_SHIFT,
        BinaryExpr.Operator.UNSIGNED_RIGHT_SHIFT);
    private static final Map<String, List<BinaryExpr.Operator>> BINARY_FAMILIES = Map.of(
        "AOR", ARITHMETIC, "ROR", RELATIONAL, "COR", CONDITIONAL, "LOR", LOGICAL, "SOR", SHIFT);

    private final String source;
    private final int[] lineStarts;
    private final Set<String> enabled;
    private final List<Mutant> mutants = new ArrayList<>();

    Mutator(String source, Set<String> enabled) {
        this.source = source;
        this.lineStarts = lineStarts(source);
        this.enabled = enabled;
    }

    /** Every mutant of {@code unit}, in source order (pre-order walk, operators in the order
     * of {@link #OPERATORS} at each node). */
    List<Mutant> mutate(CompilationUnit unit) {
        unit.walk(Node.TreeTraversal.PREORDER, this::visit);
        return mutants;
    }

    private void visit(Node node) {
        if (node instanceof BinaryExpr binary) {
            binary(binary);
        } else if (node instanceof AssignExpr assign) {
            compoundAssign(assign);
        } else if (node instanceof UnaryExpr unary) {
            unary(unary);
        } else if (node instanceof IntegerLiteralExpr || node instanceof LongLiteralExpr
                   || node instanceof DoubleLiteralExpr || node instanceof BooleanLiteralExpr
                   || node instanceof StringLiteralExpr) {
            literal((Expression) node);
        } else if (node instanceof ExpressionStmt stmt
                   && !(stmt.getExpression() instanceof VariableDeclarationExpr)
                   || node instanceof BreakStmt || node instanceof ContinueStmt
                   || node instanceof ReturnStmt) {
            add("STD", node, ";");
        }
    }

    private void binary(BinaryExpr expr) {
        BinaryExpr.Operator op = expr.getOperator();
        for (String family : OPERATORS) {
            List<BinaryExpr.Operator> ops = BINARY_FAMILIES.get(family);
            if (ops == null || !ops.contains(op)) {
                continue;
            }
            for (BinaryExpr.Operator other : ops) {
                if (other != op) {
                    replaceOperator(family, expr, other);
                }
            }
            if (family.equals("COR")) {
                add(family, expr, operand(expr.getLeft()));
                add(family, expr, operand(expr.getRight()));
                replaceOperator(family, expr, BinaryExpr.Operator.EQUALS);
                replaceOperator(family, expr, BinaryExpr.Operator.NOT_EQUALS);
            }
            if (family.equals("ROR") || family.equals("COR")) {
                add(family, expr, "true");
                add(family, expr, "false");
            }
        }
    }

    /** {@code a op b} with another operator. Same precedence: only the token changes; otherwise
     * the expression is rebuilt with parentheses so the new operator binds as the old did. */
    private void replaceOperator(String family, BinaryExpr expr, BinaryExpr.Operator other) {
        BinaryExpr.Operator op = expr.getOperator();
        if (precedence(op) == precedence(other)) {
            int at = operatorBetween(expr.getLeft(), expr.getRight(), op.asString());
            if (at >= 0) {
                add(family, expr, at, at + op.asString().length(), other.asString());
            }
            return;
        }
        add(family, expr, "(" + operand(expr.getLeft()) + " " + other.asString() + " "
            + operand(expr.getRight()) + ")");
    }

    private void compoundAssign(AssignExpr assign) {
        String op = assign.getOperator().asString();
        for (String family : List.of("AOR", "LOR", "SOR")) {
            List<String> symbols = BINARY_FAMILIES.get(family).stream()
                .map(o -> o.asString() + "=").toList();
            if (!symbols.contains(op)) {
                continue;
            }
            int at = operatorBetween(assign.getTarget(), assign.getValue(), op);
            for (String other : symbols) {
                if (at >= 0 && !other.equals(op)) {
                    add(family, assign, at, at + op.length(), other);
                }
            }
        }
    }

    private void unary(UnaryExpr expr) {
        UnaryExpr.Operator op = expr.getOperator();
        List<List<UnaryExpr.Operator>> groups = List.of(
            List.of(UnaryExpr.Operator.MINUS, UnaryExpr.Operator.BITWISE_COMPLEMENT,
                    UnaryExpr.Operator.PLUS),
            List.of(UnaryExpr.Operator.PREFIX_INCREMENT, UnaryExpr.Operator.PREFIX_DECREMENT),
            List.of(UnaryExpr.Operator.POSTFIX_INCREMENT, UnaryExpr.Operator.POSTFIX_DECREMENT));
        if (op == UnaryExpr.Operator.LOGICAL_COMPLEMENT) {
            add("ORU", expr, operand(expr.getExpression()));
            return;
        }
        Range range = expr.getRange().orElseThrow();
        int length = op.asString().length();
        int at = op.isPostfix() ? offset(range.end) + 1 - length : offset(range.begin);
        for (List<UnaryExpr.Operator> group : groups) {
            if (group.contains(op)) {
                for (UnaryExpr.Operator other : group) {
                    if (other != op) {
                        add("ORU", expr, at, at + length, other.asString());
                    }
                }
            }
        }
    }

    /** Major's literal replacement: a number by 0 and by itself plus and minus one, a boolean
     * by its negation, a non-empty string by the empty string. */
    private void literal(Expression expr) {
        Set<String> values = new LinkedHashSet<>();
        if (expr instanceof IntegerLiteralExpr lit) {
            Number n = lit.asNumber();
            if (!(n instanceof Integer)) {
                return;
            }
            long v = n.longValue();
            for (long c : new long[] {0, v + 1, v - 1}) {
                if (c != v && c >= Integer.MIN_VALUE && c <= Integer.MAX_VALUE) {
                    values.add(c < 0 ? "(" + c + ")" : Long.toString(c));
                }
            }
        } else if (expr instanceof LongLiteralExpr lit) {
            Number n = lit.asNumber();
            if (!(n instanceof Long)) {
                return;
            }
            long v = n.longValue();
            for (long c : new long[] {0, v + 1, v - 1}) {
                if (c != v && (c > v) == (c - v > 0)) {
                    values.add(c < 0 ? "(" + c + "L)" : c + "L");
                }
            }
        } else if (expr instanceof DoubleLiteralExpr lit) {
            double v = lit.asDouble();
            String suffix = lit.getValue().matches(".*[fF]$") ? "f" : "";
            for (double c : new double[] {0, v + 1, v - 1}) {
                if (c != v) {
                    values.add(c < 0 ? "(" + c + suffix + ")" : c + suffix);
                }
            }
        } else if (expr instanceof BooleanLiteralExpr lit) {
            values.add(Boolean.toString(!lit.getValue()));
        } else if (expr instanceof StringLiteralExpr lit && !lit.getValue().isEmpty()) {
            values.add("\"\"");
        }
        for (String value : values) {
            add("LVR", expr, value);
        }
    }

    private void add(String family, Node node, String replacement) {
        Range range = node.getRange().orElseThrow();
        add(family, node, offset(range.begin), offset(range.end) + 1, replacement);
    }

    /** Record the mutant that puts {@code replacement} in place of the characters from
     * {@code start} to {@code end} (inside {@code node}). */
    private void add(String family, Node node, int start, int end, String replacement) {
        if (!enabled.contains(family)) {
            return;
        }
        String nodeText = text(node);
        Range whole = node.getRange().orElseThrow();
        int nodeStart = offset(whole.begin);
        String mutatedNode = nodeText.substring(0, start - nodeStart) + replacement
            + nodeText.substring(end - nodeStart);
        String mutated = source.substring(0, start) + replacement + source.substring(end);
        String description = oneLine(nodeText) + " |==> " + oneLine(mutatedNode);
        mutants.add(new Mutant(mutants.size() + 1, family, whole.begin.line, description,
                               mutated));
    }

    /** The operand's text, parenthesised when it could bind differently next to a new
     * operator. */
    private String operand(Expression expr) {
        boolean loose = expr instanceof BinaryExpr || expr instanceof ConditionalExpr
            || expr instanceof AssignExpr || expr instanceof InstanceOfExpr
            || expr instanceof LambdaExpr;
        return loose ? "(" + text(expr) + ")" : text(expr);
    }

    private String text(Node node) {
        Range range = node.getRange().orElseThrow();
        return source.substring(offset(range.begin), offset(range.end) + 1);
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s+", " ").trim();
    }

    /** Where the operator {@code symbol} between two operands starts, or -1 when a comment
     * sits between them (the text is then not just the operator and blanks). Read from the
     * text, not the tokens: JavaParser splits {@code >>} into two {@code >} tokens for the
     * sake of generics. */
    private int operatorBetween(Node left, Node right, String symbol) {
        int from = offset(left.getRange().orElseThrow().end) + 1;
        int to = offset(right.getRange().orElseThrow().begin);
        String gap = source.substring(from, to);
        return gap.strip().equals(symbol) ? from + gap.indexOf(symbol) : -1;
    }

    private static int precedence(BinaryExpr.Operator op) {
        return switch (op) {
            case OR -> 1;
            case AND -> 2;
            case BINARY_OR -> 3;
            case XOR -> 4;
            case BINARY_AND -> 5;
            case EQUALS, NOT_EQUALS -> 6;
            case LESS, LESS_EQUALS, GREATER, GREATER_EQUALS -> 7;
            case LEFT_SHIFT, SIGNED_RIGHT_SHIFT, UNSIGNED_RIGHT_SHIFT -> 8;
            case PLUS, MINUS -> 9;
            case MULTIPLY, DIVIDE, REMAINDER -> 10;
        };
    }

    private int offset(Position position) {
        return lineStarts[position.line - 1] + position.column - 1;
    }

    /** Where each line starts; JavaParser ends lines at \n, \r\n and \r and counts a tab as one
     * column. */
    private static int[] lineStarts(String text) {
        List<Integer> starts = new ArrayList<>(List.of(0));
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                i++;
                starts.add(i + 1);
            } else if (c == '\n' || c == '\r') {
                starts.add(i + 1);
            }
        }
        return starts.stream().mapToInt(Integer::intValue).toArray();
    }
}
