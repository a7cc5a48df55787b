package serbench.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import serbench.Failure;
import serbench.IoTimer;

/**
 * A node's door: it listens only where it is told, and reads every pending hello side by side
 * against a deadline for the whole hello, so strangers, silent or trickling, delay no one.
 */
class DoorTest {
    private static final String TOKEN = LoopbackCell.TOKEN;

    @Test
    void aNodeListensOnlyWhereItIsTold() throws Exception {
        for (String wildcard : List.of("0.0.0.0:0", "[::]:0", ":0", "[]:0", "[::ffff:0.0.0.0]:0",
                "0:0")) {
            assertEquals("cannot listen on '" + wildcard + "': " + Door.WILDCARD,
                refusal(wildcard));
        }
        for (String port : List.of("65536", "-1", "+80", "", "x", "99999999999")) {
            String address = "127.0.0.1:" + port;
            assertEquals("cannot listen on '" + address + "': " + Door.NOT_A_PORT,
                refusal(address));
        }
        assertEquals("cannot listen on '127.0.0.1': not HOST:PORT", refusal("127.0.0.1"));
        assertEquals(65535, first("127.0.0.1:65535", false).getPort());
        assertEquals(80, first("[::1]:00080", false).getPort());
        // the flag says so explicitly
        assertTrue(first("0.0.0.0:0", true).getAddress().isAnyLocalAddress());
        assertTrue(first(":0", true).getAddress() instanceof Inet6Address);
        assertTrue(first(":0", true).getAddress().isAnyLocalAddress());
    }

    private static InetSocketAddress first(String address, boolean allowWildcard)
            throws Failure {
        return Door.listenAddresses(address, allowWildcard).get(0);
    }

    private static String refusal(String address) {
        return assertThrows(Failure.class, () -> Door.listenAddresses(address, false))
            .getMessage();
    }

    @Test
    void strangersSilentOrTricklingDoNotDelayTheHarness() throws Exception {
        List<Socket> strangers = new ArrayList<>();
        try (Door door = Door.bind("127.0.0.1:0", false)) {
            int port = door.localAddress().getPort();
            for (int i = 0; i < 200; i++) {
                strangers.add(new Socket("127.0.0.1", port));
            }
            strangers.add(trickle(port));
            Link harness = harness(port);
            Door.Admitted admitted = door.admit(TOKEN, deadline(10), "the harness");
            assertEquals("harness", admitted.hello().from());
            // it got in while every stranger was still held: none has been answered (with a
            // hello read per connection in turn, each silent one would hold the harness 5 s
            // and the trickler for as long as it liked)
            for (Socket s : strangers) {
                s.setSoTimeout(1);
                assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read());
            }
            admitted.link().close();
            harness.close();
        } finally {
            for (Socket s : strangers) {
                s.close();
            }
        }
    }

    @Test
    void aHelloMustArriveWholeWithin5sHoweverItTrickles() throws Exception {
        try (Door door = Door.bind("127.0.0.1:0", false)) {
            int port = door.localAddress().getPort();
            FutureTask<Door.Admitted> admitting = new FutureTask<>(
                () -> door.admit(TOKEN, deadline(30), "the harness"));
            Thread t = new Thread(admitting, "door");
            t.setDaemon(true);
            t.start();
            try (Socket trickler = trickle(port)) {
                trickler.setSoTimeout(30_000);
                String answer = answer(trickler);
                assertTrue(answer.endsWith(": no complete hello within 5 s\"}"), answer);
            }
            Link harness = harness(port);
            assertEquals("harness", admitting.get(10, TimeUnit.SECONDS).hello().from());
            admitting.get().link().close();
            harness.close();
        }
    }

    /** The error frame the door sent `stranger`, its JSON (read exactly: a reset may follow). */
    private static String answer(Socket stranger) throws IOException {
        InputStream in = stranger.getInputStream();
        byte[] header = in.readNBytes(Wire.HEADER);
        assertEquals(FrameKind.ERROR.id, header[4]);
        int length = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    private static long deadline(int seconds) {
        return System.nanoTime() + seconds * 1_000_000_000L;
    }

    /** The harness's connection, its hello sent. */
    private static Link harness(int port) throws Exception {
        Link link = new Link("node", SocketChannel.open(Node.parseAddress("127.0.0.1:" + port)),
            5_000);
        new Hello("control", "harness", List.of("", "", "", ""), TOKEN).send(link,
            new IoTimer());
        return link;
    }

    /**
     * A stranger sending a hello header, then one byte of its (4096-byte) payload every
     * 100 ms, far within any timeout per read, until the node closes it or 20 s have passed.
     */
    private static Socket trickle(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        ByteBuffer header = ByteBuffer.allocate(Wire.HEADER).order(ByteOrder.LITTLE_ENDIAN)
            .putInt(Wire.MAX_HELLO).put(FrameKind.HELLO.id);
        byte[] start = "SERBNET1{".getBytes(StandardCharsets.US_ASCII);
        Thread t = new Thread(() -> {
            long stop = System.nanoTime() + 20_000_000_000L;
            try {
                for (int i = 0; System.nanoTime() < stop; i++) {
                    byte b = i < Wire.HEADER ? header.get(i)
                        : i < Wire.HEADER + start.length ? start[i - Wire.HEADER] : (byte) ' ';
                    s.getOutputStream().write(b);
                    Thread.sleep(100);
                }
            } catch (IOException | InterruptedException closed) {
                // the node refused it, or the test is over
            }
        }, "trickler");
        t.setDaemon(true);
        t.start();
        return s;
    }
}
