import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordingFile;

/**
 * Compares how C2 compiled the gateway's path in several launches: reads one flight recording per launch (as
 * {@code launches.sh} makes them with {@code JFR=1}: every compilation and every inlining decision), takes each
 * method's last C2 compilation, and prints the inlining decisions that are not the same in every launch. A launch's
 * column says {@code ok} (inlined), the compiler's reason when not ({@code already compiled into a big method} is
 * the one that depends on the order compilations happened in), {@code -} when that compilation did not reach the
 * call, or {@code (none)} when the method was not C2-compiled on its own. Ends with each launch's count of calls not
 * inlined because the callee was already compiled into a big method.
 *
 * <p>Run (the JDK's single-file launcher):
 * {@code java benchmarks/gateway/JfrInlining.java launch-1.jfr launch-2.jfr ...}; only methods of {@code io.unitas}
 * and {@code io.netty} are compared.
 */
public final class JfrInlining {

    private static final String BIG = "already compiled into a big method";

    private record Compilation(int id, long startMillis) {}

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: java JfrInlining.java LAUNCH-1.jfr LAUNCH-2.jfr ...");
            System.exit(2);
        }
        List<Map<String, Map<String, String>>> launches = new ArrayList<>(); // method -> call -> decision
        for (String file : args) {
            launches.add(decisions(Path.of(file)));
        }
        Set<String> methods = new TreeSet<>();
        launches.forEach(l -> methods.addAll(l.keySet()));
        for (String method : methods) {
            Set<String> calls = new TreeSet<>();
            launches.forEach(l -> calls.addAll(l.getOrDefault(method, Map.of()).keySet()));
            StringBuilder differing = new StringBuilder();
            for (String call : calls) {
                List<String> row = new ArrayList<>();
                for (Map<String, Map<String, String>> l : launches) {
                    Map<String, String> compiled = l.get(method);
                    row.add(compiled == null ? "(none)" : compiled.getOrDefault(call, "-"));
                }
                if (new HashSet<>(row).size() > 1) {
                    differing.append("  ").append(call).append("\n    ").append(String.join(" | ", row)).append('\n');
                }
            }
            if (!differing.isEmpty()) {
                System.out.println(method);
                System.out.print(differing);
            }
        }
        System.out.print("\ncalls not inlined as already compiled into a big method, by launch:");
        for (Map<String, Map<String, String>> l : launches) {
            System.out.print(" " + l.values().stream().flatMap(m -> m.values().stream()).filter(BIG::equals).count());
        }
        System.out.println();
    }

    /** For each method's last C2 compilation (not on-stack replacement), its inlining decisions by call. */
    private static Map<String, Map<String, String>> decisions(Path file) throws IOException {
        Map<String, Compilation> last = new HashMap<>();
        Map<Integer, List<RecordedEvent>> inlining = new HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            switch (e.getEventType().getName()) {
                case "jdk.Compilation" -> {
                    String method = name(e.getValue("method"));
                    if (e.getInt("compileLevel") == 4 && !e.getBoolean("isOsr") && e.getBoolean("succeded")
                        && (method.startsWith("io.unitas.") || method.startsWith("io.netty."))) {
                        Compilation c = new Compilation(e.getInt("compileId"), e.getStartTime().toEpochMilli());
                        last.merge(method, c, (a, b) -> a.startMillis() >= b.startMillis() ? a : b);
                    }
                }
                case "jdk.CompilerInlining" ->
                        inlining.computeIfAbsent(e.getInt("compileId"), k -> new ArrayList<>()).add(e);
                default -> { }
            }
        }
        Map<String, Map<String, String>> byMethod = new TreeMap<>();
        last.forEach((method, c) -> {
            Map<String, String> calls = new TreeMap<>();
            for (RecordedEvent e : inlining.getOrDefault(c.id(), List.of())) {
                RecordedObject callee = e.getValue("callee");
                String call = name(e.getValue("caller")) + " @" + e.getValue("bci") + " -> "
                              + callee.getString("type").replace('/', '.') + "::" + callee.getString("name");
                String decision = e.getBoolean("succeeded") ? "ok" : e.getString("message");
                calls.merge(call, decision, (a, b) -> a.equals(b) ? a : a + " / " + b); // a call inlined twice
            }
            byMethod.put(method, calls);
        });
        return byMethod;
    }

    private static String name(RecordedMethod m) {
        return m.getType().getName() + "::" + m.getName();
    }
}
