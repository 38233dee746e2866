import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import tla2sany.drivers.FrontEndException;
import tla2sany.drivers.InitException;
import tla2sany.drivers.SANY;
import tla2sany.drivers.SemanticException;
import tla2sany.modanalyzer.ParseUnit;
import tla2sany.modanalyzer.SpecObj;
import tla2sany.parser.ParseException;
import tla2sany.semantic.Context;
import tla2sany.semantic.ExternalModuleTable;
import tla2sany.semantic.ModuleNode;
import util.FileUtil;
import util.ToolIO;
import util.UniqueString;

/**
 * Parses many TLA+ modules in one JVM, printing for each one what
 * {@code java -cp tla2tools.jar tla2sany.SANY FILE} would have printed, framed as
 *
 * <pre>
 * NONCE BEGIN INDEX
 * ...SANY's output...
 * NONCE END INDEX EXITCODE
 * </pre>
 *
 * after a first line {@code NONCE START} (which tells the caller the driver did run), where
 * EXITCODE is the status that separate run would have exited with (the END line is preceded
 * by one newline of the frame's own). The nonce (the first argument) is chosen by the caller per
 * run, so no module text can forge a frame. The second argument is a budget in seconds per file:
 * a parse that takes longer ends the JVM after printing {@code NONCE TIMEOUT INDEX}, so one
 * pathological module costs its own budget and the caller re-runs the files after it.
 *
 * <p>Modules a file only EXTENDS or INSTANCEs (the standard modules above all) are parsed and
 * analysed once per JVM: a module whose analysis gave no message at all is kept, parse tree and
 * semantic graph, and handed to the later files that use it, which is what SANY itself does with
 * a module two modules of one specification extend. The analysis of a module depends only on the
 * module and the modules it uses, and every file of a run sits in one directory, so the reused
 * module is the one a separate run would have analysed; only SANY's progress lines for it
 * ({@code Parsing file}, {@code Semantic processing of module}) are missing from the later
 * files' output, for the reused analyses are the ones SANY does before any other. The reused graphs point at SANY's built-in operators, so the global context that
 * holds them is kept too, and is re-created (dropping what was kept) only once a file left a
 * message in it or a parse ended in an unexpected exception. When a file's own module fails, the
 * modules it uses are analysed alone, each through a throwaway module that only extends it, so
 * that a round of failing files (per-action units before their recovery) still shares them.
 * Everything else is fresh per file: {@code ToolIO}, the standard streams, the file's own parse
 * and analysis.
 */
public final class SanyBatch {
    /** The index of the file being parsed, -1 between files; guarded by the stdout lock. */
    private static int parsing = -1;

    /** Modules analysed without a message, by name, for the later files that use them. */
    private static final Map<String, Analysed> ANALYSED = new HashMap<>();

    /** Modules whose analysis alone gave messages: never kept, so not tried again. */
    private static final Set<String> UNKEPT = new HashSet<>();

    /** Whether SANY's global context (the built-in operators) is the one ANALYSED points into. */
    private static boolean initialised = false;

    /** How many throwaway modules this run wrote, to name the next one. */
    private static int primed = 0;

    /** The specification of the file just parsed, if its analysis gave no message. */
    private static SpecObj clean = null;

    /** A module's parse and semantic graph, as SANY's tables hold them. */
    private static final class Analysed {
        final ParseUnit unit;
        final Context context;
        final ModuleNode node;

        Analysed(ParseUnit unit, Context context, ModuleNode node) {
            this.unit = unit;
            this.context = context;
            this.node = node;
        }
    }

    /**
     * The system property that, set to a prefix, has the driver print after each file whose
     * analysis gave no message the structure of its definitions named so ({@link SanyShapes}),
     * framed {@code NONCE SHAPES INDEX} ... {@code NONCE SHAPESEND INDEX}.
     */
    static final String SHAPES_PROPERTY = "sanybatch.shapes";

    private SanyBatch() {}

    /** {@link SanyShapes#describe} of the file just parsed; null if it had messages or failed. */
    private static String describeQuietly(String prefix) {
        SpecObj spec = clean;
        clean = null;
        if (spec == null) {
            return null;
        }
        try {
            return SanyShapes.describe(spec, prefix);
        } catch (Throwable t) {
            return null;
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: SanyBatch NONCE SECONDS_PER_FILE FILE.tla...");
            System.exit(2);
        }
        String nonce = args[0];
        long budgetMillis = (long) (Double.parseDouble(args[1]) * 1000);
        String shapes = System.getProperty(SHAPES_PROPERTY);
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), true);
        stdout.println(nonce + " START");
        for (int i = 2; i < args.length; i++) {
            int index = i - 2;
            synchronized (stdout) {
                parsing = index;
            }
            Thread watchdog = startWatchdog(stdout, nonce, index, budgetMillis);
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            int exit = parseOne(args[i], new PrintStream(buffer, true), nonce);
            String described = shapes == null || exit != 0 ? null : describeQuietly(shapes);
            watchdog.interrupt();
            synchronized (stdout) {
                parsing = -1;
                stdout.println(nonce + " BEGIN " + index);
                buffer.writeTo(stdout);
                stdout.print("\n" + nonce + " END " + index + " " + (exit & 0xFF) + "\n");
                if (described != null) {
                    stdout.print(nonce + " SHAPES " + index + "\n" + described + nonce
                            + " SHAPESEND " + index + "\n");
                }
                stdout.flush();
            }
        }
        System.exit(0);
    }

    /** A daemon that ends the JVM if file {@code index} is still parsing after the budget. */
    private static Thread startWatchdog(PrintStream stdout, String nonce, int index, long millis) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (stdout) {
                if (parsing != index) {
                    return;
                }
                stdout.println(nonce + " TIMEOUT " + index);
                stdout.flush();
                Runtime.getRuntime().halt(3);
            }
        });
        watchdog.setDaemon(true);
        watchdog.start();
        return watchdog;
    }

    /** Mirrors one iteration of {@code SANY.SANYmain} for a single file, without exiting. */
    private static int parseOne(String file, PrintStream out, String nonce) {
        clean = null;
        ToolIO.reset();
        ToolIO.out = out;
        ToolIO.err = out;
        System.setOut(out);
        System.setErr(out);
        try {
            out.println("\n****** SANY2 " + SANY.version + "\n");
            SpecObj spec = new SpecObj(file, null);
            InputStream probe = FileUtil.createNamedInputStream(file, spec.getResolver());
            if (probe == null) {
                out.println("Cannot find the specified file " + file + ".");
                return -1;
            }
            probe.close();
            try {
                int exit = frontEnd(spec, file, out);
                if (exit == 0 && spec.getErrorLevel() == 0 && spec.parseErrors.isSuccess()
                        && spec.semanticErrors.getNumMessages() == 0) {
                    clean = spec;
                }
                if (!keep(spec, file)) {
                    primeQuietly(spec, file, nonce);
                }
                return exit;
            } catch (FrontEndException e) {
                e.printStackTrace(out);
                out.println(e);
                return -1;
            }
        } catch (Throwable t) {
            initialised = false;
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            out.print("Exception in thread \"main\" " + trace);
            return 1;
        } finally {
            out.flush();
        }
    }

    /**
     * {@code SANY.frontEndMain}, handing the specification the modules kept so far (all but the
     * file's own) before its parse, and before its semantic analysis those that come first in
     * SANY's analysis order. A kept module after one analysed afresh is analysed again from its
     * kept parse: once a module has left a message, SANY prints all messages so far after every
     * later module, so skipping one there would drop a copy of them.
     */
    private static int frontEnd(SpecObj spec, String file, PrintStream out)
            throws FrontEndException {
        String root = moduleOf(file);
        try {
            if (!initialised) {
                ANALYSED.clear();
                UNKEPT.clear();
                SANY.frontEndInitialize(spec, out);
                initialised = true;
            }
            ANALYSED.forEach((name, kept) -> {
                if (!name.equals(root)) {
                    spec.parseUnitContext.put(name, kept.unit);
                }
            });
            SANY.frontEndParse(spec, out);
            ExternalModuleTable table = spec.getExternalModuleTable();
            for (int i = 0; i < spec.semanticAnalysisVector.size(); i++) {
                String name = (String) spec.semanticAnalysisVector.elementAt(i);
                Analysed kept = name.equals(root) ? null : ANALYSED.get(name);
                if (kept == null) {
                    break;
                }
                table.put(UniqueString.uniqueStringOf(name), kept.context, kept.node);
            }
            SANY.frontEndSemanticAnalysis(spec, out, true);
        } catch (InitException | ParseException | SemanticException e) {
            return -1;
        } catch (Exception e) {
            initialised = false;
            out.println(e.toString());
            throw new FrontEndException(e);
        } finally {
            if (Context.getGlobalContext().getErrors().getNumMessages() > 0) {
                initialised = false;
            }
        }
        return 0;
    }

    /**
     * Keeps the modules {@code spec} used besides the file's own, if its whole analysis gave no
     * message; says whether it did.
     */
    private static boolean keep(SpecObj spec, String file) {
        if (!initialised || spec.getErrorLevel() != 0 || !spec.parseErrors.isSuccess()
                || spec.semanticErrors.getNumMessages() > 0) {
            return false;
        }
        String root = moduleOf(file);
        ExternalModuleTable table = spec.getExternalModuleTable();
        spec.parseUnitContext.forEach((name, unit) -> {
            UniqueString key = UniqueString.uniqueStringOf(name);
            if (!name.equals(root) && table.getModuleNode(key) != null) {
                ANALYSED.putIfAbsent(name, new Analysed(unit, table.getContext(key),
                                                        table.getModuleNode(key)));
            }
        });
        return true;
    }

    /** {@link #prime}, which only saves later files time: whatever goes wrong, nothing is kept. */
    private static void primeQuietly(SpecObj failed, String file, String nonce) {
        try {
            prime(failed, file, nonce);
        } catch (Throwable t) {
            initialised = false;
        }
    }

    /**
     * Analyses alone, through a throwaway module extending only it, each module a failed file
     * used that is not kept yet, so the files after it need not analyse it again.
     */
    private static void prime(SpecObj failed, String file, String nonce) throws IOException {
        String root = moduleOf(file);
        List<String> used = new ArrayList<>();
        for (int i = 0; i < failed.semanticAnalysisVector.size(); i++) {
            String name = (String) failed.semanticAnalysisVector.elementAt(i);
            if (!name.equals(root) && !ANALYSED.containsKey(name) && !UNKEPT.contains(name)) {
                used.add(name);
            }
        }
        File directory = new File(file).getAbsoluteFile().getParentFile();
        PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), true);
        for (String name : used) {
            if (ANALYSED.containsKey(name)) {
                continue; // kept while priming an earlier one
            }
            String module = "SanyBatchPrime_" + nonce + "_" + primed++;
            File prime = new File(directory, module + ".tla");
            Files.write(prime.toPath(), ("---- MODULE " + module + " ----\nEXTENDS " + name
                    + "\n====\n").getBytes(StandardCharsets.UTF_8));
            try {
                SpecObj spec = new SpecObj(prime.getPath(), null);
                ToolIO.out = discard;
                ToolIO.err = discard;
                System.setOut(discard);
                System.setErr(discard);
                try {
                    frontEnd(spec, prime.getPath(), discard);
                } catch (FrontEndException e) {
                    UNKEPT.add(name);
                    continue;
                }
                if (!keep(spec, prime.getPath())) {
                    UNKEPT.add(name);
                }
            } finally {
                Files.deleteIfExists(prime.toPath());
            }
        }
    }

    /** The module a file holds, by SANY's rule: its name without directory and extension. */
    private static String moduleOf(String file) {
        String name = new File(file).getName();
        return name.endsWith(".tla") ? name.substring(0, name.length() - 4) : name;
    }
}
