package dev.tern.bench;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The floor under a stdio latency figure: a server that does nothing but answer. One thread reads request lines and
 * answers each that has a numeric id with a fixed result of about {@code --reply-bytes} bytes, every line of one read
 * in one write. {@link StdioFlood} against it measures the driver, the pipes and the machine's scheduling: what no real
 * server's figures can beat on the same machine.
 *
 * <pre>java -cp tern.jar dev.tern.bench.StdioEcho [--reply-bytes N]</pre>
 */
public final class StdioEcho {
    private static final byte[] ID_KEY = "\"id\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ID_PREFIX = "{\"jsonrpc\":\"2.0\",\"id\":".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_LINE = 1 << 20;

    private final byte[] tail;
    private byte[] line = new byte[1 << 12];
    private int lineLength;
    private byte[] replies = new byte[1 << 16];
    private int repliesLength;

    StdioEcho(int replyBytes) {
        String fixed = ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\"}]}}\n";
        int padding = Math.max(0, replyBytes - ID_PREFIX.length - 2 - fixed.length());
        String text = "x".repeat(padding);
        this.tail = (",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}}\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws IOException {
        int replyBytes = 900;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--reply-bytes") && i + 1 < args.length) {
                replyBytes = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: StdioEcho [--reply-bytes N]");
                System.exit(2);
            }
        }
        new StdioEcho(replyBytes).serve(new FileInputStream(FileDescriptor.in),
                new FileOutputStream(FileDescriptor.out));
    }

    /** Answers until the input ends. */
    void serve(InputStream in, OutputStream out) throws IOException {
        byte[] chunk = new byte[1 << 16];
        int n;
        while ((n = in.read(chunk)) >= 0) {
            for (int i = 0; i < n; i++) {
                byte b = chunk[i];
                if (b == '\n') {
                    answer();
                    lineLength = 0;
                } else if (lineLength < MAX_LINE) {
                    if (lineLength == line.length) {
                        line = Arrays.copyOf(line, line.length * 2);
                    }
                    line[lineLength++] = b;
                }
            }
            if (repliesLength > 0) {
                out.write(replies, 0, repliesLength);
                out.flush();
                repliesLength = 0;
            }
        }
    }

    private void answer() {
        int at = ByteSearch.indexOf(line, lineLength, ID_KEY);
        if (at < 0) {
            return;
        }
        int digitsStart = at + ID_KEY.length;
        int digitsEnd = digitsStart;
        while (digitsEnd < lineLength && line[digitsEnd] >= '0' && line[digitsEnd] <= '9') {
            digitsEnd++;
        }
        if (digitsEnd == digitsStart) {
            return;
        }
        int length = ID_PREFIX.length + (digitsEnd - digitsStart) + tail.length;
        if (repliesLength + length > replies.length) {
            replies = Arrays.copyOf(replies, Math.max(replies.length * 2, repliesLength + length));
        }
        System.arraycopy(ID_PREFIX, 0, replies, repliesLength, ID_PREFIX.length);
        repliesLength += ID_PREFIX.length;
        System.arraycopy(line, digitsStart, replies, repliesLength, digitsEnd - digitsStart);
        repliesLength += digitsEnd - digitsStart;
        System.arraycopy(tail, 0, replies, repliesLength, tail.length);
        repliesLength += tail.length;
    }
}
