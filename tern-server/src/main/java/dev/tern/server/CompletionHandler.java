package dev.tern.server;

import java.util.List;
import java.util.Map;

/** Suggests values for one argument of a prompt or one variable of a resource template. */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * @param value what the user has typed so far
     * @param context the values of the other arguments already resolved
     * @return all matching values; the first 100 are sent, with the total
     */
    List<String> complete(String value, Map<String, String> context) throws Exception;
}
