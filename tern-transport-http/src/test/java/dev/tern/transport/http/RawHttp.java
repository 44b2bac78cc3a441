package dev.tern.transport.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import dev.tern.protocol.Json;

import tools.jackson.databind.JsonNode;

/** HTTP/1.1 over a plain socket, for inputs a real client refuses to send. Every read is bounded by a timeout. */
final class RawHttp implements AutoCloseable {
    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawHttp(int port) throws IOException {
        this(port, null);
    }

    /** Connects to 127.0.0.1:{@code port}, from {@code localAddress} (another loopback address) if given. */
    RawHttp(int port, String localAddress) throws IOException {
        socket = new Socket();
        if (localAddress != null) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
        }
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        socket.setSoTimeout(15_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    RawHttp send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** A POST with the headers a 2026-07-28 client sends plus {@code extra} (raw header lines, CRLF-terminated). */
    static String modernPost(int port, String body, String extra) {
        return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                + "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                + extra + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    record Response(int status, Map<String, String> headers, String body) {
        JsonNode json() {
            return Json.mapper().readTree(body);
        }

        int code() {
            return json().path("error").path("code").asInt(0);
        }
    }

    /** Reads only the status line and headers (for a stream whose body goes on). */
    Response readHead() throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l = line(); l != null && !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        return new Response(Integer.parseInt(statusLine.split(" ")[1]), headers, "");
    }

    Response read() throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l = line(); l != null && !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (headers.containsKey("content-length")) {
            body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int size = Integer.parseInt(line().split(";")[0].trim(), 16); size > 0;
                    size = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                body.write(in.readNBytes(size));
                line();
            }
            line();
        }
        if (status == 100) {
            return read();
        }
        return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
    }

    /** Reads one SSE chunk line by line until {@code marker} shows up; returns what was read. */
    String readUntil(String marker) throws IOException {
        StringBuilder seen = new StringBuilder();
        for (String l = line(); l != null; l = line()) {
            seen.append(l).append('\n');
            if (l.contains(marker)) {
                return seen.toString();
            }
        }
        throw new IOException("closed before " + marker + " in: " + seen);
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        if (c == -1 && b.size() == 0) {
            return null;
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** True when the server closes the connection within the read timeout (after any bytes still in flight). */
    boolean closedByServer() throws IOException {
        try {
            byte[] buf = new byte[8192];
            for (int i = 0; i < 100_000; i++) {
                if (in.read(buf) == -1) {
                    return true;
                }
            }
            return false;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }

    /** Closes with a TCP RST instead of a FIN. */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
