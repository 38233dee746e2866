package speckernel.javatools;

import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.NodeList;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.FieldDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.ArrayAccessExpr;
import com.github.javaparser.ast.expr.ArrayCreationExpr;
import com.github.javaparser.ast.expr.ArrayInitializerExpr;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.BinaryExpr;
import com.github.javaparser.ast.expr.BooleanLiteralExpr;
import com.github.javaparser.ast.expr.CastExpr;
import com.github.javaparser.ast.expr.CharLiteralExpr;
import com.github.javaparser.ast.expr.ConditionalExpr;
import com.github.javaparser.ast.expr.DoubleLiteralExpr;
import com.github.javaparser.ast.expr.EnclosedExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.IntegerLiteralExpr;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.LiteralExpr;
import com.github.javaparser.ast.expr.LongLiteralExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.NullLiteralExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.expr.SimpleName;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import com.github.javaparser.ast.expr.ThisExpr;
import com.github.javaparser.ast.expr.UnaryExpr;
import com.github.javaparser.ast.expr.VariableDeclarationExpr;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.stmt.BreakStmt;
import com.github.javaparser.ast.stmt.ContinueStmt;
import com.github.javaparser.ast.stmt.DoStmt;
import com.github.javaparser.ast.stmt.EmptyStmt;
import com.github.javaparser.ast.stmt.ExpressionStmt;
import com.github.javaparser.ast.stmt.ForEachStmt;
import com.github.javaparser.ast.stmt.ForStmt;
import com.github.javaparser.ast.stmt.IfStmt;
import com.github.javaparser.ast.stmt.LabeledStmt;
import com.github.javaparser.ast.stmt.ReturnStmt;
import com.github.javaparser.ast.stmt.Statement;
import com.github.javaparser.ast.stmt.SwitchEntry;
import com.github.javaparser.ast.stmt.SwitchStmt;
import com.github.javaparser.ast.stmt.ThrowStmt;
import com.github.javaparser.ast.stmt.WhileStmt;
import com.github.javaparser.ast.type.Type;
import com.github.javaparser.printer.DefaultPrettyPrinter;
import com.github.javaparser.printer.configuration.DefaultConfigurationOption;
import com.github.javaparser.printer.configuration.DefaultPrinterConfiguration;
import com.github.javaparser.printer.configuration.Indentation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Semantic-preserving rewrites of a Java class (FormalBench App. A, after SPAT's rules). Each rule
 * rewrites every site it applies to and the class is printed again, tab-indented like
 * FormalBench's published variants. The rules keep meaning by construction where the syntax
 * suffices; where meaning hangs on types or side effects the rule stays away from doubtful sites,
 * and the caller still compiles each variant and runs the program's test on it.
 */
final class Transforms {
    static final List<String> RULES = List.of(
        "local-variable-renaming", "for-to-while", "while-to-for", "else-if-nesting",
        "switch-to-if", "compound-assignment-expansion", "increment-to-compound-assignment",
        "declaration-merging", "declaration-splitting", "statement-swapping",
        "if-else-reversal", "if-to-conditional", "conditional-to-if", "infix-splitting",
        "equality-operand-swap", "equals-receiver-swap", "relation-swapping",
        "condition-splitting", "loop-continue-to-else", "increment-extraction");

    private static final DefaultPrettyPrinter PRINTER = new DefaultPrettyPrinter(
        new DefaultPrinterConfiguration().addOption(new DefaultConfigurationOption(
            DefaultPrinterConfiguration.ConfigOption.INDENTATION,
            new Indentation(Indentation.IndentType.TABS, 1))));

    private Transforms() {}

    /** {@code unit} rewritten by {@code rule} and printed, or null when the rule applies
     * nowhere. */
    static String apply(CompilationUnit unit, String rule) {
        Transforms t = new Transforms();
        boolean changed = switch (rule) {
            case "local-variable-renaming" -> t.renameLocals(unit);
            case "for-to-while" -> t.forToWhile(unit);
            case "while-to-for" -> t.whileToFor(unit);
            case "else-if-nesting" -> t.elseIfNesting(unit);
            case "switch-to-if" -> t.switchToIf(unit);
            case "compound-assignment-expansion" -> t.expandCompoundAssignments(unit);
            case "increment-to-compound-assignment" -> t.incrementToCompound(unit);
            case "declaration-merging" -> t.mergeDeclarations(unit);
            case "declaration-splitting" -> t.splitDeclarations(unit);
            case "statement-swapping" -> t.swapStatements(unit);
            case "if-else-reversal" -> t.reverseIfElse(unit);
            case "if-to-conditional" -> t.ifToConditional(unit);
            case "conditional-to-if" -> t.conditionalToIf(unit);
            case "infix-splitting" -> t.splitInfix(unit);
            case "equality-operand-swap" -> t.swapEqualityOperands(unit);
            case "equals-receiver-swap" -> t.swapEqualsReceiver(unit);
            case "relation-swapping" -> t.swapRelations(unit);
            case "condition-splitting" -> t.splitConditions(unit);
            case "loop-continue-to-else" -> t.continueToElse(unit);
            case "increment-extraction" -> t.extractIncrements(unit);
            default -> throw new IllegalArgumentException("unknown rule " + rule);
        };
        return changed ? PRINTER.print(unit) : null;
    }

    // ---- the rules ----------------------------------------------------------------------

    /** Locals get neutral names {@code v0, v1, ...} in declaration order. Only names declared
     * once in their method and naming no field or parameter are renamed, so every simple name
     * with that spelling in the method means that local. */
    private boolean renameLocals(CompilationUnit unit) {
        Set<String> taken = identifiers(unit);
        Set<String> fields = new HashSet<>();
        for (FieldDeclaration field : unit.findAll(FieldDeclaration.class)) {
            field.getVariables().forEach(v -> fields.add(v.getNameAsString()));
        }
        int counter = 0;
        boolean changed = false;
        for (CallableDeclaration<?> method : unit.findAll(CallableDeclaration.class)) {
            Map<String, List<SimpleName>> declared = new LinkedHashMap<>();
            for (VariableDeclarator v : method.findAll(VariableDeclarator.class)) {
                declared.computeIfAbsent(v.getNameAsString(), k -> new ArrayList<>())
                    .add(v.getName());
            }
            for (Parameter p : method.findAll(Parameter.class)) {
                declared.computeIfAbsent(p.getNameAsString(), k -> new ArrayList<>())
                    .add(p.getName());
            }
            Set<String> parameters = new HashSet<>();
            method.getParameters().forEach(p -> parameters.add(p.getNameAsString()));
            for (Map.Entry<String, List<SimpleName>> entry : declared.entrySet()) {
                String name = entry.getKey();
                if (entry.getValue().size() != 1 || parameters.contains(name)
                    || fields.contains(name)) {
                    continue;
                }
                String fresh;
                do {
                    fresh = "v" + counter++;
                } while (taken.contains(fresh));
                taken.add(fresh);
                entry.getValue().get(0).setIdentifier(fresh);
                for (NameExpr use : method.findAll(NameExpr.class)) {
                    if (use.getNameAsString().equals(name)) {
                        use.setName(fresh);
                    }
                }
                changed = true;
            }
        }
        return changed;
    }

    /** {@code for (init; c; u) s} becomes {@code init; while (c) { s; u; }}; loops whose body
     * continues are left alone (a continue would skip the moved update). The loop and its
     * initialisation go in a block of their own when a variable it declares is declared again
     * elsewhere in the method. */
    private boolean forToWhile(CompilationUnit unit) {
        boolean changed = false;
        for (ForStmt loop : unit.findAll(ForStmt.class)) {
            if (loop.getParentNode().orElse(null) instanceof LabeledStmt || continues(loop)) {
                continue;
            }
            BlockStmt body = asBlock(loop.getBody());
            for (Expression update : loop.getUpdate()) {
                body.addStatement(new ExpressionStmt(update));
            }
            Expression condition = loop.getCompare().orElse(new BooleanLiteralExpr(true));
            boolean redeclared = false;
            for (VariableDeclarator v : loop.getInitialization().stream()
                     .flatMap(init -> init.findAll(VariableDeclarator.class).stream()).toList()) {
                redeclared |= declarations(enclosingCallable(loop), v.getNameAsString()) > 1;
            }
            List<Statement> replacement = new ArrayList<>();
            for (Expression init : loop.getInitialization()) {
                replacement.add(new ExpressionStmt(init));
            }
            replacement.add(new WhileStmt(condition, body));
            if (redeclared) {
                replacement = List.of(new BlockStmt(new NodeList<>(replacement)));
            }
            replaceStatement(loop, replacement);
            changed = true;
        }
        return changed;
    }

    /** {@code while (c) { s; u; }} becomes {@code for (; c; u) { s; }} when the last statement
     * is an update (an assignment or increment) and the body never continues; otherwise
     * {@code for (; c; ) s}. */
    private boolean whileToFor(CompilationUnit unit) {
        boolean changed = false;
        for (WhileStmt loop : unit.findAll(WhileStmt.class)) {
            if (loop.getParentNode().orElse(null) instanceof LabeledStmt) {
                continue;
            }
            Statement body = loop.getBody();
            NodeList<Expression> update = new NodeList<>();
            if (body instanceof BlockStmt block && block.getStatements().size() > 1
                && !continues(loop)) {
                Statement last = block.getStatements().getLast().orElseThrow();
                if (last instanceof ExpressionStmt stmt && isUpdate(stmt.getExpression())
                    && !usesLocalOf(stmt.getExpression(), block)) {
                    block.getStatements().removeLast();
                    update.add(stmt.getExpression());
                }
            }
            ForStmt replacement = new ForStmt(new NodeList<>(), loop.getCondition(), update, body);
            loop.replace(replacement);
            changed = true;
        }
        return changed;
    }

    /** {@code else if (c) s} becomes {@code else { if (c) s }}. */
    private boolean elseIfNesting(CompilationUnit unit) {
        boolean changed = false;
        for (IfStmt stmt : unit.findAll(IfStmt.class)) {
            if (stmt.getElseStmt().orElse(null) instanceof IfStmt inner) {
                stmt.removeElseStmt();
                stmt.setElseStmt(block(inner));
                changed = true;
            }
        }
        return changed;
    }

    /** A switch whose every group ends in a jump (no fall-through into code) becomes an
     * if/else-if chain on {@code selector == label}, or {@code "label".equals(selector)} for
     * strings; the default group becomes the last else. */
    private boolean switchToIf(CompilationUnit unit) {
        boolean changed = false;
        Set<String> taken = identifiers(unit);
        int counter = 0;
        for (SwitchStmt stmt : unit.findAll(SwitchStmt.class)) {
            Expression selector = stmt.getSelector();
            Statement saved = null;
            if (!(strip(selector) instanceof NameExpr)) {
                // The switch evaluates its selector once: a fresh local holds it (s.charAt(i)).
                String type = typeOf(selector);
                if (type == null || type.equals("boolean")) {
                    continue;
                }
                String name;
                do {
                    name = "selector" + counter++;
                } while (taken.contains(name));
                taken.add(name);
                saved = new ExpressionStmt(new VariableDeclarationExpr(new VariableDeclarator(
                    parseType(type), name, selector.clone())));
                selector = new NameExpr(name);
            }
            List<Expression> conditions = new ArrayList<>();
            List<BlockStmt> bodies = new ArrayList<>();
            BlockStmt otherwise = null;
            List<Expression> pending = new ArrayList<>();
            boolean pendingDefault = false;
            boolean ok = true;
            for (SwitchEntry entry : stmt.getEntries()) {
                boolean lastEntry = entry == stmt.getEntries().getLast().orElseThrow();
                for (Expression label : entry.getLabels()) {
                    if (!(label instanceof LiteralExpr || label instanceof NameExpr
                          || label instanceof FieldAccessExpr || label instanceof UnaryExpr)
                        || entry.getGuard().isPresent()) {
                        ok = false;
                    }
                    pending.add(label);
                }
                pendingDefault |= entry.isDefault();
                if (entry.getStatements().isEmpty()) {
                    continue;
                }
                BlockStmt body = switchBody(entry, lastEntry);
                if (body == null) {
                    ok = false;
                    break;
                }
                if (pendingDefault) {
                    if (!pending.isEmpty() || otherwise != null) {
                        ok = false;
                        break;
                    }
                    otherwise = body;
                } else {
                    Expression condition = null;
                    for (Expression label : pending) {
                        // selector.equals("x"), not "x".equals(selector): a null String
                        // selector throws, as the switch does.
                        Expression test = label instanceof StringLiteralExpr
                            ? new MethodCallExpr(parenthesised(selector.clone()), "equals",
                                                 new NodeList<>(label))
                            : new BinaryExpr(selector.clone(), label,
                                             BinaryExpr.Operator.EQUALS);
                        condition = condition == null ? test
                            : new BinaryExpr(condition, test, BinaryExpr.Operator.OR);
                    }
                    conditions.add(condition);
                    bodies.add(body);
                }
                pending.clear();
                pendingDefault = false;
            }
            if (!ok || !pending.isEmpty() || pendingDefault || conditions.isEmpty()) {
                continue;
            }
            Statement chain = otherwise == null || otherwise.isEmpty() ? null : otherwise;
            for (int i = conditions.size() - 1; i >= 0; i--) {
                chain = new IfStmt(conditions.get(i), bodies.get(i), chain);
            }
            replaceStatement(stmt, saved == null ? List.of(chain) : List.of(saved, chain));
            changed = true;
        }
        return changed;
    }

    /** The statements of one switch group without its closing break, or null when the group
     * can fall through (only the last may simply end) or breaks out of the switch from inside. */
    private static BlockStmt switchBody(SwitchEntry entry, boolean lastEntry) {
        List<Statement> statements = new ArrayList<>(entry.getStatements());
        if (entry.getType() == SwitchEntry.Type.STATEMENT_GROUP) {
            Statement last = statements.get(statements.size() - 1);
            if (last instanceof BreakStmt brk && brk.getLabel().isEmpty()) {
                statements.remove(statements.size() - 1);
            } else if (!(lastEntry || last instanceof ReturnStmt || last instanceof ThrowStmt
                         || last instanceof ContinueStmt)) {
                return null;
            }
        } else if (entry.getType() == SwitchEntry.Type.EXPRESSION) {
            Statement only = statements.get(0);
            if (only instanceof ExpressionStmt expr
                && !isStatementExpression(expr.getExpression())) {
                return null;
            }
        }
        for (Statement s : statements) {
            for (BreakStmt brk : s.findAll(BreakStmt.class)) {
                if (brk.getLabel().isEmpty() && breakTarget(brk) instanceof SwitchStmt target
                    && target == entry.getParentNode().orElse(null)) {
                    return null;
                }
            }
        }
        if (statements.size() == 1 && statements.get(0) instanceof BlockStmt block) {
            return block;
        }
        return new BlockStmt(new NodeList<>(statements));
    }

    /** {@code x op= e} becomes {@code x = (T) (x op (e))} where {@code x} can be evaluated
     * twice: JLS 15.26.2 defines the compound form with that cast to the target's type {@code T}
     * ({@code int i; i += 1.5} truncates). The cast is left out where {@code x op e} already has
     * type {@code T}; a target of unknown type is left alone. */
    private boolean expandCompoundAssignments(CompilationUnit unit) {
        boolean changed = false;
        for (AssignExpr assign : unit.findAll(AssignExpr.class)) {
            if (assign.getOperator() == AssignExpr.Operator.ASSIGN
                || !pure(assign.getTarget(), false)) {
                continue;
            }
            String target = typeOf(assign.getTarget());
            if (target == null) {
                continue;
            }
            BinaryExpr.Operator op = assign.getOperator().toBinaryOperator().orElseThrow();
            Expression value = assign.getValue();
            String result = binaryType(op, target, typeOf(value));
            assign.setValue(new NullLiteralExpr());
            BinaryExpr computed = new BinaryExpr(assign.getTarget().clone(), parenthesised(value),
                                                 op);
            Expression stored = target.equals(result) ? computed
                : new CastExpr(parseType(target), new EnclosedExpr(computed));
            assign.setValue(stored);
            assign.setOperator(AssignExpr.Operator.ASSIGN);
            changed = true;
        }
        return changed;
    }

    /** {@code i++;} (as a statement or a for update) becomes {@code i += 1;}. */
    private boolean incrementToCompound(CompilationUnit unit) {
        boolean changed = false;
        for (UnaryExpr expr : unit.findAll(UnaryExpr.class)) {
            Node parent = expr.getParentNode().orElse(null);
            boolean statement = parent instanceof ExpressionStmt
                || parent instanceof ForStmt loop && loop.getUpdate().contains(expr);
            if (!statement || !isIncrement(expr)) {
                continue;
            }
            boolean up = expr.getOperator() == UnaryExpr.Operator.POSTFIX_INCREMENT
                || expr.getOperator() == UnaryExpr.Operator.PREFIX_INCREMENT;
            expr.replace(new AssignExpr(expr.getExpression(), new IntegerLiteralExpr("1"),
                up ? AssignExpr.Operator.PLUS : AssignExpr.Operator.MINUS));
            changed = true;
        }
        return changed;
    }

    /** Adjacent declarations of the same type become one: {@code int a = 0; int b = 1;} to
     * {@code int a = 0, b = 1;}. */
    private boolean mergeDeclarations(CompilationUnit unit) {
        boolean changed = false;
        for (BlockStmt block : unit.findAll(BlockStmt.class)) {
            NodeList<Statement> statements = block.getStatements();
            for (int i = statements.size() - 1; i > 0; i--) {
                VariableDeclarationExpr first = declaration(statements.get(i - 1));
                VariableDeclarationExpr second = declaration(statements.get(i));
                if (first != null && second != null && sameTypes(first, second)
                    && first.getModifiers().equals(second.getModifiers())
                    && first.getAnnotations().isEmpty() && second.getAnnotations().isEmpty()
                    && statements.get(i).getComment().isEmpty()) {
                    for (VariableDeclarator v : new ArrayList<>(second.getVariables())) {
                        first.getVariables().add(v);
                    }
                    statements.remove(i);
                    changed = true;
                }
            }
        }
        return changed;
    }

    /** A declaration with initialisers becomes a bare declaration followed by assignments:
     * {@code int a = 0, b = 1;} to {@code int a, b; a = 0; b = 1;}. */
    private boolean splitDeclarations(CompilationUnit unit) {
        boolean changed = false;
        for (BlockStmt block : unit.findAll(BlockStmt.class)) {
            NodeList<Statement> statements = block.getStatements();
            for (int i = statements.size() - 1; i >= 0; i--) {
                VariableDeclarationExpr decl = declaration(statements.get(i));
                if (decl == null || decl.getVariables().stream().anyMatch(
                        v -> v.getInitializer().orElse(null) instanceof ArrayInitializerExpr)
                    || decl.getVariables().stream().noneMatch(v -> v.getInitializer().isPresent())
                    || decl.getElementType().isVarType()) {
                    continue;
                }
                List<Statement> assignments = new ArrayList<>();
                for (VariableDeclarator v : decl.getVariables()) {
                    Expression init = v.getInitializer().orElse(null);
                    v.removeInitializer();
                    if (init != null) {
                        assignments.add(assignment(new NameExpr(v.getNameAsString()), init));
                    }
                }
                statements.addAll(i + 1, assignments);
                changed = true;
            }
        }
        return changed;
    }

    /** Adjacent simple statements that share no variable one of them writes trade places
     * (each pair at most once, scanning left to right). Statements calling methods stay put:
     * a call may have effects this analysis cannot see. */
    private boolean swapStatements(CompilationUnit unit) {
        boolean changed = false;
        for (BlockStmt block : unit.findAll(BlockStmt.class)) {
            NodeList<Statement> statements = block.getStatements();
            for (int i = 0; i + 1 < statements.size(); i++) {
                Statement a = statements.get(i);
                Statement b = statements.get(i + 1);
                if (independent(a, b)) {
                    statements.set(i, b);
                    statements.set(i + 1, a);
                    changed = true;
                    i++;
                }
            }
        }
        return changed;
    }

    /** {@code if (c) a else b} becomes {@code if (!c) b else a}, with the negation pushed into
     * comparisons where that is exact (not for floating point, where NaN breaks it). */
    private boolean reverseIfElse(CompilationUnit unit) {
        boolean changed = false;
        for (IfStmt stmt : unit.findAll(IfStmt.class)) {
            Statement otherwise = stmt.getElseStmt().orElse(null);
            if (otherwise == null) {
                continue;
            }
            Statement then = stmt.getThenStmt();
            stmt.setCondition(negate(stmt.getCondition()));
            stmt.setThenStmt(new EmptyStmt());
            stmt.removeElseStmt();
            stmt.setThenStmt(otherwise instanceof IfStmt ? block(otherwise) : otherwise);
            stmt.setElseStmt(then);
            changed = true;
        }
        return changed;
    }

    /** {@code if (c) x = a; else x = b;} becomes {@code x = c ? a : b;}, {@code if (c) return
     * a; else return b;} becomes {@code return c ? a : b;}, and {@code if (c) x = a;} for a
     * variable {@code x} becomes {@code x = c ? a : x;}. Both arms must have one known type: a
     * conditional over {@code Integer} and {@code int} unboxes, and may throw where the if
     * did not. */
    private boolean ifToConditional(CompilationUnit unit) {
        boolean changed = false;
        for (IfStmt stmt : unit.findAll(IfStmt.class)) {
            Statement then = single(stmt.getThenStmt());
            Statement otherwise = stmt.getElseStmt().map(Transforms::single).orElse(null);
            Expression condition = stmt.getCondition();
            Statement replacement = null;
            if (then instanceof ReturnStmt r1 && otherwise instanceof ReturnStmt r2
                && r1.getExpression().isPresent() && r2.getExpression().isPresent()
                && sameKnownType(r1.getExpression().get(), r2.getExpression().get())) {
                replacement = new ReturnStmt(new ConditionalExpr(
                    condition, r1.getExpression().get(), r2.getExpression().get()));
            }
            AssignExpr a1 = plainAssignment(then);
            AssignExpr a2 = plainAssignment(otherwise);
            // Without an else the target is read when the condition is false, so it must be a
            // variable (reading s[0] may throw where the if did nothing).
            if (a1 != null && pure(a1.getTarget(), false)
                && (stmt.getElseStmt().isEmpty() && stmt.getParentNode().orElse(null)
                        instanceof BlockStmt && strip(a1.getTarget()) instanceof NameExpr
                        && sameKnownType(a1.getValue(), a1.getTarget())
                    || a2 != null && a2.getTarget().equals(a1.getTarget())
                        && sameKnownType(a1.getValue(), a2.getValue()))) {
                Expression other = a2 == null ? a1.getTarget().clone() : a2.getValue();
                replacement = new ExpressionStmt(new AssignExpr(a1.getTarget(),
                    new ConditionalExpr(condition, parenthesised(a1.getValue()),
                                        parenthesised(other)),
                    AssignExpr.Operator.ASSIGN));
            }
            if (replacement != null) {
                stmt.replace(replacement);
                changed = true;
            }
        }
        return changed;
    }

    /** The reverse: {@code x = c ? a : b;}, {@code T x = c ? a : b;} and {@code return c ? a :
     * b;} become if/else statements. */
    private boolean conditionalToIf(CompilationUnit unit) {
        boolean changed = false;
        for (ConditionalExpr cond : unit.findAll(ConditionalExpr.class)) {
            Node parent = cond.getParentNode().orElse(null);
            Statement replacementThen;
            Statement replacementElse;
            Statement owner;
            List<Statement> before = new ArrayList<>();
            if (parent instanceof ReturnStmt ret) {
                owner = ret;
                replacementThen = new ReturnStmt(cond.getThenExpr());
                replacementElse = new ReturnStmt(cond.getElseExpr());
            } else if (parent instanceof AssignExpr assign
                       && assign.getOperator() == AssignExpr.Operator.ASSIGN
                       && assign.getValue() == cond
                       && assign.getParentNode().orElse(null) instanceof ExpressionStmt stmt) {
                owner = stmt;
                replacementThen = assignment(assign.getTarget().clone(), cond.getThenExpr());
                replacementElse = assignment(assign.getTarget().clone(), cond.getElseExpr());
            } else if (parent instanceof VariableDeclarator v
                       && v.getParentNode().orElse(null) instanceof VariableDeclarationExpr decl
                       && decl.getVariables().size() == 1
                       && !decl.getElementType().isVarType()
                       && decl.getParentNode().orElse(null) instanceof ExpressionStmt stmt
                       && stmt.getParentNode().orElse(null) instanceof BlockStmt) {
                owner = stmt;
                v.removeInitializer();
                before.add(stmt.clone());
                replacementThen = assignment(new NameExpr(v.getNameAsString()),
                                             cond.getThenExpr());
                replacementElse = assignment(new NameExpr(v.getNameAsString()),
                                             cond.getElseExpr());
            } else {
                continue;
            }
            before.add(new IfStmt(cond.getCondition(), block(replacementThen),
                                  block(replacementElse)));
            replaceStatement(owner, before);
            changed = true;
        }
        return changed;
    }

    /** One operand of a compound infix expression moves into a fresh local declared just
     * before the statement: {@code mid = (low + high) / 2;} to {@code int t0 = low + high;
     * mid = (t0) / 2;}. Only side-effect-free expressions of a type this class can infer, and
     * never from the short-circuited side of {@code &&}/{@code ||}. */
    private boolean splitInfix(CompilationUnit unit) {
        Set<String> taken = identifiers(unit);
        int counter = 0;
        boolean changed = false;
        for (Statement stmt : unit.findAll(Statement.class)) {
            Expression top = topExpression(stmt);
            if (top == null || !(stmt.getParentNode().orElse(null) instanceof BlockStmt)
                || !(strip(top) instanceof BinaryExpr binary) || !pure(top, false)) {
                continue;
            }
            List<Expression> operands = new ArrayList<>(List.of(binary.getLeft()));
            if (binary.getOperator() != BinaryExpr.Operator.AND
                && binary.getOperator() != BinaryExpr.Operator.OR) {
                operands.add(binary.getRight());
            }
            for (Expression operand : operands) {
                Expression inner = strip(operand);
                String type = inner instanceof BinaryExpr ? typeOf(inner) : null;
                if (type == null) {
                    continue;
                }
                String fresh;
                do {
                    fresh = "t" + counter++;
                } while (taken.contains(fresh));
                taken.add(fresh);
                inner.replace(new NameExpr(fresh));
                VariableDeclarationExpr decl = new VariableDeclarationExpr(
                    new VariableDeclarator(parseType(type), fresh, inner));
                replaceStatement(stmt, List.of(new ExpressionStmt(decl), stmt));
                changed = true;
                break;
            }
        }
        return changed;
    }

    /** {@code a == b} becomes {@code b == a} (also {@code !=}), for operands without side
     * effects. */
    private boolean swapEqualityOperands(CompilationUnit unit) {
        return swapBinary(unit, Map.of(BinaryExpr.Operator.EQUALS, BinaryExpr.Operator.EQUALS,
            BinaryExpr.Operator.NOT_EQUALS, BinaryExpr.Operator.NOT_EQUALS));
    }

    /** {@code a < b} becomes {@code b > a} (and likewise for the other orderings). */
    private boolean swapRelations(CompilationUnit unit) {
        return swapBinary(unit, Map.of(
            BinaryExpr.Operator.LESS, BinaryExpr.Operator.GREATER,
            BinaryExpr.Operator.GREATER, BinaryExpr.Operator.LESS,
            BinaryExpr.Operator.LESS_EQUALS, BinaryExpr.Operator.GREATER_EQUALS,
            BinaryExpr.Operator.GREATER_EQUALS, BinaryExpr.Operator.LESS_EQUALS));
    }

    private boolean swapBinary(CompilationUnit unit,
                               Map<BinaryExpr.Operator, BinaryExpr.Operator> mirror) {
        boolean changed = false;
        for (BinaryExpr expr : unit.findAll(BinaryExpr.class)) {
            BinaryExpr.Operator to = mirror.get(expr.getOperator());
            if (to == null || !pure(expr.getLeft(), true) || !pure(expr.getRight(), true)) {
                continue;
            }
            Expression left = expr.getLeft();
            Expression right = expr.getRight();
            expr.setLeft(new NullLiteralExpr());
            expr.setRight(new NullLiteralExpr());
            expr.setLeft(parenthesisedAt(right, to));
            expr.setRight(parenthesisedAt(left, to));
            expr.setOperator(to);
            changed = true;
        }
        return changed;
    }

    /** The receiver and argument of {@code equals} trade places where that keeps every outcome:
     * {@code "lit".equals(b)} becomes {@code (b != null && b.equals("lit"))} for a String
     * {@code b} without effects, and {@code r.equals("lit")} becomes {@code "lit".equals(r)}
     * when {@code r} is a String that cannot be null (the result of a String method such as
     * {@code substring}), evaluated exactly as before. A receiver that may be null throws, and
     * one whose evaluation may throw would be skipped by a null guard evaluated first: no
     * rewrite keeps those, so they stay. Only Strings, whose equals is symmetric. */
    private boolean swapEqualsReceiver(CompilationUnit unit) {
        boolean changed = false;
        for (MethodCallExpr call : unit.findAll(MethodCallExpr.class)) {
            if (!call.getNameAsString().equals("equals") || call.getArguments().size() != 1
                || call.getScope().isEmpty()) {
                continue;
            }
            Expression receiver = call.getScope().get();
            Expression argument = call.getArgument(0);
            Expression swapped;
            if (receiver instanceof StringLiteralExpr && pure(argument, true)
                && "String".equals(typeOf(argument))) {
                swapped = new EnclosedExpr(new BinaryExpr(
                    new BinaryExpr(argument.clone(), new NullLiteralExpr(),
                                   BinaryExpr.Operator.NOT_EQUALS),
                    new MethodCallExpr(parenthesised(argument), "equals",
                                       new NodeList<>(receiver)),
                    BinaryExpr.Operator.AND));
            } else if (argument instanceof StringLiteralExpr && nonNullString(receiver)) {
                swapped = new MethodCallExpr(argument, "equals", new NodeList<>(receiver));
            } else {
                continue;
            }
            call.replace(swapped);
            changed = true;
        }
        return changed;
    }

    private static final Set<String> NON_NULL_STRING_METHODS = Set.of(
        "substring", "trim", "strip", "toUpperCase", "toLowerCase", "concat", "replace",
        "repeat", "toString");

    /** Whether {@code e} is a String that cannot be null: a literal, or a String method's
     * result on a String, or {@code String.valueOf}. */
    private static boolean nonNullString(Expression e) {
        Expression inner = strip(e);
        if (inner instanceof StringLiteralExpr) {
            return true;
        }
        if (!(inner instanceof MethodCallExpr call) || call.getScope().isEmpty()) {
            return false;
        }
        Expression scope = call.getScope().get();
        if (scope instanceof NameExpr type && type.getNameAsString().equals("String")) {
            return call.getNameAsString().equals("valueOf");
        }
        return NON_NULL_STRING_METHODS.contains(call.getNameAsString())
            && "String".equals(typeOf(scope));
    }

    /** {@code if (a && b) s} becomes {@code if (a) { if (b) s }}; {@code if (a || b) s}
     * becomes {@code if (a) s else if (b) s}. Only ifs without else. */
    private boolean splitConditions(CompilationUnit unit) {
        boolean changed = false;
        for (IfStmt stmt : unit.findAll(IfStmt.class)) {
            if (stmt.getElseStmt().isPresent()
                || !(strip(stmt.getCondition()) instanceof BinaryExpr cond)) {
                continue;
            }
            if (cond.getOperator() == BinaryExpr.Operator.AND) {
                Statement then = stmt.getThenStmt();
                stmt.setThenStmt(new EmptyStmt());
                stmt.setThenStmt(block(new IfStmt(cond.getRight(), then, null)));
            } else if (cond.getOperator() == BinaryExpr.Operator.OR) {
                stmt.setElseStmt(new IfStmt(cond.getRight(), stmt.getThenStmt().clone(), null));
            } else {
                continue;
            }
            stmt.setCondition(cond.getLeft());
            changed = true;
        }
        return changed;
    }

    /** In a loop body, {@code if (c) { a; continue; } rest} becomes {@code if (c) { a } else {
     * rest }}. */
    private boolean continueToElse(CompilationUnit unit) {
        boolean changed = false;
        for (BlockStmt body : unit.findAll(BlockStmt.class)) {
            Node loop = body.getParentNode().orElse(null);
            if (!(loop instanceof ForStmt || loop instanceof WhileStmt
                  || loop instanceof ForEachStmt || loop instanceof DoStmt)) {
                continue;
            }
            NodeList<Statement> statements = body.getStatements();
            for (int i = 0; i + 1 < statements.size(); i++) {
                if (!(statements.get(i) instanceof IfStmt stmt) || stmt.getElseStmt().isPresent()
                    || loop instanceof DoStmt) {
                    continue;
                }
                BlockStmt then = asBlock(stmt.getThenStmt());
                Statement last = then.getStatements().getLast().orElse(null);
                if (!(last instanceof ContinueStmt cont) || cont.getLabel().isPresent()) {
                    continue;
                }
                then.getStatements().removeLast();
                BlockStmt rest = new BlockStmt();
                while (statements.size() > i + 1) {
                    rest.addStatement(statements.remove(i + 1));
                }
                stmt.setThenStmt(then);
                stmt.setElseStmt(rest);
                changed = true;
                break;
            }
        }
        return changed;
    }

    /** Increments inside a larger expression statement move out of it: {@code r[k++] = a[i++];}
     * to {@code r[k] = a[i]; k++; i++;} (a pre-increment moves before the statement). Only when
     * the variable occurs once in the statement and nothing else in it has effects. */
    private boolean extractIncrements(CompilationUnit unit) {
        boolean changed = false;
        for (ExpressionStmt stmt : unit.findAll(ExpressionStmt.class)) {
            Expression top = stmt.getExpression();
            List<UnaryExpr> nested = new ArrayList<>();
            for (UnaryExpr u : top.findAll(UnaryExpr.class)) {
                if (u != top && isIncrement(u)) {
                    nested.add(u);
                }
            }
            if (nested.isEmpty() || top.findFirst(MethodCallExpr.class).isPresent()
                || top.findFirst(ObjectCreationExpr.class).isPresent()
                || top.findFirst(ConditionalExpr.class).isPresent()
                || top.findFirst(LambdaExpr.class).isPresent()
                || top.findAll(BinaryExpr.class).stream().anyMatch(
                    b -> b.getOperator() == BinaryExpr.Operator.AND
                         || b.getOperator() == BinaryExpr.Operator.OR)) {
                continue;
            }
            boolean ok = true;
            for (UnaryExpr u : nested) {
                String name = u.getExpression() instanceof NameExpr n ? n.getNameAsString() : null;
                long uses = top.findAll(NameExpr.class).stream()
                    .filter(n -> n.getNameAsString().equals(name)).count();
                ok &= name != null && uses == 1;
            }
            if (!ok) {
                continue;
            }
            List<Statement> before = new ArrayList<>();
            List<Statement> after = new ArrayList<>();
            for (UnaryExpr u : nested) {
                boolean prefix = u.getOperator().isPrefix();
                UnaryExpr.Operator postfix = u.getOperator() == UnaryExpr.Operator.PREFIX_INCREMENT
                    || u.getOperator() == UnaryExpr.Operator.POSTFIX_INCREMENT
                    ? UnaryExpr.Operator.POSTFIX_INCREMENT : UnaryExpr.Operator.POSTFIX_DECREMENT;
                Statement moved = new ExpressionStmt(
                    new UnaryExpr(u.getExpression().clone(), postfix));
                (prefix ? before : after).add(moved);
                u.replace(u.getExpression());
            }
            List<Statement> replacement = new ArrayList<>(before);
            replacement.add(stmt);
            replacement.addAll(after);
            replaceStatement(stmt, replacement);
            changed = true;
        }
        return changed;
    }

    // ---- helpers --------------------------------------------------------------------------

    /** Whether evaluating {@code e} can change state: assignments, increments, object creation
     * and (unless {@code callsAllowed}) method calls. */
    private static boolean pure(Expression e, boolean callsAllowed) {
        Predicate<Node> effect = n -> n instanceof AssignExpr
            || n instanceof UnaryExpr u && isIncrement(u)
            || n instanceof ObjectCreationExpr || n instanceof LambdaExpr
            || !callsAllowed && n instanceof MethodCallExpr;
        return e.stream().noneMatch(effect);
    }

    private static boolean isIncrement(UnaryExpr u) {
        return u.getOperator() == UnaryExpr.Operator.POSTFIX_INCREMENT
            || u.getOperator() == UnaryExpr.Operator.POSTFIX_DECREMENT
            || u.getOperator() == UnaryExpr.Operator.PREFIX_INCREMENT
            || u.getOperator() == UnaryExpr.Operator.PREFIX_DECREMENT;
    }

    private static boolean isUpdate(Expression e) {
        return e instanceof AssignExpr || e instanceof UnaryExpr u && isIncrement(u);
    }

    private static boolean isStatementExpression(Expression e) {
        return isUpdate(e) || e instanceof MethodCallExpr || e instanceof ObjectCreationExpr;
    }

    /** Whether a continue inside {@code loop}'s body targets {@code loop} itself. */
    private static boolean continues(Statement loop) {
        for (ContinueStmt c : loop.findAll(ContinueStmt.class)) {
            if (c.getLabel().isPresent() || innermostLoop(c) == loop) {
                return true;
            }
        }
        return false;
    }

    private static Node innermostLoop(Node n) {
        Node p = n.getParentNode().orElse(null);
        while (p != null && !(p instanceof ForStmt || p instanceof WhileStmt
                              || p instanceof DoStmt || p instanceof ForEachStmt)) {
            p = p.getParentNode().orElse(null);
        }
        return p;
    }

    private static Node breakTarget(BreakStmt brk) {
        Node p = brk.getParentNode().orElse(null);
        while (p != null && !(p instanceof ForStmt || p instanceof WhileStmt
                              || p instanceof DoStmt || p instanceof ForEachStmt
                              || p instanceof SwitchStmt)) {
            p = p.getParentNode().orElse(null);
        }
        return p;
    }

    private static CallableDeclaration<?> enclosingCallable(Node n) {
        return n.findAncestor(CallableDeclaration.class).orElse(null);
    }

    private static long declarations(Node scope, String name) {
        if (scope == null) {
            return 0;
        }
        return scope.findAll(VariableDeclarator.class).stream()
            .filter(v -> v.getNameAsString().equals(name)).count();
    }

    /** Replace {@code stmt} by {@code replacement} in its block, or by a block holding it when
     * the statement is not in one (an if branch without braces, say). */
    private static void replaceStatement(Statement stmt, List<Statement> replacement) {
        if (stmt.getParentNode().orElse(null) instanceof BlockStmt block) {
            NodeList<Statement> statements = block.getStatements();
            int index = indexOf(statements, stmt);
            statements.remove(index);
            statements.addAll(index, replacement);
        } else if (replacement.size() == 1) {
            stmt.replace(replacement.get(0));
        } else {
            stmt.replace(new BlockStmt(new NodeList<>(replacement)));
        }
    }

    private static int indexOf(NodeList<Statement> statements, Statement stmt) {
        for (int i = 0; i < statements.size(); i++) {
            if (statements.get(i) == stmt) {
                return i;
            }
        }
        throw new IllegalStateException("statement not in its block");
    }

    private static BlockStmt asBlock(Statement s) {
        return s instanceof BlockStmt b ? b : new BlockStmt(new NodeList<>(s));
    }

    private static BlockStmt block(Statement s) {
        return new BlockStmt(new NodeList<>(s));
    }

    private static Statement single(Statement s) {
        if (s instanceof BlockStmt b && b.getStatements().size() == 1) {
            return b.getStatement(0);
        }
        return s;
    }

    private static AssignExpr plainAssignment(Statement s) {
        if (s instanceof ExpressionStmt e && e.getExpression() instanceof AssignExpr a
            && a.getOperator() == AssignExpr.Operator.ASSIGN) {
            return a;
        }
        return null;
    }

    private static Statement assignment(Expression target, Expression value) {
        return new ExpressionStmt(new AssignExpr(target, value, AssignExpr.Operator.ASSIGN));
    }

    private static VariableDeclarationExpr declaration(Statement s) {
        if (s instanceof ExpressionStmt e && e.getExpression() instanceof VariableDeclarationExpr d
            && s.getComment().isEmpty()) {
            return d;
        }
        return null;
    }

    /** Whether every declarator of both declarations has one and the same type. */
    private static boolean sameTypes(VariableDeclarationExpr a, VariableDeclarationExpr b) {
        Type type = a.getVariable(0).getType();
        return a.getVariables().stream().allMatch(v -> v.getType().equals(type))
            && b.getVariables().stream().allMatch(v -> v.getType().equals(type))
            && !type.isVarType();
    }

    private static Expression strip(Expression e) {
        while (e instanceof EnclosedExpr enclosed) {
            e = enclosed.getInner();
        }
        return e;
    }

    /** {@code e} in parentheses unless it is atomic. */
    private static Expression parenthesised(Expression e) {
        boolean atomic = e instanceof NameExpr || e instanceof LiteralExpr
            || e instanceof EnclosedExpr || e instanceof MethodCallExpr
            || e instanceof FieldAccessExpr || e instanceof ArrayAccessExpr
            || e instanceof ThisExpr;
        return atomic ? e : new EnclosedExpr(e);
    }

    /** {@code e} as an operand of {@code op}, in parentheses when it binds more loosely. */
    private static Expression parenthesisedAt(Expression e, BinaryExpr.Operator op) {
        if (e instanceof BinaryExpr || e instanceof ConditionalExpr || e instanceof AssignExpr) {
            return new EnclosedExpr(e);
        }
        return e;
    }

    /** The logical negation of {@code e}, exact for every value (comparisons are inverted only
     * when no operand can be floating point). */
    private Expression negate(Expression e) {
        Expression inner = strip(e);
        if (inner instanceof UnaryExpr u && u.getOperator() == UnaryExpr.Operator.LOGICAL_COMPLEMENT) {
            return u.getExpression();
        }
        if (inner instanceof BinaryExpr b) {
            BinaryExpr.Operator inverse = switch (b.getOperator()) {
                case EQUALS -> BinaryExpr.Operator.NOT_EQUALS;
                case NOT_EQUALS -> BinaryExpr.Operator.EQUALS;
                case LESS -> BinaryExpr.Operator.GREATER_EQUALS;
                case LESS_EQUALS -> BinaryExpr.Operator.GREATER;
                case GREATER -> BinaryExpr.Operator.LESS_EQUALS;
                case GREATER_EQUALS -> BinaryExpr.Operator.LESS;
                default -> null;
            };
            boolean ordering = b.getOperator() != BinaryExpr.Operator.EQUALS
                && b.getOperator() != BinaryExpr.Operator.NOT_EQUALS;
            if (inverse != null && (!ordering || isIntegral(typeOf(b.getLeft()))
                                                 && isIntegral(typeOf(b.getRight())))) {
                return new BinaryExpr(b.getLeft(), b.getRight(), inverse);
            }
        }
        return new UnaryExpr(parenthesised(inner), UnaryExpr.Operator.LOGICAL_COMPLEMENT);
    }

    private static boolean isIntegral(String type) {
        return type != null && List.of("int", "long", "short", "byte", "char").contains(type);
    }

    /** The expression of a statement the infix rule may split: an assignment's value, a single
     * declaration's initialiser, or a returned value. */
    private static Expression topExpression(Statement stmt) {
        if (stmt instanceof ReturnStmt r) {
            return r.getExpression().orElse(null);
        }
        if (stmt instanceof ExpressionStmt e) {
            if (e.getExpression() instanceof AssignExpr a
                && a.getOperator() == AssignExpr.Operator.ASSIGN) {
                return a.getValue();
            }
            if (e.getExpression() instanceof VariableDeclarationExpr d
                && d.getVariables().size() == 1) {
                return d.getVariable(0).getInitializer().orElse(null);
            }
        }
        return null;
    }

    /** Two statements that can trade places: simple, effect-free apart from the variables
     * they assign, unable to throw (swapping two that can throw changes which exception
     * leaves, swapping one changes what was stored before it), and neither touches a variable
     * the other writes. */
    private static boolean independent(Statement a, Statement b) {
        Set<String> writesA = new HashSet<>();
        Set<String> readsA = new HashSet<>();
        Set<String> writesB = new HashSet<>();
        Set<String> readsB = new HashSet<>();
        if (!effects(a, writesA, readsA) || !effects(b, writesB, readsB)) {
            return false;
        }
        for (String w : writesA) {
            if (writesB.contains(w) || readsB.contains(w)) {
                return false;
            }
        }
        for (String w : writesB) {
            if (readsA.contains(w)) {
                return false;
            }
        }
        return true;
    }

    /** Stands for every array element and field in the read and write sets: without alias
     * analysis a store through one name may be a load through another. */
    private static final String HEAP = "[heap]";

    /** The variables a simple statement writes and reads, or false when it is not simple. */
    private static boolean effects(Statement s, Set<String> writes, Set<String> reads) {
        if (!(s instanceof ExpressionStmt stmt) || s.getComment().isPresent()) {
            return false;
        }
        Expression e = stmt.getExpression();
        if (e.findFirst(MethodCallExpr.class).isPresent()
            || e.findFirst(ObjectCreationExpr.class).isPresent()
            || e.findFirst(LambdaExpr.class).isPresent() || mayThrow(e)) {
            return false;
        }
        for (VariableDeclarator v : e.findAll(VariableDeclarator.class)) {
            writes.add(v.getNameAsString());
        }
        List<Expression> targets = new ArrayList<>();
        e.findAll(AssignExpr.class).forEach(a -> targets.add(a.getTarget()));
        e.findAll(UnaryExpr.class, Transforms::isIncrement)
            .forEach(u -> targets.add(u.getExpression()));
        for (Expression target : targets) {
            writes.add(root(target));
            if (!(strip(target) instanceof NameExpr)) {
                writes.add(HEAP);  // an element or field: another name may alias it
            }
        }
        for (NameExpr n : e.findAll(NameExpr.class)) {
            reads.add(n.getNameAsString());
        }
        if (e.findFirst(ArrayAccessExpr.class).isPresent() || e.findAll(FieldAccessExpr.class)
                .stream().anyMatch(f -> !f.getNameAsString().equals("length"))) {
            reads.add(HEAP);
        }
        writes.remove(null);
        return !(e instanceof VariableDeclarationExpr) || !writes.isEmpty();
    }

    /** Whether evaluating {@code e} may throw: an array access (null, bounds), a field access
     * through a variable (null; {@code a.length} too), an array creation (negative size), a
     * reference or unboxing cast, an integral division or remainder by anything but a non-zero
     * literal, or a variable of a boxed or unknown type used in arithmetic (unboxing null). */
    private static boolean mayThrow(Expression e) {
        if (e.findFirst(ArrayAccessExpr.class).isPresent()
            || e.findFirst(ArrayCreationExpr.class).isPresent()) {
            return true;
        }
        for (FieldAccessExpr field : e.findAll(FieldAccessExpr.class)) {
            if (!(field.getScope() instanceof ThisExpr)) {
                return true;
            }
        }
        for (CastExpr cast : e.findAll(CastExpr.class)) {
            String from = typeOf(cast.getExpression());
            if (!cast.getType().isPrimitiveType() || from == null || !PRIMITIVES.contains(from)) {
                return true;
            }
        }
        for (BinaryExpr b : e.findAll(BinaryExpr.class)) {
            boolean division = b.getOperator() == BinaryExpr.Operator.DIVIDE
                || b.getOperator() == BinaryExpr.Operator.REMAINDER;
            if (division && isIntegral(promote(typeOf(b))) && !(strip(b.getRight())
                    instanceof IntegerLiteralExpr literal && literal.asNumber().intValue() != 0)) {
                return true;
            }
            if (division && promote(typeOf(b)) == null) {
                return true;
            }
        }
        for (NameExpr name : e.findAll(NameExpr.class)) {
            String type = declaredType(name);
            if (type != null && List.of("Integer", "Long", "Short", "Byte", "Character",
                                        "Double", "Float", "Boolean").contains(type)) {
                return true;
            }
        }
        return false;
    }

    private static final List<String> PRIMITIVES =
        List.of("byte", "short", "char", "int", "long", "float", "double", "boolean");

    /** Whether two expressions have one and the same type this class can tell. */
    private static boolean sameKnownType(Expression a, Expression b) {
        String left = typeOf(a);
        return left != null && left.equals(typeOf(b));
    }

    /** Whether {@code e} names a variable declared in {@code block} (out of scope once moved
     * out of it). */
    private static boolean usesLocalOf(Expression e, BlockStmt block) {
        Set<String> locals = new HashSet<>();
        block.findAll(VariableDeclarator.class).forEach(v -> locals.add(v.getNameAsString()));
        return e.findAll(NameExpr.class).stream()
            .anyMatch(n -> locals.contains(n.getNameAsString()));
    }

    /** The variable an assignment target stores into: {@code a} for {@code a}, {@code a[i]}
     * and {@code a.f}; a field of {@code this} counts as its name. */
    private static String root(Expression target) {
        Expression e = strip(target);
        while (true) {
            if (e instanceof ArrayAccessExpr a) {
                e = strip(a.getName());
            } else if (e instanceof FieldAccessExpr f && !(f.getScope() instanceof ThisExpr)) {
                e = strip(f.getScope());
            } else if (e instanceof FieldAccessExpr f) {
                return f.getNameAsString();
            } else {
                break;
            }
        }
        return e instanceof NameExpr n ? n.getNameAsString() : "?";
    }

    // ---- a little type inference for the infix and negation rules -------------------------

    /** The static type of {@code e} as Java spells it, for the types these programs use
     * (primitives, String, arrays of them), or null when it cannot be told without a symbol
     * solver. */
    private static String typeOf(Expression e) {
        if (e instanceof EnclosedExpr enclosed) {
            return typeOf(enclosed.getInner());
        }
        if (e instanceof IntegerLiteralExpr) {
            return "int";
        }
        if (e instanceof LongLiteralExpr) {
            return "long";
        }
        if (e instanceof DoubleLiteralExpr d) {
            return d.getValue().matches(".*[fF]$") ? "float" : "double";
        }
        if (e instanceof CharLiteralExpr) {
            return "char";
        }
        if (e instanceof BooleanLiteralExpr) {
            return "boolean";
        }
        if (e instanceof StringLiteralExpr) {
            return "String";
        }
        if (e instanceof CastExpr cast) {
            return cast.getType().asString();
        }
        if (e instanceof NameExpr name) {
            return declaredType(name);
        }
        if (e instanceof ArrayAccessExpr access) {
            String array = typeOf(access.getName());
            return array != null && array.endsWith("[]")
                ? array.substring(0, array.length() - 2) : null;
        }
        if (e instanceof FieldAccessExpr field && field.getNameAsString().equals("length")) {
            String scope = typeOf(field.getScope());
            return scope != null && scope.endsWith("[]") ? "int" : null;
        }
        if (e instanceof MethodCallExpr call && call.getScope().isPresent()) {
            String scope = call.getScope().get() instanceof NameExpr n
                && n.getNameAsString().equals("Math") ? "Math" : typeOf(call.getScope().get());
            String method = call.getNameAsString();
            if ("String".equals(scope)) {
                return switch (method) {
                    case "length", "indexOf", "compareTo" -> "int";
                    case "charAt" -> "char";
                    case "equals", "isEmpty", "contains", "startsWith" -> "boolean";
                    case "substring", "trim", "toUpperCase", "toLowerCase" -> "String";
                    default -> null;
                };
            }
            if ("Math".equals(scope) && List.of("abs", "max", "min").contains(method)) {
                String t = null;
                for (Expression arg : call.getArguments()) {
                    t = t == null ? promote(typeOf(arg)) : promote(t, typeOf(arg));
                }
                return t;
            }
            return null;
        }
        if (e instanceof UnaryExpr u) {
            return switch (u.getOperator()) {
                case LOGICAL_COMPLEMENT -> "boolean";
                case MINUS, PLUS, BITWISE_COMPLEMENT -> promote(typeOf(u.getExpression()));
                default -> typeOf(u.getExpression());
            };
        }
        if (e instanceof BinaryExpr b) {
            return binaryType(b.getOperator(), typeOf(b.getLeft()), typeOf(b.getRight()));
        }
        return null;
    }

    /** The type of {@code left op right} given its operands' types. */
    private static String binaryType(BinaryExpr.Operator op, String left, String right) {
        return switch (op) {
            case OR, AND, EQUALS, NOT_EQUALS, LESS, LESS_EQUALS, GREATER, GREATER_EQUALS ->
                "boolean";
            case LEFT_SHIFT, SIGNED_RIGHT_SHIFT, UNSIGNED_RIGHT_SHIFT -> promote(left);
            case BINARY_AND, BINARY_OR, XOR -> "boolean".equals(left) ? "boolean"
                : promote(left, right);
            case PLUS -> "String".equals(left) || "String".equals(right) ? "String"
                : promote(left, right);
            default -> promote(left, right);
        };
    }

    /** Unary numeric promotion. */
    private static String promote(String t) {
        if (t == null) {
            return null;
        }
        return switch (t) {
            case "byte", "short", "char", "int", "Integer", "Character", "Short", "Byte" -> "int";
            case "long", "Long" -> "long";
            case "float", "Float" -> "float";
            case "double", "Double" -> "double";
            default -> null;
        };
    }

    /** Binary numeric promotion. */
    private static String promote(String a, String b) {
        String x = promote(a);
        String y = promote(b);
        if (x == null || y == null) {
            return null;
        }
        for (String wide : List.of("double", "float", "long")) {
            if (x.equals(wide) || y.equals(wide)) {
                return wide;
            }
        }
        return "int";
    }

    /** The declared type of the variable {@code name} refers to: a local or parameter of the
     * enclosing method, else a field of the class. */
    private static String declaredType(NameExpr name) {
        String id = name.getNameAsString();
        CallableDeclaration<?> method = enclosingCallable(name);
        List<Type> found = new ArrayList<>();
        if (method != null) {
            for (Parameter p : method.findAll(Parameter.class)) {
                if (p.getNameAsString().equals(id)) {
                    found.add(p.isVarArgs() ? p.getType().toArrayType().orElse(null) : p.getType());
                }
            }
            for (VariableDeclarator v : method.findAll(VariableDeclarator.class)) {
                if (v.getNameAsString().equals(id)) {
                    found.add(v.getType());
                }
            }
        }
        if (found.isEmpty()) {
            name.findCompilationUnit().ifPresent(unit -> {
                for (FieldDeclaration field : unit.findAll(FieldDeclaration.class)) {
                    for (VariableDeclarator v : field.getVariables()) {
                        if (v.getNameAsString().equals(id)) {
                            found.add(v.getType());
                        }
                    }
                }
            });
        }
        if (found.size() != 1 || found.get(0) == null || found.get(0).isVarType()) {
            return null;
        }
        return found.get(0).asString().replace(" ", "");
    }

    private static Type parseType(String type) {
        return com.github.javaparser.StaticJavaParser.parseType(type);
    }

    private static Set<String> identifiers(CompilationUnit unit) {
        Set<String> names = new HashSet<>();
        unit.findAll(SimpleName.class).forEach(n -> names.add(n.getIdentifier()));
        unit.findAll(com.github.javaparser.ast.expr.Name.class)
            .forEach(n -> names.add(n.getIdentifier()));
        return names;
    }
}
