import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.antlr.v4.runtime.CharStream;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.TokenStream;
import org.antlr.v4.runtime.misc.Interval;
import org.key_project.util.collection.ImmutableList;
import org.key_project.util.collection.ImmutableSLList;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import de.uka.ilkd.key.control.KeYEnvironment;
import de.uka.ilkd.key.java.Services;
import de.uka.ilkd.key.java.abstraction.KeYJavaType;
import de.uka.ilkd.key.logic.Semisequent;
import de.uka.ilkd.key.logic.Sequent;
import de.uka.ilkd.key.logic.SequentFormula;
import de.uka.ilkd.key.logic.Term;
import de.uka.ilkd.key.logic.TermBuilder;
import de.uka.ilkd.key.logic.label.OriginTermLabel;
import de.uka.ilkd.key.logic.op.IObserverFunction;
import de.uka.ilkd.key.logic.op.IProgramMethod;
import de.uka.ilkd.key.logic.op.Junctor;
import de.uka.ilkd.key.logic.op.LocationVariable;
import de.uka.ilkd.key.logic.op.UpdateApplication;
import de.uka.ilkd.key.proof.Goal;
import de.uka.ilkd.key.proof.Node;
import de.uka.ilkd.key.proof.BuiltInRuleIndex;
import de.uka.ilkd.key.proof.Proof;
import de.uka.ilkd.key.proof.TacletIndex;
import de.uka.ilkd.key.proof.init.ProofOblInput;
import de.uka.ilkd.key.settings.ChoiceSettings;
import de.uka.ilkd.key.settings.ProofSettings;
import de.uka.ilkd.key.speclang.Contract;
import de.uka.ilkd.key.speclang.jml.JMLInfoExtractor;
import de.uka.ilkd.key.speclang.njml.JmlIO;
import de.uka.ilkd.key.speclang.njml.JmlParser;
import de.uka.ilkd.key.strategy.StrategyProperties;
import de.uka.ilkd.key.util.KeYTypeUtil;

/**
 * Proves every JML contract of the Java sources in a directory with KeY's automatic strategy.
 *
 * <p>Usage: {@code KeyCheck prove PATH [MAX_STEPS [TIMEOUT_MS]]} for one check, or
 * {@code KeyCheck serve} to answer many checks in one warm JVM. A request is one line
 * {@code CHECK<TAB>id<TAB>path<TAB>max_steps<TAB>timeout_ms}; the answer is zero or more
 * {@code CONTRACT} lines, at most one {@code LOADERROR} line, and a final {@code DONE<TAB>id}.
 * PATH is a check directory: the Java sources KeY loads are under {@code PATH/src}; an optional
 * file {@code PATH/inputs} asks for vacuity probes and holds the task's test inputs, one per line:
 * {@code method<TAB>arity<TAB>JML constraint over the parameters}.
 *
 * <p>Vacuity (when asked for): for every closed contract the driver also tries to refute its
 * precondition (the proof obligation's own, class invariants and implicit assumptions included)
 * together with each test input of its method, or alone for a method without inputs. A refuted precondition, or one refuted with every test
 * input, is reported as {@code VACUOUS<TAB>type::method<TAB>contract<TAB>reason}: the proof says
 * nothing about any input the task has.
 *
 * <p>With {@code -Dkeycheck.boot=DIR} KeY reads its Java library model (the "boot class path":
 * every {@code .java} file under DIR) from DIR instead of its built-in JavaRedux classes.
 *
 * <p>The driver runs in the kernel's sandbox, where the only writable place is the work
 * directory, {@code $HOME}: KeY's settings ({@code user.home}/.key) go there.
 *
 * <p>{@code CONTRACT<TAB>closed|open|error<TAB>type::method<TAB>contract<TAB>open goals<TAB>
 * nodes<TAB>milliseconds<TAB>reasons}; reasons are the branch labels (KeY's names for proof
 * obligations such as "Post", "Body Preserves Invariant", "Null Reference") on the path to each
 * open goal, joined by " | " per goal and "; " between goals. After an open contract, one line
 * per open goal (the first few): {@code GOAL<TAB>type::method<TAB>contract<TAB>labels<TAB>java
 * line<TAB>java statement<TAB>clauses<TAB>stuck<TAB>thrown}: the line and text of the last statement
 * symbolic execution reached on the goal's path, the JML clauses ({@code kind:line}, joined by
 * ", ") the goal's unproved formulas come from (KeY's origin labels), {@code loop} when
 * symbolic execution stopped in front of a loop (no loop invariant to apply), and the exception
 * a {@code throw} on the goal's path creates (KeY turns a negative array size into such a
 * throw). Fields never contain tabs or newlines. KeY's own chatter goes to stderr so
 * stdout carries only the protocol.
 *
 * <p>Integer semantics: Java int with overflow checking ({@code
 * intRules:arithmeticSemanticsCheckingOF}), so a contract is proved only if no int arithmetic in
 * the code can overflow, as in OpenJML's default "safe" mode FormalBench used.
 */
public final class KeyCheck {
    private static final int MAX_GOALS_REPORTED = 4;
    /** KeY labels a chain of one-premise steps "12 rules"; such labels say nothing. */
    private static final Pattern RULE_COUNT = Pattern.compile("\\d+ rules?");
    /** The exception a {@code throw new X(...)} statement creates. */
    private static final Pattern THROWN = Pattern.compile("throw\\s+new\\s+([\\w.]+)");
    private static PrintStream protocol;

    private KeyCheck() {
    }

    /**
     * Runs the driver in a class loader whose KeY parses each JML comment once per JVM (see
     * {@link ParseCache}); every other class is loaded unchanged from the same class path.
     */
    public static void main(String[] args) throws Exception {
        String home = System.getenv("HOME");
        if (home != null && !home.isEmpty()) {
            System.setProperty("user.home", home);
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            urls.add(new File(entry).toURI().toURL());
        }
        ClassLoader loader = new ParseCachingLoader(urls.toArray(new URL[0]));
        Thread.currentThread().setContextClassLoader(loader);
        try {
            loader.loadClass(KeyCheck.class.getName()).getMethod("run", String[].class)
                    .invoke(null, (Object) args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw (e.getCause() instanceof Exception) ? (Exception) e.getCause() : e;
        }
    }

    public static void run(String[] args) throws Exception {
        protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        System.setOut(System.err);
        configureChoices();
        if (args.length >= 2 && args[0].equals("prove")) {
            int steps = args.length > 2 ? Integer.parseInt(args[2]) : 20000;
            long timeout = args.length > 3 ? Long.parseLong(args[3]) : 60000;
            check("-", new File(args[1]).getAbsoluteFile(), steps, timeout);
            protocol.flush();
        } else if (args.length == 1 && args[0].equals("serve")) {
            serve();
        } else {
            System.err.println("usage: KeyCheck prove PATH [MAX_STEPS [TIMEOUT_MS]] | KeyCheck serve");
            System.exit(2);
        }
    }

    private static void configureChoices() {
        ChoiceSettings choices = ProofSettings.DEFAULT_SETTINGS.getChoiceSettings();
        Map<String, String> defaults = new HashMap<>(choices.getDefaultChoices());
        defaults.put("intRules", "intRules:arithmeticSemanticsCheckingOF");
        defaults.put("runtimeExceptions", "runtimeExceptions:ban");
        choices.setDefaultChoices(defaults);
    }

    private static void serve() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        protocol.println("READY");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t");
            if (f.length != 5 || !f[0].equals("CHECK")) {
                protocol.println("LOADERROR\tbad request: " + clean(line));
                protocol.println("DONE\t-");
                continue;
            }
            check(f[1], new File(f[2]), Integer.parseInt(f[3]), Long.parseLong(f[4]));
        }
    }

    private static void check(String id, File path, int maxSteps, long timeoutMs) {
        KeYEnvironment<?> env = null;
        try {
            Map<String, List<String>> inputs = readInputs(new File(path, "inputs"));
            String boot = System.getProperty("keycheck.boot");
            env = KeYEnvironment.load(new File(path, "src"), null,
                boot == null || boot.isEmpty() ? null : new File(boot), null);
            for (KeYJavaType type : new ArrayList<>(env.getJavaInfo().getAllKeYJavaTypes())) {
                if (KeYTypeUtil.isLibraryClass(type)) {
                    continue;
                }
                for (IObserverFunction target : env.getSpecificationRepository().getContractTargets(type)) {
                    for (Contract contract : env.getSpecificationRepository().getContracts(type, target)) {
                        prove(env, type, target, contract, maxSteps, timeoutMs, inputs);
                    }
                }
            }
        } catch (Throwable e) {
            protocol.println("LOADERROR\t" + clean(describe(e)));
        } finally {
            if (env != null) {
                env.dispose();
            }
            protocol.println("DONE\t" + id);
        }
    }

    /** The test inputs by {@code method/arity}; null (no vacuity probes) when the file is
     * missing. */
    private static Map<String, List<String>> readInputs(File file) throws java.io.IOException {
        if (!file.isFile()) {
            return null;
        }
        Map<String, List<String>> inputs = new HashMap<>();
        for (String line : Files.readAllLines(file.toPath(), StandardCharsets.UTF_8)) {
            String[] f = line.split("\t", 3);
            if (f.length == 3) {
                inputs.computeIfAbsent(f[0] + "/" + f[1], k -> new ArrayList<>()).add(f[2]);
            }
        }
        return inputs;
    }

    private static void configure(Proof proof, int maxSteps, long timeoutMs) {
        StrategyProperties sp = new StrategyProperties();
            sp.setProperty(StrategyProperties.METHOD_OPTIONS_KEY, StrategyProperties.METHOD_CONTRACT);
            sp.setProperty(StrategyProperties.LOOP_OPTIONS_KEY, StrategyProperties.LOOP_INVARIANT);
            sp.setProperty(StrategyProperties.DEP_OPTIONS_KEY, StrategyProperties.DEP_ON);
            sp.setProperty(StrategyProperties.QUERY_OPTIONS_KEY, StrategyProperties.QUERY_ON);
            sp.setProperty(StrategyProperties.NON_LIN_ARITH_OPTIONS_KEY,
                           StrategyProperties.NON_LIN_ARITH_DEF_OPS);
            sp.setProperty(StrategyProperties.STOPMODE_OPTIONS_KEY, StrategyProperties.STOPMODE_DEFAULT);
            // Split conjunctions as they appear: with the default (delayed) splitting an
            // overflow check such as `w >= MIN - h & w <= MAX - h` stays one open goal.
        sp.setProperty(StrategyProperties.SPLITTING_OPTIONS_KEY, StrategyProperties.SPLITTING_NORMAL);
        proof.getSettings().getStrategySettings().setMaxSteps(maxSteps);
        proof.getSettings().getStrategySettings().setTimeout(timeoutMs);
        proof.getSettings().getStrategySettings().setActiveStrategyProperties(sp);
        proof.setActiveStrategy(
            proof.getServices().getProfile().getDefaultStrategyFactory().create(proof, sp));
    }

    private static void prove(KeYEnvironment<?> env, KeYJavaType type, IObserverFunction target,
                              Contract contract, int maxSteps, long timeoutMs,
                              Map<String, List<String>> inputs) {
        String where = type.getFullName() + "::" + target.name().toString().replaceAll(".*::", "");
        long start = System.currentTimeMillis();
        Proof proof = null;
        try {
            ProofOblInput input = contract.createProofObl(env.getInitConfig(), contract);
            proof = env.createProof(input);
            configure(proof, maxSteps, timeoutMs);
            // The rules of the obligation's first goal: KeY's rule base plus the taclets of this
            // problem's class axioms (invariant definitions), which probes need as well.
            Goal first = proof.openGoals().head();
            TacletIndex rules = first.indexOfTaclets().copy();
            BuiltInRuleIndex builtIns = first.ruleAppIndex().builtInRuleAppIndex().builtInRuleIndex().copy();
            env.getProofControl().startAndWaitForAutoMode(proof);
            int open = proof.openGoals().size();
            protocol.println(String.join("\t", "CONTRACT", open == 0 ? "closed" : "open", clean(where),
                clean(contract.getName()), Integer.toString(open),
                Integer.toString(proof.countNodes()),
                Long.toString(System.currentTimeMillis() - start), clean(reasons(proof))));
            for (String goal : goals(proof)) {
                protocol.println(String.join("\t", "GOAL", clean(where),
                    clean(contract.getName()), goal));
            }
            if (open == 0 && inputs != null) {
                Probe probe = new Probe(env, proof, rules, builtIns,
                    Math.min(maxSteps, 2 * proof.countNodes() + PROBE_STEPS), timeoutMs);
                String vacuous = vacuity(probe, type, target, inputs);
                if (vacuous != null) {
                    protocol.println(String.join("\t", "VACUOUS", clean(where),
                        clean(contract.getName()), clean(vacuous)));
                }
            }
        } catch (Throwable e) {
            protocol.println(String.join("\t", "CONTRACT", "error", clean(where),
                clean(contract.getName()), "0", "0",
                Long.toString(System.currentTimeMillis() - start), clean(describe(e))));
        } finally {
            if (proof != null) {
                proof.dispose();
            }
        }
    }

    /**
     * Why the closed proof says nothing, or null. The proof obligation is {@code {u}(pre ->
     * program post)}, pre holding the free assumptions (well-formed heap, parameter ranges,
     * created objects), the class invariants and the requires clauses: a proof of {@code {u}!pre}
     * means no state satisfies it; a proof of {@code {u}!(pre & input)} for every test input of
     * the method means none of the task's inputs does. Only refutations count: when KeY cannot
     * close a probe, the precondition is taken as satisfiable.
     */
    /** A probe's step budget beyond twice the closed proof's size: refuting the precondition
     * is part of what that proof did if the precondition is what closed it. */
    private static final int PROBE_STEPS = 1000;
    /** The time a probe of the precondition alone may take: KeY's strategy does not stop early
     * on a satisfiable precondition with heap terms (30 s for {@code a.length > 10}), and this
     * probe runs only for a method without test inputs. */
    private static final long PROBE_ALONE_MS = 10_000;

    private static final String UNSATISFIABLE =
        "the precondition (requires clauses, class invariants and implicit assumptions) is "
        + "unsatisfiable";

    private static String vacuity(Probe probe, KeYJavaType type, IObserverFunction target,
                                  Map<String, List<String>> inputs) {
        Proof proof = probe.proof;
        Term body = proof.root().sequent().succedent().getFirst().formula();
        List<Term> updates = new ArrayList<>();
        while (body.op() == UpdateApplication.UPDATE_APPLICATION) {
            updates.add(body.sub(0));
            body = body.sub(1);
        }
        if (body.op() != Junctor.IMP) {
            return null;
        }
        Term pre = body.sub(0);
        TermBuilder tb = proof.getServices().getTermBuilder();
        List<String> tests = target instanceof IProgramMethod method ? inputs.getOrDefault(
            method.getName() + "/" + method.getParameterDeclarationCount(), List.of())
            : List.of();
        if (tests.isEmpty()) {
            Probe quick = new Probe(probe.env, proof, probe.rules, probe.builtIns, probe.maxSteps,
                                    Math.min(probe.timeoutMs, PROBE_ALONE_MS));
            return quick.proves(updates, tb.not(pre)) ? UNSATISFIABLE : null;
        }
        IProgramMethod method = (IProgramMethod) target;
        ImmutableList<LocationVariable> params = parameters(method, pre);
        if (params == null) {
            System.err.println("KeyCheck: parameters of " + method.getName() + " not found");
            return null;
        }
        Services services = proof.getServices();
        for (String test : tests) {
            Term constraint;
            try {
                constraint = tb.convertToFormula(new JmlIO(services).classType(type)
                    .specMathMode(JMLInfoExtractor.getSpecMathModeOrDefault(method))
                    .parameters(params).parseExpression(test));
            } catch (RuntimeException e) {
                System.err.println("KeyCheck: test input not understood: " + describe(e));
                return null;
            }
            if (!probe.proves(updates, tb.not(tb.and(pre, constraint)))) {
                return null;
            }
        }
        return tests.size() == 1 ? "the task's test input does not satisfy the precondition"
            : "none of the task's " + tests.size() + " test inputs satisfies the precondition";
    }

    /** The proof obligation's variables for the method's parameters, found by name in
     * {@code pre} (the free precondition mentions every parameter), or null. */
    private static ImmutableList<LocationVariable> parameters(IProgramMethod method, Term pre) {
        Map<String, LocationVariable> byName = new HashMap<>();
        pre.execPreOrder(new de.uka.ilkd.key.logic.DefaultVisitor() {
            @Override
            public void visit(Term visited) {
                if (visited.op() instanceof LocationVariable variable) {
                    byName.putIfAbsent(variable.name().toString(), variable);
                }
            }
        });
        ImmutableList<LocationVariable> params = ImmutableSLList.nil();
        for (int i = method.getParameterDeclarationCount() - 1; i >= 0; i--) {
            String name = method.getParameterDeclarationAt(i).getVariableSpecification().getName();
            LocationVariable variable = byName.get(name);
            if (variable == null) {
                return null;
            }
            params = params.prepend(variable);
        }
        return params;
    }

    /** Proofs of formulas in the setting of a finished proof obligation: its rules (class axioms
     * included), its configuration and its budget. */
    private record Probe(KeYEnvironment<?> env, Proof proof, TacletIndex rules,
                         BuiltInRuleIndex builtIns, int maxSteps, long timeoutMs) {
        /** Whether KeY's automatic strategy proves {@code {updates}formula} within the budget. */
        boolean proves(List<Term> updates, Term formula) {
            TermBuilder tb = proof.getServices().getTermBuilder();
            Term goal = formula;
            for (int i = updates.size() - 1; i >= 0; i--) {
                goal = tb.apply(updates.get(i), goal);
            }
            Proof attempt = null;
            try {
                Sequent sequent = Sequent.createSuccSequent(Semisequent.EMPTY_SEMISEQUENT
                    .insert(0, new SequentFormula(goal)).semisequent());
                attempt = new Proof("vacuity probe", sequent, "", rules.copy(), builtIns.copy(),
                                    proof.getInitConfig().deepCopy());
                configure(attempt, maxSteps, timeoutMs);
                env.getProofControl().startAndWaitForAutoMode(attempt);
                return attempt.openGoals().isEmpty();
            } catch (RuntimeException e) {
                System.err.println("KeyCheck: vacuity probe failed: " + describe(e));
                return false;
            } finally {
                if (attempt != null) {
                    attempt.dispose();
                }
            }
        }
    }

    /** The {@code GOAL} fields after the contract name, for each of the first few open goals. */
    private static List<String> goals(Proof proof) {
        List<String> found = new ArrayList<>();
        for (Goal goal : proof.openGoals()) {
            if (found.size() == MAX_GOALS_REPORTED) {
                break;
            }
            List<String> labels = new ArrayList<>();
            int line = 0;
            String statement = "";
            String thrown = "";
            for (Node node = goal.node(); node != null; node = node.parent()) {
                String label = node.getNodeInfo().getBranchLabel();
                if (label != null && !label.isBlank() && !RULE_COUNT.matcher(label).matches()) {
                    labels.add(0, label);
                }
                Object active = node.getNodeInfo().getActiveStatement();
                if (thrown.isEmpty() && active instanceof de.uka.ilkd.key.java.statement.Throw) {
                    java.util.regex.Matcher created = THROWN.matcher(String.valueOf(active));
                    if (created.find()) {
                        thrown = created.group(1);
                    }
                }
                if (statement.isEmpty() && node.getNodeInfo().getActiveStatement() != null) {
                    statement = String.valueOf(node.getNodeInfo().getActiveStatement());
                }
                if (line == 0 && node.getNodeInfo().getActiveStatement() != null) {
                    line = Math.max(0, node.getNodeInfo().getExecStatementPosition().line());
                }
            }
            Set<String> clauses = new LinkedHashSet<>();
            String stuck = "";
            for (SequentFormula formula : goal.sequent().succedent()) {
                formula.formula().execPreOrder(new de.uka.ilkd.key.logic.DefaultVisitor() {
                    @Override
                    public void visit(Term visited) {
                        if (visited.getLabel(OriginTermLabel.NAME) instanceof OriginTermLabel o) {
                            clauses.add(origin(o.getOrigin()));
                        }
                    }
                });
                if (formula.formula().containsJavaBlockRecursive()
                        && firstStatementIsLoop(goal.node())) {
                    stuck = "loop";
                }
            }
            clauses.remove("");
            found.add(String.join("\t", clean(String.join(" | ", new LinkedHashSet<>(labels))),
                Integer.toString(line), clean(statement.length() > 200
                    ? statement.substring(0, 200) : statement),
                clean(String.join(", ", clauses)), stuck, clean(thrown)));
        }
        return found;
    }

    /** Whether the statement symbolic execution last worked on (found up the path) is a loop. */
    private static boolean firstStatementIsLoop(Node leaf) {
        for (Node node = leaf.parent(); node != null; node = node.parent()) {
            Object active = node.getNodeInfo().getActiveStatement();
            if (active != null) {
                return active instanceof de.uka.ilkd.key.java.statement.LoopStatement;
            }
        }
        return false;
    }

    /** {@code kind:line} for a clause of the file, {@code kind} for an implicit one. */
    private static String origin(OriginTermLabel.Origin origin) {
        if (origin == null || origin.specType == OriginTermLabel.SpecType.NONE) {
            return "";
        }
        if (origin instanceof OriginTermLabel.FileOrigin file && file.getLine() > 0) {
            return origin.specType + ":" + file.getLine();
        }
        return origin.specType.toString();
    }

    /** The branch labels on the path from the root to each of the first few open goals. */
    private static String reasons(Proof proof) {
        List<String> perGoal = new ArrayList<>();
        for (Goal goal : proof.openGoals()) {
            if (perGoal.size() == MAX_GOALS_REPORTED) {
                break;
            }
            List<String> labels = new ArrayList<>();
            for (Node node = goal.node(); node != null; node = node.parent()) {
                String label = node.getNodeInfo().getBranchLabel();
                if (label != null && !label.isBlank() && !RULE_COUNT.matcher(label).matches()) {
                    labels.add(0, label);
                }
            }
            perGoal.add(String.join(" | ", new LinkedHashSet<>(labels)));
        }
        Set<String> distinct = new LinkedHashSet<>(perGoal);
        return String.join("; ", distinct);
    }

    private static String describe(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null && text.length() < 2000; t = t.getCause()) {
            if (text.length() > 0) {
                text.append(" <- ");
            }
            text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            if (t.getCause() == t) {
                break;
            }
        }
        return text.toString();
    }

    private static String clean(String text) {
        if (text == null) {
            return "";
        }
        String flat = text.replaceAll("[\\t\\r\\n]+", " ").trim();
        return flat.length() > 2000 ? flat.substring(0, 2000) : flat;
    }

    /**
     * Loads KeY from the class path with one change to {@code PreParser}: its two calls that make
     * ANTLR parse a JML comment ({@code classlevel_comments}, {@code methodlevel_comment}) go to
     * {@link ParseCache}. Every load re-reads the JML of KeY's own library classes (String, Math,
     * ...), twice, and ANTLR cannot cache KeY's JML lexer's start state (its rules start with
     * predicates): without the cache that parsing is most of a warm check's CPU (README,
     * Throughput). The same loader runs in both modes, so a fresh JVM per check gets the cache too
     * (it parses each comment once instead of twice).
     */
    static final class ParseCachingLoader extends URLClassLoader {
        private static final String PRE_PARSER = "de.uka.ilkd.key.speclang.njml.PreParser";
        private static final String JML_PARSER = "de/uka/ilkd/key/speclang/njml/JmlParser";

        ParseCachingLoader(URL[] urls) {
            super(urls, ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (!name.equals(PRE_PARSER)) {
                return super.findClass(name);
            }
            try (InputStream in = getResourceAsStream(name.replace('.', '/') + ".class")) {
                if (in == null) {
                    throw new ClassNotFoundException(name);
                }
                byte[] code = rewrite(in.readAllBytes());
                return defineClass(name, code, 0, code.length);
            } catch (java.io.IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }

        private static byte[] rewrite(byte[] code) {
            ClassReader reader = new ClassReader(code);
            ClassWriter writer = new ClassWriter(reader, 0);
            int[] rewritten = {0};
            reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor,
                                                 String signature, String[] exceptions) {
                    MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                    return new MethodVisitor(Opcodes.ASM9, next) {
                        @Override
                        public void visitMethodInsn(int opcode, String owner, String method,
                                                    String desc, boolean isInterface) {
                            if (opcode == Opcodes.INVOKEVIRTUAL && owner.equals(JML_PARSER)
                                    && (method.equals("classlevel_comments")
                                        || method.equals("methodlevel_comment"))) {
                                rewritten[0]++;
                                super.visitMethodInsn(Opcodes.INVOKESTATIC,
                                        ParseCache.class.getName().replace('.', '/'), method,
                                        "(L" + JML_PARSER + ";" + desc.substring(1), false);
                            } else {
                                super.visitMethodInsn(opcode, owner, method, desc, isInterface);
                            }
                        }
                    };
                }
            }, 0);
            if (rewritten[0] == 0) {
                System.err.println("KeyCheck: PreParser has no JML parse call to cache; KeY parses as usual");
            }
            return writer.toByteArray();
        }
    }

    /**
     * ANTLR parse trees of JML comments, by everything that decides them: the comment's text,
     * its file, and where its first token starts (which fixes every token's line and column).
     * Only parses without syntax errors are kept, so an error is reported by every load as
     * before. The trees are read, never changed, by KeY's checks and its textual translation,
     * which still run on every load and build fresh specification objects from them.
     */
    public static final class ParseCache {
        private static final int CAPACITY = 20000;
        private static final Map<String, ParserRuleContext> TREES = Collections.synchronizedMap(
                new LinkedHashMap<String, ParserRuleContext>(1024, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, ParserRuleContext> eldest) {
                        return size() > CAPACITY;
                    }
                });

        private ParseCache() {
        }

        public static JmlParser.Classlevel_commentsContext classlevel_comments(JmlParser parser) {
            return (JmlParser.Classlevel_commentsContext) cached("class", parser,
                    JmlParser::classlevel_comments);
        }

        public static JmlParser.Methodlevel_commentContext methodlevel_comment(JmlParser parser) {
            return (JmlParser.Methodlevel_commentContext) cached("method", parser,
                    JmlParser::methodlevel_comment);
        }

        private static ParserRuleContext cached(String rule, JmlParser parser,
                                                Function<JmlParser, ParserRuleContext> parse) {
            String key = key(rule, parser);
            ParserRuleContext tree = TREES.get(key);
            if (tree == null) {
                tree = parse.apply(parser);
                if (parser.getNumberOfSyntaxErrors() == 0 && !parser.getErrorReporter().hasErrors()) {
                    TREES.put(key, tree);
                }
            }
            return tree;
        }

        private static String key(String rule, JmlParser parser) {
            TokenStream tokens = parser.getTokenStream();
            Token first = tokens.LT(1);
            CharStream text = tokens.getTokenSource().getInputStream();
            return rule + '\0' + text.getSourceName() + '\0' + first.getLine() + ':'
                    + first.getCharPositionInLine() + '\0' + first.getStartIndex() + '\0'
                    + text.getText(Interval.of(0, text.size() - 1));
        }
    }
}
