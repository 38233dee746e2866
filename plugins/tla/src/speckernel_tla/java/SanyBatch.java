import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;

import tla2sany.drivers.FrontEndException;
import tla2sany.drivers.SANY;
import tla2sany.modanalyzer.SpecObj;
import util.FileUtil;
import util.ToolIO;

/**
 * Parses many TLA+ modules in one JVM, printing for each one exactly what
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
 * <p>Each file gets fresh SANY objects: {@code frontEndMain} re-initialises SANY's static
 * configuration and global context, and this driver resets {@code ToolIO} and the standard
 * streams, so nothing one parse leaves behind is seen by the next.
 */
public final class SanyBatch {
    /** The index of the file being parsed, -1 between files; guarded by the stdout lock. */
    private static int parsing = -1;

    private SanyBatch() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: SanyBatch NONCE SECONDS_PER_FILE FILE.tla...");
            System.exit(2);
        }
        String nonce = args[0];
        long budgetMillis = (long) (Double.parseDouble(args[1]) * 1000);
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), true);
        stdout.println(nonce + " START");
        for (int i = 2; i < args.length; i++) {
            int index = i - 2;
            synchronized (stdout) {
                parsing = index;
            }
            Thread watchdog = startWatchdog(stdout, nonce, index, budgetMillis);
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            int exit = parseOne(args[i], new PrintStream(buffer, true));
            watchdog.interrupt();
            synchronized (stdout) {
                parsing = -1;
                stdout.println(nonce + " BEGIN " + index);
                buffer.writeTo(stdout);
                stdout.print("\n" + nonce + " END " + index + " " + (exit & 0xFF) + "\n");
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
    private static int parseOne(String file, PrintStream out) {
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
                return SANY.frontEndMain(spec, file, out);
            } catch (FrontEndException e) {
                e.printStackTrace(out);
                out.println(e);
                return -1;
            }
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            out.print("Exception in thread \"main\" " + trace);
            return 1;
        } finally {
            out.flush();
        }
    }
}
