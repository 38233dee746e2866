import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.server.RMISocketFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Runs {@code tlc2.TLC} with the same arguments, output and exit status, minus a third of a
 * second spent doing nothing at exit.
 *
 * <p>TLC's fingerprint set extends {@code UnicastRemoteObject} (for distributed TLC), so every
 * breadth-first run exports it over RMI, and RMI's accept thread then sits in a native
 * {@code accept()} until the JVM ends. When TLC calls {@code System.exit}, HotSpot waits for
 * threads in native code to come back, up to 30 polls of 10 ms for a user thread: a 5-state model
 * took 0.63 s where 0.31 s was TLC's own work. Here RMI's server sockets are made through a
 * factory that binds them to the loopback interface (no model check listens on the network) and
 * remembers them, and a shutdown hook closes them, which returns the accept thread from native
 * code before the JVM's exit begins to wait. Simulation runs, which build no fingerprint set,
 * are unchanged.
 */
public final class TlcMain {
    private TlcMain() {
    }

    public static void main(String[] args) throws Exception {
        final List<ServerSocket> listening = new CopyOnWriteArrayList<>();
        RMISocketFactory.setSocketFactory(new RMISocketFactory() {
            @Override
            public Socket createSocket(String host, int port) throws IOException {
                return new Socket(host, port);
            }

            @Override
            public ServerSocket createServerSocket(int port) throws IOException {
                ServerSocket socket = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
                listening.add(socket);
                return socket;
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (ServerSocket socket : listening) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing is all this hook is for; a socket that fails to close is already gone
                }
            }
        }, "speckernel-close-rmi"));
        tlc2.TLC.main(args);
    }
}
