import java.util.ArrayList;
import java.util.List;

import tla2sany.modanalyzer.SpecObj;
import tla2sany.semantic.ASTConstants;
import tla2sany.semantic.ExprNode;
import tla2sany.semantic.ExprOrOpArgNode;
import tla2sany.semantic.FormalParamNode;
import tla2sany.semantic.LabelNode;
import tla2sany.semantic.LetInNode;
import tla2sany.semantic.LevelNode;
import tla2sany.semantic.ModuleNode;
import tla2sany.semantic.OpApplNode;
import tla2sany.semantic.OpDeclNode;
import tla2sany.semantic.OpDefNode;
import tla2sany.semantic.SemanticNode;
import tla2sany.semantic.SubstInNode;
import tla2sany.semantic.SymbolNode;
import tla2sany.st.Location;

/**
 * The structure SANY gave the definitions of a parsed root module whose names start with a
 * prefix: one line per node of each body, in pre-order,
 *
 * <pre>
 * DEF name arity
 * depth kind level module beginLine beginColumn endLine endColumn name extra
 * </pre>
 *
 * (fields separated by tabs). {@code kind} is {@code O} for a built-in operator's application
 * ({@code name} is SANY's name for it: {@code []}, {@code $ConjList}, {@code $BoundedForall}, ...;
 * for a bounded quantifier {@code extra} lists the bound names, groups separated by {@code ;},
 * names by {@code ,}, a tuple group starting with {@code <}), {@code U} for a user-defined
 * operator's ({@code extra}: its arity), {@code P} for a bound or formal parameter, {@code D}
 * for a declared constant or variable, {@code L} LET, {@code S} an instance substitution,
 * {@code B} a label, {@code X} anything else. A node's children follow it only when its level
 * (SANY's: 0 constant, 1 state, 2 action, 3 temporal) is above 1: state predicates are leaves,
 * the caller copies their text by location. A quantifier's bound sets come before its body. A
 * zero-arity user-defined operator of action or temporal level has its body as its only child
 * ({@code Spec}'s conjuncts, {@code Next}'s disjuncts), so the caller sees formulas through the
 * names they are built from. Output past {@link #MAX_LINES} lines is withheld (null): the caller
 * then knows nothing, which is always safe.
 */
final class SanyShapes {
    /** The most lines one module's description may take. */
    static final int MAX_LINES = 20_000;

    /** How many zero-arity definitions deep a description follows names. */
    static final int MAX_INLINED = 16;

    private final StringBuilder out = new StringBuilder();
    private int lines = 0;

    private SanyShapes() {}

    /** The description of {@code spec}'s root module's definitions named {@code prefix...}. */
    static String describe(SpecObj spec, String prefix) {
        ModuleNode root = spec.getExternalModuleTable().getRootModule();
        if (root == null) {
            return null;
        }
        SanyShapes shapes = new SanyShapes();
        for (OpDefNode def : root.getOpDefs()) {
            String name = def.getName().toString();
            if (!name.startsWith(prefix) || def.getBody() == null) {
                continue;
            }
            shapes.out.append("DEF\t").append(name).append('\t').append(def.getArity())
                    .append('\n');
            shapes.node(def.getBody(), 0, 0);
        }
        return shapes.lines > MAX_LINES ? null : shapes.out.toString();
    }

    private void node(SemanticNode node, int depth, int inlined) {
        if (++lines > MAX_LINES) {
            return;
        }
        int level = node instanceof LevelNode ? ((LevelNode) node).getLevel() : -1;
        String kind = "X";
        String name = "";
        String extra = "";
        List<SemanticNode> children = new ArrayList<>();
        int childInlined = inlined;
        if (node instanceof OpApplNode) {
            OpApplNode appl = (OpApplNode) node;
            SymbolNode operator = appl.getOperator();
            name = operator.getName().toString();
            ExprOrOpArgNode[] args = appl.getArgs();
            if (operator instanceof OpDefNode && operator.getKind() == ASTConstants.BuiltInKind) {
                kind = "O";
                FormalParamNode[][] symbols = appl.getBdedQuantSymbolLists();
                ExprNode[] bounds = appl.getBdedQuantBounds();
                if (symbols != null && bounds != null) {
                    extra = groups(symbols, appl.isBdedQuantATuple());
                    addAll(children, bounds);
                } else if (appl.getUnbdedQuantSymbols() != null) {
                    extra = "unbounded";
                }
                addAll(children, args);
            } else if (operator instanceof OpDefNode) {
                kind = "U";
                OpDefNode def = (OpDefNode) operator;
                extra = String.valueOf(def.getArity());
                if (def.getArity() == 0 && level > 1 && def.getBody() != null
                        && inlined < MAX_INLINED) {
                    children.add(def.getBody());
                    childInlined = inlined + 1;
                } else {
                    addAll(children, args);
                }
            } else if (operator instanceof FormalParamNode) {
                kind = "P";
                addAll(children, args);
            } else if (operator instanceof OpDeclNode) {
                kind = "D";
            }
        } else if (node instanceof LetInNode) {
            kind = "L";
            children.add(((LetInNode) node).getBody());
        } else if (node instanceof SubstInNode) {
            kind = "S";
            children.add(((SubstInNode) node).getBody());
        } else if (node instanceof LabelNode) {
            kind = "B";
            children.add(((LabelNode) node).getBody());
        }
        Location at = node.getLocation();
        out.append(depth).append('\t').append(kind).append('\t').append(level).append('\t')
                .append(at.source()).append('\t').append(at.beginLine()).append('\t')
                .append(at.beginColumn()).append('\t').append(at.endLine()).append('\t')
                .append(at.endColumn()).append('\t').append(name).append('\t').append(extra)
                .append('\n');
        if (level > 1) {
            for (SemanticNode child : children) {
                node(child, depth + 1, childInlined);
            }
        }
    }

    private static void addAll(List<SemanticNode> into, SemanticNode[] nodes) {
        if (nodes != null) {
            for (SemanticNode node : nodes) {
                into.add(node);
            }
        }
    }

    private static String groups(FormalParamNode[][] symbols, boolean[] tuples) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < symbols.length; i++) {
            if (i > 0) {
                text.append(';');
            }
            if (tuples != null && i < tuples.length && tuples[i]) {
                text.append('<');
            }
            for (int j = 0; j < symbols[i].length; j++) {
                if (j > 0) {
                    text.append(',');
                }
                text.append(symbols[i][j].getName());
            }
        }
        return text.toString();
    }
}
