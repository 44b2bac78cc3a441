package dev.tern.protocol;

/**
 * The bounds the codec enforces on every incoming message. Each bound maps to one fixed JSON-RPC error.
 *
 * @param maxMessageBytes largest message, in bytes (a larger one is refused before it is parsed)
 * @param maxNestingDepth deepest nesting of arrays and objects
 * @param maxStringLength longest string value or property name, in chars
 * @param maxNumberLength longest number literal, in chars
 * @param maxBatchSize most messages in one batch (only where 2025-03-26 is negotiated)
 */
public record CodecLimits(int maxMessageBytes, int maxNestingDepth, int maxStringLength, int maxNumberLength,
        int maxBatchSize) {

    public static final CodecLimits DEFAULT = new CodecLimits(4 * 1024 * 1024, 64, 1024 * 1024, 100, 100);

    public CodecLimits {
        requirePositive("maxMessageBytes", maxMessageBytes);
        requirePositive("maxNestingDepth", maxNestingDepth);
        requirePositive("maxStringLength", maxStringLength);
        requirePositive("maxNumberLength", maxNumberLength);
        requirePositive("maxBatchSize", maxBatchSize);
    }

    public CodecLimits withMaxMessageBytes(int value) {
        return new CodecLimits(value, maxNestingDepth, maxStringLength, maxNumberLength, maxBatchSize);
    }

    private static void requirePositive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }
}
