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
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A WebSocket client over a plain socket that writes frames byte by byte, for inputs a real client refuses to send
 * (unmasked frames, bad UTF-8, floods). Every read is bounded by a timeout.
 */
final class RawWebSocket implements AutoCloseable {
    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;

    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    /** The status line and headers of the answer to the upgrade request. */
    final String handshake;

    /** A frame as read: its opcode and payload. */
    record Frame(int opcode, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        /** The status code of a close frame, or -1 when it has none. */
        int closeCode() {
            return payload.length >= 2 ? (payload[0] & 0xff) << 8 | payload[1] & 0xff : -1;
        }
    }

    /** Connects and sends the upgrade request with {@code extraHeaders} (CRLF-terminated lines) added. */
    RawWebSocket(int port, String path, String extraHeaders) throws IOException {
        this(port, path, "Host: 127.0.0.1:" + port + "\r\nSec-WebSocket-Protocol: mcp\r\n" + extraHeaders, true);
    }

    RawWebSocket(int port, String path, String headers, boolean upgrade) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        socket.setSoTimeout(15_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        byte[] key = new byte[16];
        ThreadLocalRandom.current().nextBytes(key);
        String request = "GET " + path + " HTTP/1.1\r\n" + headers
                + (upgrade ? "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                        + "Sec-WebSocket-Key: " + Base64.getEncoder().encodeToString(key) + "\r\n" : "")
                + "\r\n";
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        handshake = readHead();
    }

    /** The status code of the answer to the upgrade request. */
    int status() {
        return Integer.parseInt(handshake.substring(9, 12));
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed during the handshake: " + head);
            }
            head.write(b);
            matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : b == '\r' ? 1 : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** Writes one frame, masked as a client must unless {@code masked} is false. */
    RawWebSocket frame(int opcode, boolean fin, boolean masked, byte[] payload) throws IOException {
        out.write(encode(opcode, fin, masked, payload));
        out.flush();
        return this;
    }

    /** One frame's bytes, masked as a client must unless {@code masked} is false. */
    static byte[] encode(int opcode, boolean fin, boolean masked, byte[] payload) {
        ByteArrayOutputStream f = new ByteArrayOutputStream(payload.length + 14);
        f.write((fin ? 0x80 : 0) | opcode);
        int maskBit = masked ? 0x80 : 0;
        if (payload.length < 126) {
            f.write(maskBit | payload.length);
        } else if (payload.length < 65_536) {
            f.write(maskBit | 126);
            f.write(payload.length >>> 8);
            f.write(payload.length & 0xff);
        } else {
            f.write(maskBit | 127);
            long n = payload.length;
            for (int i = 7; i >= 0; i--) {
                f.write((int) (n >>> (8 * i)) & 0xff);
            }
        }
        if (masked) {
            byte[] mask = new byte[4];
            ThreadLocalRandom.current().nextBytes(mask);
            f.write(mask, 0, 4);
            byte[] body = payload.clone();
            for (int i = 0; i < body.length; i++) {
                body[i] ^= mask[i & 3];
            }
            f.write(body, 0, body.length);
        } else {
            f.write(payload, 0, payload.length);
        }
        return f.toByteArray();
    }

    RawWebSocket text(String text) throws IOException {
        return frame(TEXT, true, true, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes only the head of a frame that claims {@code length} payload bytes. */
    RawWebSocket frameHead(int opcode, long length) throws IOException {
        byte[] head = new byte[14];
        head[0] = (byte) (0x80 | opcode);
        head[1] = (byte) (0x80 | 127);
        for (int i = 0; i < 8; i++) {
            head[2 + i] = (byte) (length >>> (8 * (7 - i)));
        }
        out.write(head);
        out.flush();
        return this;
    }

    Frame read() throws IOException {
        int b0 = in.readUnsignedByte();
        int b1 = in.readUnsignedByte();
        long length = b1 & 0x7f;
        if (length == 126) {
            length = in.readUnsignedShort();
        } else if (length == 127) {
            length = in.readLong();
        }
        byte[] payload = new byte[Math.toIntExact(length)];
        in.readFully(payload);
        return new Frame(b0 & 0x0f, payload);
    }

    /** The next text message, skipping pings. */
    String readText() throws IOException {
        while (true) {
            Frame f = read();
            if (f.opcode() == TEXT) {
                return f.text();
            }
            if (f.opcode() != PING) {
                throw new IOException("expected a text frame, got opcode " + f.opcode());
            }
        }
    }

    /** Reads until the server's close frame and returns its status code. */
    int awaitClose() throws IOException {
        while (true) {
            Frame f = read();
            if (f.opcode() == CLOSE) {
                return f.closeCode();
            }
        }
    }

    /** Whether the server has closed the connection (end of input or a reset), waiting up to the read timeout. */
    boolean closedByServer() throws IOException {
        try {
            while (in.read() >= 0) {
                // drain what is left
            }
            return true;
        } catch (SocketException reset) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
