package dev.tern.transport.http;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * HTTP/2 (h2c prior knowledge) frame by frame over a plain socket, to send what real clients never send: resets,
 * floods, bad frames. Requests are HPACK-encoded as literals; responses are decoded with Netty's HPACK decoder.
 */
final class RawH2 implements AutoCloseable {
    static final int DATA = 0;
    static final int HEADERS = 1;
    static final int RST_STREAM = 3;
    static final int SETTINGS = 4;
    static final int PING = 6;
    static final int GOAWAY = 7;
    static final int WINDOW_UPDATE = 8;
    static final int CONTINUATION = 9;
    static final int END_STREAM = 0x1;
    static final int ACK = 0x1;
    static final int END_HEADERS = 0x4;

    static final int SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8;
    static final int NO_ERROR = 0;
    static final int PROTOCOL_ERROR = 1;
    static final int REFUSED_STREAM = 7;
    static final int CANCEL = 8;
    static final int ENHANCE_YOUR_CALM = 0xb;

    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
    private ByteArrayOutputStream pendingBlock;
    private Http2Headers lastHeaders;
    private int nextStream = 1;
    final int port;
    /** The server's first SETTINGS frame. */
    Frame serverSettings;

    record Frame(int type, int flags, int stream, byte[] payload) {
        /** The value of a SETTINGS frame's parameter, or -1 when it is not there. */
        long setting(int id) {
            ByteBuffer b = ByteBuffer.wrap(payload);
            while (b.remaining() >= 6) {
                int key = b.getShort() & 0xFFFF;
                long value = b.getInt() & 0xFFFFFFFFL;
                if (key == id) {
                    return value;
                }
            }
            return -1;
        }

        int errorCode() {
            ByteBuffer b = ByteBuffer.wrap(payload);
            return type == GOAWAY ? b.getInt(4) : b.getInt(0);
        }
    }

    record Response(int status, Http2Headers headers, String body, int resetCode) {
    }

    private RawH2(int port, int receiveBuffer) throws IOException {
        this.port = port;
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        socket.setSoTimeout(15_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Connects, sends the preface and empty SETTINGS, and acknowledges the server's SETTINGS. */
    static RawH2 connect(int port) throws IOException {
        return connect(port, 0);
    }

    static RawH2 connect(int port, int receiveBuffer) throws IOException {
        RawH2 h2 = new RawH2(port, receiveBuffer);
        h2.out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        h2.frame(SETTINGS, 0, 0, new byte[0]);
        Frame settings = h2.next();
        if (settings.type() != SETTINGS) {
            throw new IOException("expected SETTINGS, got " + settings);
        }
        h2.serverSettings = settings;
        h2.frame(SETTINGS, ACK, 0, new byte[0]);
        return h2;
    }

    void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(header(type, flags, stream, payload.length));
        out.write(payload);
        out.flush();
    }

    /** Writes {@code count} copies of one frame in large batches; stops early if the server closes. */
    void flood(int type, int flags, int stream, byte[] payload, int count) throws IOException {
        byte[] one = new byte[9 + payload.length];
        System.arraycopy(header(type, flags, stream, payload.length), 0, one, 0, 9);
        System.arraycopy(payload, 0, one, 9, payload.length);
        int perBatch = Math.max(1, 64 * 1024 / one.length);
        byte[] batch = new byte[perBatch * one.length];
        for (int i = 0; i < perBatch; i++) {
            System.arraycopy(one, 0, batch, i * one.length, one.length);
        }
        for (int sent = 0; sent < count; sent += perBatch) {
            out.write(batch);
        }
        out.flush();
    }

    static byte[] header(int type, int flags, int stream, int length) {
        return new byte[] {(byte) (length >>> 16), (byte) (length >>> 8), (byte) length, (byte) type, (byte) flags,
            (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream};
    }

    static byte[] int32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    Frame next() throws IOException {
        byte[] h = new byte[9];
        in.readFully(h);
        int length = ((h[0] & 0xFF) << 16) | ((h[1] & 0xFF) << 8) | (h[2] & 0xFF);
        int stream = ByteBuffer.wrap(h, 5, 4).getInt() & 0x7FFFFFFF;
        byte[] payload = new byte[length];
        in.readFully(payload);
        Frame frame = new Frame(h[3] & 0xFF, h[4] & 0xFF, stream, payload);
        if (frame.type() == HEADERS || frame.type() == CONTINUATION) {
            // Every header block is decoded, also those of frames a caller skips: HPACK's table is per connection.
            if (pendingBlock == null) {
                pendingBlock = new ByteArrayOutputStream();
            }
            pendingBlock.write(payload);
            if ((frame.flags() & END_HEADERS) != 0) {
                lastHeaders = decode(stream, pendingBlock.toByteArray());
                pendingBlock = null;
            }
        }
        return frame;
    }

    int nextStreamId() {
        int id = nextStream;
        nextStream += 2;
        return id;
    }

    /** An HPACK block of literal header fields (never indexed, no Huffman). */
    static byte[] hpack(Map<String, String> fields) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        fields.forEach((name, value) -> {
            b.write(0x10);
            string(b, name.getBytes(StandardCharsets.ISO_8859_1));
            string(b, value.getBytes(StandardCharsets.ISO_8859_1));
        });
        return b.toByteArray();
    }

    private static void string(ByteArrayOutputStream b, byte[] bytes) {
        int n = bytes.length;
        if (n < 127) {
            b.write(n);
        } else {
            b.write(127);
            n -= 127;
            while (n >= 128) {
                b.write((n & 0x7F) | 0x80);
                n >>>= 7;
            }
            b.write(n);
        }
        b.write(bytes, 0, bytes.length);
    }

    static Map<String, String> requestFields(String method, String authority, String path, Map<String, String> headers) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put(":method", method);
        fields.put(":scheme", "http");
        fields.put(":authority", authority);
        fields.put(":path", path);
        fields.putAll(headers);
        return fields;
    }

    /** Sends a request on a new stream; returns the stream id. */
    int request(String method, String authority, String path, Map<String, String> headers, byte[] body) throws IOException {
        int stream = nextStreamId();
        byte[] block = hpack(requestFields(method, authority, path, headers));
        frame(HEADERS, END_HEADERS | (body.length == 0 ? END_STREAM : 0), stream, block);
        if (body.length > 0) {
            frame(DATA, END_STREAM, stream, body);
        }
        return stream;
    }

    /** A POST of an MCP 2026-07-28 request on a new stream, with the body sent or, if {@code endStream} is false, left open. */
    int post(String json, Map<String, String> extra, boolean endStream) throws IOException {
        int stream = nextStreamId();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("content-type", "application/json");
        headers.put("accept", Mcp.ACCEPT);
        headers.put("mcp-protocol-version", Mcp.MODERN);
        headers.putAll(extra);
        frame(HEADERS, END_HEADERS, stream, hpack(requestFields("POST", "127.0.0.1:" + port, "/mcp", headers)));
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        frame(DATA, endStream ? END_STREAM : 0, stream, body);
        return stream;
    }

    /**
     * Reads frames until {@code stream} ends (END_STREAM or RST_STREAM), answering SETTINGS and PING; fails on
     * GOAWAY.
     */
    Response response(int stream) throws IOException {
        int status = 0;
        Http2Headers headers = null;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int i = 0; i < 100_000; i++) {
            Frame f = next();
            switch (f.type()) {
                case SETTINGS -> {
                    if ((f.flags() & ACK) == 0) {
                        frame(SETTINGS, ACK, 0, new byte[0]);
                    }
                }
                case PING -> {
                    if ((f.flags() & ACK) == 0) {
                        frame(PING, ACK, 0, f.payload());
                    }
                }
                case GOAWAY -> throw new IOException("GOAWAY with error " + f.errorCode());
                case HEADERS, CONTINUATION -> {
                    if ((f.flags() & END_HEADERS) != 0) {
                        Http2Headers decoded = lastHeaders;
                        if (f.stream() == stream) {
                            headers = decoded;
                            status = Integer.parseInt(decoded.status().toString());
                        }
                    }
                    if (f.stream() == stream && (f.flags() & END_STREAM) != 0) {
                        return new Response(status, headers, body.toString(StandardCharsets.UTF_8), -1);
                    }
                }
                case DATA -> {
                    if (f.payload().length > 0) {
                        frame(WINDOW_UPDATE, 0, 0, int32(f.payload().length));
                    }
                    if (f.stream() == stream) {
                        body.write(f.payload());
                        if ((f.flags() & END_STREAM) != 0) {
                            return new Response(status, headers, body.toString(StandardCharsets.UTF_8), -1);
                        }
                    }
                }
                case RST_STREAM -> {
                    if (f.stream() == stream) {
                        return new Response(status, headers, body.toString(StandardCharsets.UTF_8), f.errorCode());
                    }
                }
                default -> {
                }
            }
        }
        throw new IOException("no end of stream " + stream);
    }

    /** Reads frames until the header block of {@code stream} ends; returns it (SETTINGS and PING answered). */
    Http2Headers awaitHeaders(int stream) throws IOException {
        for (int i = 0; i < 100_000; i++) {
            Frame f = next();
            answer(f);
            if ((f.type() == HEADERS || f.type() == CONTINUATION) && f.stream() == stream
                    && (f.flags() & END_HEADERS) != 0) {
                return lastHeaders;
            }
            if (f.type() == RST_STREAM && f.stream() == stream) {
                throw new IOException("stream " + stream + " reset with error " + f.errorCode());
            }
        }
        throw new IOException("no headers on stream " + stream);
    }

    /** Reads frames until a DATA frame of {@code stream} arrives (SETTINGS and PING answered, windows given back). */
    Frame awaitData(int stream) throws IOException {
        for (int i = 0; i < 100_000; i++) {
            Frame f = next();
            answer(f);
            if (f.type() == DATA && f.stream() == stream) {
                return f;
            }
            if (f.type() == RST_STREAM && f.stream() == stream) {
                throw new IOException("stream " + stream + " reset with error " + f.errorCode());
            }
        }
        throw new IOException("no DATA on stream " + stream);
    }

    /** The next frame, with SETTINGS and PING answered and the windows its DATA took given back. */
    Frame nextAnswered() throws IOException {
        Frame f = next();
        answer(f);
        return f;
    }

    private void answer(Frame f) throws IOException {
        switch (f.type()) {
            case SETTINGS -> {
                if ((f.flags() & ACK) == 0) {
                    frame(SETTINGS, ACK, 0, new byte[0]);
                }
            }
            case PING -> {
                if ((f.flags() & ACK) == 0) {
                    frame(PING, ACK, 0, f.payload());
                }
            }
            case GOAWAY -> throw new IOException("GOAWAY with error " + f.errorCode());
            case DATA -> {
                if (f.payload().length > 0) {
                    frame(WINDOW_UPDATE, 0, 0, int32(f.payload().length));
                    frame(WINDOW_UPDATE, 0, f.stream(), int32(f.payload().length));
                }
            }
            default -> {
            }
        }
    }

    private Http2Headers decode(int stream, byte[] block) throws IOException {
        try {
            return decoder.decodeHeaders(stream, Unpooled.wrappedBuffer(block));
        } catch (Http2Exception e) {
            throw new IOException(e);
        }
    }

    /**
     * Reads until the server sends GOAWAY or closes; returns the GOAWAY error code, or -1 if the connection just
     * closed. Frames for streams are skipped.
     */
    int awaitGoAway() throws IOException {
        try {
            for (int i = 0; i < 10_000_000; i++) {
                Frame f = next();
                if (f.type() == GOAWAY) {
                    return f.errorCode();
                }
            }
            throw new IOException("no GOAWAY");
        } catch (EOFException | SocketException e) {
            return -1;
        } catch (SocketTimeoutException e) {
            throw new IOException("the server neither sent GOAWAY nor closed the connection", e);
        }
    }

    /** Reads frames until one of {@code type} for {@code stream} (0: any stream) arrives. */
    Frame await(int type, int stream) throws IOException {
        for (int i = 0; i < 1_000_000; i++) {
            Frame f = next();
            if (f.type() == type && (stream == 0 || f.stream() == stream)) {
                return f;
            }
            if (f.type() == GOAWAY && type != GOAWAY) {
                throw new IOException("GOAWAY with error " + f.errorCode() + " while waiting for frame type " + type);
            }
        }
        throw new IOException("no frame of type " + type);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
