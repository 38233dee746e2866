package speckernel.javatools;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JML plugin's Java helper: one JVM serving many requests over stdin/stdout.
 *
 * <p>A request is a line {@code <id> <command>}, then a line with the number of fields, then each
 * field as a line with its length in UTF-8 bytes followed by that many bytes. The answer is one
 * JSON line whose first member is {@code "id"}, the request's id, so the client can never take
 * one request's answer for another's. Commands: {@code ping}; {@code mutate} (class name,
 * source, operators); {@code transform} (class name, source, rules, test class name, test
 * source).
 *
 * <p>The answers have file descriptor 1 to themselves: {@code System.out} and {@code System.err}
 * are routed per thread (see {@link Javac.Streams}) from the start, so a program's test output,
 * even from a thread that outlives its test, never reaches the protocol. When a test thread
 * could not be stopped, the answer says {@code "restart":true} and the helper exits after it.
 */
public final class JavaTools {
    private static final long TEST_TIMEOUT_MS = 10_000;

    private final Javac javac = new Javac();
    private final JavaParser parser = new JavaParser(
        new ParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17));

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
                                          StandardCharsets.UTF_8);
        Javac.Streams.install(new FileOutputStream(FileDescriptor.err));
        Javac.ExitTrap.install();
        InputStream in = new BufferedInputStream(System.in);
        JavaTools tools = new JavaTools();
        while (true) {
            String header = readLine(in);
            if (header == null) {
                return;
            }
            String[] parts = header.trim().split(" ", 2);
            String id = parts[0];
            String command = parts.length > 1 ? parts[1] : "";
            List<String> fields = new ArrayList<>();
            int count = Integer.parseInt(readLine(in).trim());
            for (int i = 0; i < count; i++) {
                int length = Integer.parseInt(readLine(in).trim());
                fields.add(new String(in.readNBytes(length), StandardCharsets.UTF_8));
            }
            String answer;
            try {
                answer = tools.handle(command, fields);
            } catch (RuntimeException | StackOverflowError e) {
                answer = Json.object("error", Json.str(e.toString()));
            }
            boolean restart = Javac.tainted;
            out.println("{\"id\":" + Json.str(id) + (restart ? ",\"restart\":true" : "") + ","
                        + answer.substring(1));
            out.flush();
            if (restart) {
                Runtime.getRuntime().halt(0);
            }
        }
    }

    private String handle(String command, List<String> fields) {
        return switch (command) {
            case "ping" -> Json.object("version", Json.str(Runtime.version().toString()));
            case "mutate" -> mutate(fields.get(0), fields.get(1), fields.get(2));
            case "transform" -> transform(fields.get(0), fields.get(1), fields.get(2),
                                          fields.get(3), fields.get(4));
            case "keysource" -> keySource(fields.get(0), fields.get(1));
            default -> Json.object("error", Json.str("unknown command " + command));
        };
    }

    private CompilationUnit parse(String source) {
        ParseResult<CompilationUnit> result = parser.parse(source);
        if (!result.isSuccessful() || result.getResult().isEmpty()) {
            String problem = result.getProblems().isEmpty() ? "no compilation unit"
                : result.getProblems().get(0).getVerboseMessage();
            throw new IllegalArgumentException("does not parse: " + problem.lines().findFirst()
                                               .orElse(""));
        }
        return result.getResult().get();
    }

    private String keySource(String className, String source) {
        KeySource.Result result = KeySource.prepare(className, source);
        return Json.object("source", Json.str(result.source()),
                           "unsupported", Json.str(result.unsupported()));
    }

    /** All compiling, non-equivalent mutants of the class, with counts of what was dropped. */
    private String mutate(String className, String source, String operators) {
        CompilationUnit unit = parse(source);
        Set<String> enabled = new HashSet<>(operators.isBlank() ? Mutator.OPERATORS
                                            : List.of(operators.split(",")));
        List<Mutator.Mutant> all = new Mutator(source, enabled).mutate(unit);
        List<Map<String, String>> programs = new ArrayList<>();
        programs.add(Map.of(className, source));
        for (Mutator.Mutant mutant : all) {
            programs.add(Map.of(className, mutant.source()));
        }
        List<Javac.Result> compiled = compile(unit, programs);
        Javac.Result original = compiled.get(0);
        if (!original.ok()) {
            return Json.object("error", Json.str("original does not compile: " + original.error()));
        }
        List<String> kept = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int uncompilable = 0;
        int equivalent = 0;
        int duplicate = 0;
        for (int i = 0; i < all.size(); i++) {
            Mutator.Mutant mutant = all.get(i);
            Javac.Result result = compiled.get(i + 1);
            if (!result.ok()) {
                uncompilable++;
            } else if (result.sameBytecode(original)) {
                equivalent++;
            } else if (!seen.add(result.fingerprint())) {
                duplicate++;
            } else {
                kept.add(Json.object(
                    "id", Json.str(Integer.toString(mutant.index())),
                    "operator", Json.str(mutant.operator()),
                    "line", Integer.toString(mutant.line()),
                    "description", Json.str(mutant.description()),
                    "source", Json.str(mutant.source())));
            }
        }
        return Json.object("mutants", Json.array(kept),
                           "generated", Integer.toString(all.size()),
                           "uncompilable", Integer.toString(uncompilable),
                           "equivalent", Integer.toString(equivalent),
                           "duplicate", Integer.toString(duplicate));
    }

    /** The programs compiled in one javac run, or one run each when the class declares a
     * package of its own (the batch puts each program in a package of its). */
    private List<Javac.Result> compile(CompilationUnit unit, List<Map<String, String>> programs) {
        if (unit.getPackageDeclaration().isEmpty()) {
            return javac.compileEach(programs);
        }
        return programs.stream().map(javac::compile).toList();
    }

    /** Each requested rule applied to the class: its output when it applies, compiles and,
     * given a test main, the test behaves as on the original; otherwise why not. */
    private String transform(String className, String source, String rules, String testName,
                             String testSource) {
        CompilationUnit unit = parse(source);
        List<String> chosen = rules.isBlank() ? Transforms.RULES : List.of(rules.split(","));
        List<String> variants = new ArrayList<>();
        Map<String, String> failures = new LinkedHashMap<>();
        List<Map<String, String>> programs = new ArrayList<>();
        programs.add(program(className, source, testName, testSource));
        for (String rule : chosen) {
            String variant = null;
            try {
                variant = Transforms.apply(parse(source), rule);
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (RuntimeException | StackOverflowError e) {
                failures.put(rule, e.toString());
            }
            variants.add(variant);
            if (variant != null) {
                programs.add(program(className, variant, testName, testSource));
            }
        }
        List<Javac.Result> compiled = compile(unit, programs);
        if (!compiled.get(0).ok()) {
            return Json.object("error", Json.str("original does not compile: "
                                                 + compiled.get(0).error()));
        }
        String main = (unit.getPackageDeclaration().isEmpty() ? Javac.PACKAGE + "." : "")
            + testName;
        Javac.Run baseline = testName.isBlank() ? null
            : Javac.run(compiled.get(0).classes(), main, TEST_TIMEOUT_MS);
        if (baseline != null && !baseline.passed()) {
            return Json.object("error", Json.str("the test fails on the original: "
                                                 + baseline.outcome()));
        }
        List<String> results = new ArrayList<>();
        int next = 1;
        for (int i = 0; i < chosen.size(); i++) {
            String rule = chosen.get(i);
            String variant = variants.get(i);
            if (failures.containsKey(rule)) {
                results.add(result(rule, "error", null, failures.get(rule)));
                continue;
            }
            if (variant == null) {
                results.add(result(rule, "not-applicable", null, "the rule matches nothing"));
                continue;
            }
            Javac.Result result = compiled.get(next++);
            if (!result.ok()) {
                results.add(result(rule, "uncompilable", variant, result.error()));
                continue;
            }
            Javac.Run run = baseline == null ? null
                : Javac.run(result.classes(), main, TEST_TIMEOUT_MS);
            if (run != null && !run.equals(baseline)) {
                results.add(result(rule, "behaviour-changed", variant,
                                   "test: " + baseline.outcome() + " on the original, "
                                   + run.outcome() + " on the variant"));
            } else {
                results.add(result(rule, "ok", variant, ""));
            }
        }
        return Json.object(
            "baseline", baseline == null ? "null" : Json.str(baseline.outcome()),
            "results", Json.array(results));
    }

    private static Map<String, String> program(String className, String source, String testName,
                                               String testSource) {
        Map<String, String> sources = new LinkedHashMap<>();
        sources.put(className, source);
        if (!testName.isBlank()) {
            sources.put(testName, testSource);
        }
        return sources;
    }

    private static String result(String rule, String status, String source, String reason) {
        return Json.object("rule", Json.str(rule), "status", Json.str(status),
                           "source", source == null ? "null" : Json.str(source),
                           "reason", Json.str(reason));
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            line.write(b);
        }
        if (b == -1 && line.size() == 0) {
            return null;
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    /** Just enough JSON writing for the answers: objects, arrays and escaped strings. */
    static final class Json {
        static String str(String s) {
            StringBuilder out = new StringBuilder("\"");
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            return out.append('"').toString();
        }

        /** {@code object("k1", v1, "k2", v2, ...)} with values already in JSON. */
        static String object(String... pairs) {
            StringBuilder out = new StringBuilder("{");
            for (int i = 0; i < pairs.length; i += 2) {
                out.append(i == 0 ? "" : ",").append(str(pairs[i])).append(':')
                   .append(pairs[i + 1]);
            }
            return out.append('}').toString();
        }

        static String array(List<String> items) {
            return "[" + String.join(",", items) + "]";
        }
    }
}
