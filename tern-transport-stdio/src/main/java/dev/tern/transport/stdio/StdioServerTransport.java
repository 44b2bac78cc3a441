package dev.tern.transport.stdio;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import dev.tern.protocol.CodecLimits;
import dev.tern.protocol.Decoded;
import dev.tern.protocol.ErrorCodes;
import dev.tern.protocol.JsonRpcCodec;
import dev.tern.protocol.JsonRpcError;
import dev.tern.protocol.JsonRpcFailure;
import dev.tern.protocol.JsonRpcMessage;
import dev.tern.protocol.RequestId;
import dev.tern.server.McpServer;
import dev.tern.server.Outbound;
import dev.tern.server.ServerChannel;

import org.jspecify.annotations.Nullable;

/**
 * Serves one client over newline-delimited JSON: messages are read from {@code in} a line each and written to
 * {@code out} a line each, nothing else. A line over the size limit is answered with an error and skipped; a bad
 * line gets -32700 and reading goes on. End of input cancels in-flight work and returns within the shutdown
 * deadline; a broken output pipe ends the serving instead of spinning.
 *
 * <p>Handlers that promised never to block ({@link dev.tern.server.ToolSpec#nonBlocking()}) run on the reading thread,
 * which writes the replies of what it read once it has handled the whole read: no hand-off to another thread per
 * call. Should that write block for long (a client that reads replies only after writing all its requests, into a
 * full pipe), a new thread takes over the reading, so the input never stalls behind the output.
 */
public final class StdioServerTransport {
    /** When the line being received was read; only the reading thread touches it. */
    private long lineReceived;
    private static final System.Logger LOG = System.getLogger("dev.tern.transport.stdio");
    /**
     * The most a read, or a write of several lines, asks of the stream at once. A file stream (stdin, stdout) copies up
     * to 8 KiB through a buffer on the native stack, and mallocs and frees a buffer of the asked size for each larger
     * call: with 64 KiB, 10-15 % fewer calls per second pipelined (BENCHMARKS.md, stdio).
     */
    private static final int IO_BYTES = 8 * 1024;
    /** How often the watchdog looks for a reading thread stuck in a write; it takes over after one to two ticks. */
    private static final Duration WATCHDOG_TICK = Duration.ofMillis(100);

    private final McpServer server;
    private final InputStream in;
    private final OutputStream out;
    private final JsonRpcCodec codec;
    private final Duration shutdownDeadline;
    private final BlockingQueue<EncodedLine> writeQueue = new ArrayBlockingQueue<>(4096);
    /** Held by the thread writing queued lines; the others leave theirs to it. */
    private final ReentrantLock writeLock = new ReentrantLock();
    private final List<EncodedLine> batch = new ArrayList<>(256);
    private final byte[] writeBuffer = new byte[IO_BYTES];
    private final CountDownLatch writerDone = new CountDownLatch(1);
    private volatile boolean writerClosed;
    private volatile boolean outputBroken;
    private volatile boolean stopping;
    private volatile ServerChannel channel;
    /** The thread reading the input now; it only queues its replies, and writes them once it has handled a read. */
    private volatile Thread reader;
    /**
     * The reading thread's turn ({@code turn << 1}) and whether it is writing its replies ({@code | 1}). The
     * watchdog takes a stuck write's turn away by moving the turn on; the stuck thread, once its write returns, sees
     * that and stops reading.
     */
    private final AtomicLong readerTurn = new AtomicLong();
    /** Counts the reading thread's writes, so the watchdog can tell one long write from many short ones. */
    private volatile long readerWrites;
    private final CountDownLatch inputDone = new CountDownLatch(1);
    private volatile Outcome inputOutcome;
    private final AtomicBoolean shutDown = new AtomicBoolean();

    private StdioServerTransport(Builder b) {
        this.server = b.server;
        this.in = b.in;
        this.out = b.out;
        this.codec = new JsonRpcCodec(b.limits);
        this.shutdownDeadline = b.shutdownDeadline;
    }

    public static Builder builder(McpServer server) {
        return new Builder(server);
    }

    /** Why serving ended. */
    public enum Outcome {
        /** The input ended. */
        END_OF_INPUT,
        /** The output pipe broke: nobody is listening any more. */
        OUTPUT_CLOSED,
        /** {@link #stop()} was called. */
        STOPPED
    }

    /** Serves until the input ends, the output breaks or {@link #stop()} is called. Blocks the calling thread. */
    public Outcome serve() throws InterruptedException {
        channel = server.connect(new Outbound() {
            @Override
            public void send(JsonRpcMessage message, @Nullable RequestId relatedTo) {
                enqueue(encodeLine(message));
            }

            @Override
            public boolean runsNonBlockingHandlersInline() {
                return true;
            }

            /**
             * The server asks on the reading thread, while it receives the line read at {@code lineReceived}: one
             * observation for each request, notification or refused message on it (a batch's members each).
             */
            @Override
            public dev.tern.server.observe.RequestObservation observation(RequestId request) {
                return server.observer().request(dev.tern.server.observe.Transport.STDIO, lineReceived);
            }

            @Override
            public void sendBatch(List<? extends JsonRpcMessage> responses) {
                byte[] batch = codec.encodeBatch(responses);
                byte[] line = Arrays.copyOf(batch, batch.length + 1);
                line[batch.length] = '\n';
                enqueue(new EncodedLine(line, line.length));
            }
        });
        ReadLoop loop = new ReadLoop(channel);
        Thread watchdog = Thread.ofVirtual().name("tern-stdio-watchdog").start(() -> watchReader(loop));
        try {
            loop.read(0);
            inputDone.await();
        } finally {
            watchdog.interrupt();
            shutdown(Duration.ZERO);
        }
        return outputBroken ? Outcome.OUTPUT_CLOSED : inputOutcome;
    }

    /**
     * Hands the reading over to a new thread when the reading thread has been writing its replies for a whole tick:
     * the client is not reading them, and may itself be stuck writing requests nobody reads.
     */
    private void watchReader(ReadLoop loop) {
        long seenWrite = -1;
        try {
            while (inputDone.getCount() > 0) {
                Thread.sleep(WATCHDOG_TICK);
                long turn = readerTurn.get();
                long writes = readerWrites;
                if ((turn & 1) == 0 || writes != seenWrite) {
                    seenWrite = (turn & 1) == 0 ? -1 : writes;
                    continue;
                }
                long next = ((turn >>> 1) + 1) << 1;
                if (readerTurn.compareAndSet(turn, next)) {
                    LOG.log(System.Logger.Level.DEBUG, "stdout is not being read: reading stdin on another thread");
                    Thread.ofPlatform().daemon().name("tern-stdio-reader").start(() -> loop.read(next));
                }
                seenWrite = -1;
            }
        } catch (InterruptedException e) {
            // serving ended
        }
    }

    /**
     * Stops serving, as on SIGTERM: no more input is read, in-flight requests get until the shutdown deadline to
     * finish (then they are cancelled), and what was written is flushed. Returns when that is done.
     */
    public void stop() {
        stopping = true;
        try {
            in.close();
        } catch (IOException ignored) {
            // the reader may stay blocked; shutdown does not depend on it
        }
        try {
            shutdown(shutdownDeadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void shutdown(Duration grace) throws InterruptedException {
        if (!shutDown.compareAndSet(false, true)) {
            writerDone.await(shutdownDeadline.toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        ServerChannel c = channel;
        if (c != null) {
            if (!outputBroken && c.inFlight() > 0 && !grace.isZero()) {
                c.awaitIdle(grace);
            }
            c.close();
        }
        // On a thread of its own: a client that stopped reading would hold up the write, not this shutdown.
        Thread lastWrite = Thread.ofVirtual().name("tern-stdio-last-write").start(() -> {
            writeLock.lock();
            try {
                writeQueued();
            } finally {
                writerClosed = true;
                writeLock.unlock();
            }
        });
        lastWrite.join(shutdownDeadline);
        writerClosed = true;
        writerDone.countDown();
    }

    /** Reads lines and hands them to the channel; whichever thread has the turn runs it. */
    private final class ReadLoop {
        private final ServerChannel channel;
        private final int max = codec.limits().maxMessageBytes();
        private final byte[] chunk = new byte[IO_BYTES];
        private final LineBuffer line = new LineBuffer(Math.min(max, 64 * 1024), max);

        ReadLoop(ServerChannel channel) {
            this.channel = channel;
        }

        /** Reads until the input ends or serving stops, or until the watchdog hands the turn to another thread. */
        void read(long turn) {
            reader = Thread.currentThread();
            try {
                int n;
                while (!outputBroken && !stopping && (n = in.read(chunk)) >= 0) {
                    int start = 0;
                    for (int i = 0; i < n; i++) {
                        if (chunk[i] == '\n') {
                            if (line.isEmpty() && i - start <= max) {
                                dispatch(channel, chunk, start, i - start);
                            } else {
                                line.append(chunk, start, i - start);
                                dispatch(channel, line);
                                line.reset();
                            }
                            start = i + 1;
                        }
                    }
                    line.append(chunk, start, n - start);
                    if (!writeReplies(turn)) {
                        return;
                    }
                }
                if (line.length() > 0 || line.overflowed()) {
                    dispatch(channel, line);
                }
            } catch (IOException e) {
                if (!stopping) {
                    LOG.log(System.Logger.Level.DEBUG, "stdin closed: {0}", e.getMessage());
                }
            }
            inputOutcome = stopping ? Outcome.STOPPED : outputBroken ? Outcome.OUTPUT_CLOSED : Outcome.END_OF_INPUT;
            inputDone.countDown();
        }

        /** Writes the replies queued so far; false when the turn was handed to another thread meanwhile. */
        private boolean writeReplies(long turn) {
            if (writeQueue.isEmpty()) {
                return true;
            }
            readerWrites++;
            readerTurn.set(turn | 1);
            writeUnlessWriting();
            return readerTurn.compareAndSet(turn | 1, turn);
        }
    }

    private void dispatch(ServerChannel channel, LineBuffer line) {
        if (line.overflowed()) {
            if (server.observer().enabled()) {
                lineReceived = System.nanoTime();
            }
            channel.receive(new Decoded.Invalid(new JsonRpcFailure(null, JsonRpcError.of(ErrorCodes.INVALID_REQUEST,
                    "Invalid request: message of " + line.seen() + " bytes or more exceeds the limit of "
                            + codec.limits().maxMessageBytes()))));
            return;
        }
        dispatch(channel, line.bytes(), 0, line.length());
    }

    private void dispatch(ServerChannel channel, byte[] bytes, int offset, int length) {
        if (length > 0 && bytes[offset + length - 1] == '\r') {
            length--;
        }
        if (isBlank(bytes, offset, length)) {
            return;
        }
        if (server.observer().enabled()) {
            lineReceived = System.nanoTime();
        }
        channel.receive(codec.decode(bytes, offset, length));
    }

    private static boolean isBlank(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            byte b = bytes[i];
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    private EncodedLine encodeLine(JsonRpcMessage message) {
        LineOutput out = new LineOutput();
        codec.encode(message, out);
        out.write('\n');
        return out.toLine();
    }

    /**
     * Queues a line and writes the queue unless another thread is writing it. Whoever holds the write lock writes
     * every line queued by then with one write call per batch, so a lone response goes out from the thread that made
     * it (no hand-off to a writer thread and its wake-up), and under pipelined load many responses share a system
     * call. A full queue (a client not reading) holds up the threads that add to it. The reading thread only queues:
     * it writes once it has handled a whole read ({@link ReadLoop}).
     */
    private void enqueue(EncodedLine message) {
        if (outputBroken || writerClosed) {
            return;
        }
        // offer first: a handler thread interrupted by its cancellation still gets its reply queued when there is room
        if (!writeQueue.offer(message)) {
            try {
                writeQueue.put(message);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (Thread.currentThread() != reader) {
            writeUnlessWriting();
        }
    }

    private void writeUnlessWriting() {
        // A line queued while another thread held the lock is seen by that thread's check after unlocking.
        while (!writeQueue.isEmpty() && !writerClosed && writeLock.tryLock()) {
            try {
                writeQueued();
            } finally {
                writeLock.unlock();
            }
        }
    }

    /** Writes the queued lines; the caller holds the write lock. */
    private void writeQueued() {
        if (outputBroken) {
            writeQueue.clear();
            return;
        }
        try {
            while (writeQueue.drainTo(batch) > 0) {
                int length = 0;
                for (EncodedLine message : batch) {
                    if (length + message.length() > writeBuffer.length) {
                        out.write(writeBuffer, 0, length);
                        length = 0;
                    }
                    if (message.length() > writeBuffer.length) {
                        out.write(message.bytes(), 0, message.length()); // whole, on its line: rare enough to malloc
                    } else {
                        System.arraycopy(message.bytes(), 0, writeBuffer, length, message.length());
                        length += message.length();
                    }
                }
                batch.clear();
                if (length > 0) {
                    out.write(writeBuffer, 0, length);
                }
                out.flush();
                if (out instanceof PrintStream print && print.checkError()) {
                    // PrintStream swallows write failures; a broken pipe shows only here
                    throw new IOException("output stream failed");
                }
            }
        } catch (IOException e) {
            batch.clear();
            outputBroken = true;
            writeQueue.clear();
            stopping = true;
            try {
                in.close();
            } catch (IOException ignored) {
                // the reader notices the broken output on its next line
            }
        }
    }

    /** One encoded message and its newline, in the first {@code length} bytes of {@code bytes}. */
    private record EncodedLine(byte[] bytes, int length) {
    }

    /** Hands over its buffer instead of copying it. */
    private static final class LineOutput extends ByteArrayOutputStream {
        LineOutput() {
            super(512);
        }

        EncodedLine toLine() {
            return new EncodedLine(buf, count);
        }
    }

    /** A growable line buffer that stops storing past the limit but keeps counting. */
    private static final class LineBuffer {
        private byte[] buf;
        private int length;
        private long seen;
        private final int max;

        LineBuffer(int initial, int max) {
            this.buf = new byte[initial];
            this.max = max;
        }

        void append(byte[] src, int off, int len) {
            seen += len;
            if (seen > max) {
                length = 0;
                return;
            }
            if (length + len > buf.length) {
                buf = Arrays.copyOf(buf, Math.min(max, Math.max(buf.length * 2, length + len)));
            }
            System.arraycopy(src, off, buf, length, len);
            length += len;
        }

        boolean overflowed() {
            return seen > max;
        }

        long seen() {
            return seen;
        }

        int length() {
            return length;
        }

        boolean isEmpty() {
            return length == 0 && seen == 0;
        }

        byte[] bytes() {
            return buf;
        }

        void reset() {
            length = 0;
            seen = 0;
            if (buf.length > 1024 * 1024) {
                buf = new byte[64 * 1024];
            }
        }
    }

    /** Builds a {@link StdioServerTransport}. */
    public static final class Builder {
        private final McpServer server;
        // Not System.in: its BufferedInputStream asks the OS how much is left (fstat and ioctl) after every read,
        // two system calls per request at a moderate rate; the transport buffers what it reads itself.
        private InputStream in = new FileInputStream(FileDescriptor.in);
        private OutputStream out = new FileOutputStream(FileDescriptor.out);
        private CodecLimits limits = CodecLimits.DEFAULT;
        private Duration shutdownDeadline = Duration.ofSeconds(5);

        private Builder(McpServer server) {
            this.server = Objects.requireNonNull(server, "server");
        }

        /** Where requests are read from (default: the process's standard input, read without a Java buffer). */
        public Builder input(InputStream in) {
            this.in = Objects.requireNonNull(in, "in");
            return this;
        }

        public Builder output(OutputStream out) {
            this.out = Objects.requireNonNull(out, "out");
            return this;
        }

        public Builder limits(CodecLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** How long in-flight requests may take to finish once asked to stop (default 5 s). */
        public Builder shutdownDeadline(Duration deadline) {
            this.shutdownDeadline = Objects.requireNonNull(deadline, "deadline");
            return this;
        }

        public StdioServerTransport build() {
            return new StdioServerTransport(this);
        }
    }
}
