package speckernel.javatools;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Permission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The JDK's compiler run in this JVM on sources held in memory, and the programs it builds run in
 * a fresh class loader. Compiling in-process costs milliseconds per mutant once the compiler is
 * warm, where a javac process per mutant costs a second.
 */
final class Javac {
    /** What compiling one set of sources gave: class files by binary name, or the first error. */
    record Result(Map<String, byte[]> classes, String error) {
        boolean ok() {
            return error == null;
        }

        /** Same classes with byte-identical contents: javac's "trivial compiler equivalence". */
        boolean sameBytecode(Result other) {
            if (!classes.keySet().equals(other.classes.keySet())) {
                return false;
            }
            for (Map.Entry<String, byte[]> entry : classes.entrySet()) {
                if (!Arrays.equals(entry.getValue(), other.classes.get(entry.getKey()))) {
                    return false;
                }
            }
            return true;
        }

        /** A digest of all class files, to find mutants identical to each other. */
        String fingerprint() {
            try {
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                for (Map.Entry<String, byte[]> entry : classes.entrySet()) {
                    digest.update(entry.getKey().getBytes(StandardCharsets.UTF_8));
                    digest.update((byte) 0);
                    digest.update(entry.getValue());
                }
                return HexFormat.of().formatHex(digest.digest());
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** What running a program's test main gave: how it ended and what it printed. */
    record Run(String outcome, String output) {
        boolean passed() {
            return outcome.equals("exit 0");
        }
    }

    private static final List<String> OPTIONS =
        List.of("-g:none", "-proc:none", "-nowarn", "-Xlint:none", "-encoding", "UTF-8");

    private final JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    private final StandardJavaFileManager files;

    Javac() {
        if (compiler == null) {
            throw new IllegalStateException("no system Java compiler: run on a JDK, not a JRE");
        }
        files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8);
    }

    /** Compile {@code sources} (file stem to text) together, without debug information so
     * that only the code decides the bytes. */
    Result compile(Map<String, String> sources) {
        List<JavaFileObject> units = new ArrayList<>();
        for (Map.Entry<String, String> entry : sources.entrySet()) {
            units.add(new Source(entry.getKey(), entry.getValue()));
        }
        Map<String, byte[]> classes = new TreeMap<>();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Output output = new Output(files, classes);
        Boolean ok = compiler.getTask(null, output, diagnostics, OPTIONS, null, units).call();
        if (ok) {
            return new Result(classes, null);
        }
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                String where = d.getSource() == null ? "" : d.getSource().getName() + ":"
                    + d.getLineNumber() + ": ";
                return new Result(classes, where + d.getMessage(null));
            }
        }
        return new Result(classes, "javac failed");
    }

    /**
     * Compile many programs (each a map of file stem to text, without a package declaration)
     * in one compiler run: javac's start-up per run costs more than compiling a small class, and
     * a class's mutants are many small programs. Program {@code i} goes into package {@code
     * zzp<i>}; the results come back with that package spelled {@code zzp000000} in names and
     * bytes alike, so equal code gives equal bytes whichever program it was. A program with a
     * compile error leaves the others alone: the failing ones are dropped and the rest compiled
     * again.
     */
    List<Result> compileEach(List<Map<String, String>> programs) {
        List<Result> results = new ArrayList<>();
        Map<String, String> pending = new LinkedHashMap<>();
        for (int i = 0; i < programs.size(); i++) {
            results.add(null);
            for (Map.Entry<String, String> entry : programs.get(i).entrySet()) {
                String pkg = packageOf(i);
                pending.put(pkg + "/" + entry.getKey(), "package " + pkg + "; " + entry.getValue());
            }
        }
        while (!pending.isEmpty()) {
            Map<String, byte[]> classes = new TreeMap<>();
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            List<JavaFileObject> units = new ArrayList<>();
            pending.forEach((stem, text) -> units.add(new Source(stem, text)));
            List<String> options = new ArrayList<>(OPTIONS);
            options.addAll(List.of("-Xmaxerrs", "100000", "-XDshould-stop.ifError=FLOW"));
            Boolean ok = compiler.getTask(null, new Output(files, classes), diagnostics, options,
                                          null, units).call();
            Map<Integer, String> failed = new TreeMap<>();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR && d.getSource() != null) {
                    String path = d.getSource().toUri().getPath();
                    int index = Integer.parseInt(path.substring(4, 10));
                    failed.putIfAbsent(index, path.substring(11) + ":" + d.getLineNumber() + ": "
                                       + d.getMessage(null));
                }
            }
            if (!ok && failed.isEmpty()) {  // an error javac could not place: one run each
                for (int i = 0; i < programs.size(); i++) {
                    if (results.get(i) == null) {
                        results.set(i, compile(programs.get(i)));
                    }
                }
                return results;
            }
            for (Map.Entry<Integer, String> failure : failed.entrySet()) {
                results.set(failure.getKey(), new Result(Map.of(), failure.getValue()));
                String prefix = packageOf(failure.getKey()) + "/";
                pending.keySet().removeIf(stem -> stem.startsWith(prefix));
            }
            if (ok) {
                for (int i = 0; i < programs.size(); i++) {
                    if (results.get(i) == null) {
                        results.set(i, new Result(new TreeMap<>(), null));
                    }
                }
                classes.forEach((name, bytes) -> {
                    int index = Integer.parseInt(name.substring(3, 9));
                    results.get(index).classes().put(PACKAGE + name.substring(9), neutral(bytes));
                });
                pending.clear();
            }
        }
        return results;
    }

    /** The package every batch-compiled class reports: {@code zzp000000}. */
    static final String PACKAGE = packageOf(0);

    private static String packageOf(int index) {
        return String.format("zzp%06d", index);
    }

    /** {@code bytes} with every {@code zzp<digits>} package name spelled {@code zzp000000}
     * (same length, so no size or offset in the class file changes). */
    private static byte[] neutral(byte[] bytes) {
        byte[] out = bytes.clone();
        for (int i = 0; i + 9 <= out.length; i++) {
            if (out[i] == 'z' && out[i + 1] == 'z' && out[i + 2] == 'p') {
                boolean digits = true;
                for (int j = 3; j < 9; j++) {
                    digits &= out[i + j] >= '0' && out[i + j] <= '9';
                }
                if (digits) {
                    for (int j = 3; j < 9; j++) {
                        out[i + j] = '0';
                    }
                }
            }
        }
        return out;
    }

    /**
     * Run {@code main} of class {@code mainClass} from {@code classes} in a class loader of its
     * own (fresh static state), in a thread group of its own, with its output captured, System.exit
     * trapped, and a time limit. A run still going at the limit is stopped and reported as a
     * timeout; so are threads it left behind. A thread that survives {@code Thread.stop} (it
     * catches {@code Throwable}) marks this JVM {@link #tainted}: its output still only reaches
     * its own run's buffer, but it keeps a core busy, so the helper exits after answering.
     */
    static Run run(Map<String, byte[]> classes, String mainClass, long timeoutMs) {
        Captured captured = new Captured();
        String[] outcome = {"no result"};
        ThreadGroup group = new ThreadGroup("test-main");
        Thread worker = new Thread(group, () -> {
            Streams.TARGET.set(captured);
            try {
                Class<?> main = new Loader(classes).loadClass(mainClass);
                Method entry = main.getMethod("main", String[].class);
                entry.setAccessible(true);
                entry.invoke(null, (Object) new String[0]);
                outcome[0] = "exit 0";
            } catch (InvocationTargetException e) {
                outcome[0] = describe(e.getCause());
            } catch (Throwable e) {
                outcome[0] = describe(e);
            }
        }, "test-main");
        worker.setDaemon(true);
        try {
            worker.start();
            worker.join(timeoutMs);
            boolean late = worker.isAlive();
            stopAll(group);
            if (late) {
                return new Run("timeout", captured.text());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Run("interrupted", "");
        }
        return new Run(outcome[0], captured.text());
    }

    /** Set once a test thread survived being stopped; the helper then exits after its answer. */
    static volatile boolean tainted;

    /** Stop every thread still running in {@code group}, a few rounds (a stopped thread may
     * start another as it dies); mark the JVM tainted if any lives on. */
    @SuppressWarnings({"deprecation", "removal"})
    private static void stopAll(ThreadGroup group) throws InterruptedException {
        for (int round = 0; round < STOP_ROUNDS; round++) {
            Thread[] threads = new Thread[Math.max(group.activeCount() * 2, 16)];
            int count = group.enumerate(threads, true);
            if (count == 0) {
                return;
            }
            for (int i = 0; i < count; i++) {
                try {
                    threads[i].stop();
                } catch (UnsupportedOperationException e) {
                    tainted = true;
                    return;
                }
            }
            for (int i = 0; i < count; i++) {
                threads[i].join(1000);
            }
        }
        tainted |= group.activeCount() > 0;
    }

    private static final int STOP_ROUNDS = 3;

    /**
     * {@code System.out} and {@code System.err} of this JVM: each thread writes to the buffer of
     * the test run it belongs to (threads a test starts inherit it), every other thread to the
     * helper's stderr. The protocol has a stream of its own on file descriptor 1, which no
     * {@code PrintStream} of {@code System} ever points at, so nothing a test prints, now or
     * from a thread that outlives it, can land between the helper's answers.
     */
    static final class Streams extends OutputStream {
        static final InheritableThreadLocal<OutputStream> TARGET = new InheritableThreadLocal<>();
        private final OutputStream fallback;

        Streams(OutputStream fallback) {
            this.fallback = fallback;
        }

        private OutputStream target() {
            OutputStream target = TARGET.get();
            return target == null ? fallback : target;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            target().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            target().write(b, off, len);
        }

        @Override
        public void flush() throws java.io.IOException {
            target().flush();
        }

        /** Route System.out and System.err through per-thread targets from now on. */
        static void install(OutputStream fallback) {
            PrintStream routed = new PrintStream(new Streams(fallback), true,
                                                  StandardCharsets.UTF_8);
            System.setOut(routed);
            System.setErr(routed);
        }
    }

    /** A test's output, kept up to a megabyte (a test printing without end must not take the
     * helper's heap with it); what lies beyond is only counted. */
    private static final class Captured extends OutputStream {
        private static final int LIMIT = 1 << 20;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private long dropped;

        @Override
        public synchronized void write(int b) {
            if (kept.size() < LIMIT) {
                kept.write(b);
            } else {
                dropped++;
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int room = Math.max(0, Math.min(len, LIMIT - kept.size()));
            kept.write(b, off, room);
            dropped += len - room;
        }

        synchronized String text() {
            String text = kept.toString(StandardCharsets.UTF_8);
            return dropped == 0 ? text : text + "\n[" + dropped + " more bytes]";
        }
    }

    private static String describe(Throwable e) {
        if (e instanceof ExitTrap.Exit exit) {
            return "exit " + exit.status;
        }
        return "exception " + e.getClass().getName();
    }

    /** Turns System.exit into an exception in every thread of a test run, at any time (Java
     * 17's SecurityManager, enabled with -Djava.security.manager=allow). */
    @SuppressWarnings({"deprecation", "removal"})
    static final class ExitTrap extends SecurityManager {
        static final class Exit extends SecurityException {
            final int status;

            Exit(int status) {
                super("System.exit(" + status + ")");
                this.status = status;
            }
        }

        static void install() {
            System.setSecurityManager(new ExitTrap());
        }

        @Override
        public void checkExit(int status) {
            if (Streams.TARGET.get() != null) {
                throw new Exit(status);
            }
        }

        @Override
        public void checkPermission(Permission perm) {
            // everything else is allowed
        }

        @Override
        public void checkPermission(Permission perm, Object context) {
            // everything else is allowed
        }
    }

    /** Defines the compiled classes itself before asking its parent, so a task class never
     * resolves to one of this helper's own. */
    private static final class Loader extends ClassLoader {
        private final Map<String, byte[]> classes;

        Loader(Map<String, byte[]> classes) {
            super(Javac.class.getClassLoader());
            this.classes = classes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> found = findLoadedClass(name);
                if (found == null && classes.containsKey(name)) {
                    byte[] bytes = classes.get(name);
                    found = defineClass(name, bytes, 0, bytes.length);
                }
                if (found == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(found);
                }
                return found;
            }
        }
    }

    private static final class Source extends SimpleJavaFileObject {
        private final String text;

        Source(String stem, String text) {
            super(URI.create("string:///" + stem + Kind.SOURCE.extension), Kind.SOURCE);
            this.text = text;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }

    private static final class Output extends ForwardingJavaFileManager<StandardJavaFileManager> {
        private final Map<String, byte[]> classes;

        Output(StandardJavaFileManager files, Map<String, byte[]> classes) {
            super(files);
            this.classes = classes;
        }

        @Override
        public JavaFileObject getJavaFileForOutput(Location location, String className,
                                                   JavaFileObject.Kind kind, FileObject sibling) {
            return new SimpleJavaFileObject(URI.create("mem:///" + className + kind.extension),
                                            kind) {
                @Override
                public OutputStream openOutputStream() {
                    return new ByteArrayOutputStream() {
                        @Override
                        public void close() {
                            classes.put(className, toByteArray());
                        }
                    };
                }
            };
        }
    }
}
