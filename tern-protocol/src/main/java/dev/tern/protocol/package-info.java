/**
 * The MCP wire level: JSON-RPC messages and their strict codec ({@link dev.tern.protocol.JsonRpcCodec}), the protocol
 * revisions, error codes and cancellation. Nothing is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.tern.protocol;

import org.jspecify.annotations.NullMarked;
