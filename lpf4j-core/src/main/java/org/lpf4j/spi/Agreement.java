package org.lpf4j.spi;

import org.lpf4j.Context;
import org.lpf4j.spi.kit.StartCollectives;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The check a multi-process job makes at start (SSI's version agreement): every process must have
 * selected the same module of every framework, with the same major.minor version (the release
 * number is ignored). A mismatch is an {@link IllegalStateException} listing who chose what.
 *
 * <p>An engine either exchanges the processes' {@link #encode encoded} choices its own way and
 * calls {@link #check}, or calls {@link #verify(Context, List)} on a fresh context of the new job,
 * which does the exchange over LPF itself.
 */
public final class Agreement {
    private Agreement() {}

    /**
     * One process's choice for one framework.
     *
     * @param framework the framework name, e.g. {@code "engine"}
     * @param module    the selected module's name, or {@code "-"} if none could be selected
     * @param version   its version ({@code 0.0.0} for none)
     */
    public record Choice(String framework, String module, Version version) {
        /** Rejects separators that would break {@link #encode}. */
        public Choice {
            Objects.requireNonNull(version, "version");
            if (framework.matches(".*[=;\\s].*") || module.matches(".*[=;\\s].*")) {
                throw new IllegalArgumentException("Choice(" + framework + ", " + module + "): names must not contain '=', ';' or spaces");
            }
        }

        @Override
        public String toString() { return framework + "=" + module + " " + version; }
    }

    /**
     * The choices this process made.
     *
     * @param components the process's component registry
     * @return one choice per framework, in framework order; a framework whose selection fails is
     *         recorded as module {@code "-"}
     */
    public static List<Choice> choices(Components components) {
        List<Choice> list = new ArrayList<>();
        for (Framework f : Framework.values()) {
            try {
                Component c = components.select(f);
                list.add(new Choice(f.id(), c.name(), c.version()));
            } catch (RuntimeException e) {
                list.add(new Choice(f.id(), "-", new Version(0, 0, 0)));
            }
        }
        return list;
    }

    /**
     * @param choices a process's choices
     * @return their text form {@code engine=threads 0.1.0;boot=local 0.1.0;...}
     */
    public static String encode(List<Choice> choices) {
        StringBuilder b = new StringBuilder();
        for (Choice c : choices) {
            if (!b.isEmpty()) b.append(';');
            b.append(c.framework()).append('=').append(c.module()).append(' ').append(c.version());
        }
        return b.toString();
    }

    /**
     * @param text what {@link #encode} made
     * @return the choices
     * @throws IllegalArgumentException if the text is malformed
     */
    public static List<Choice> decode(String text) {
        List<Choice> list = new ArrayList<>();
        if (text.isEmpty()) return list;
        for (String item : text.split(";")) {
            int eq = item.indexOf('='), sp = item.indexOf(' ');
            if (eq < 1 || sp < eq) throw new IllegalArgumentException("Agreement.decode: malformed item '" + item + "' in '" + text + "'");
            list.add(new Choice(item.substring(0, eq), item.substring(eq + 1, sp), Version.parse(item.substring(sp + 1))));
        }
        return list;
    }

    /**
     * Checks that all processes agree.
     *
     * @param byPid element {@code i} holds the choices of process {@code i}
     * @throws IllegalStateException if some framework's module or major.minor version differs, with
     *                               a message naming each framework in dispute and who chose what
     */
    public static void check(List<List<Choice>> byPid) {
        Map<String, List<String>> disputes = new LinkedHashMap<>();
        List<Choice> first = byPid.isEmpty() ? List.of() : byPid.get(0);
        for (int pid = 0; pid < byPid.size(); pid++) {
            for (Choice c : byPid.get(pid)) {
                Choice ref = find(first, c.framework());
                if (ref == null || !ref.module().equals(c.module()) || !ref.version().compatibleWith(c.version())) {
                    disputes.computeIfAbsent(c.framework(), k -> new ArrayList<>());
                }
            }
            for (Choice ref : first) {
                if (find(byPid.get(pid), ref.framework()) == null) disputes.computeIfAbsent(ref.framework(), k -> new ArrayList<>());
            }
        }
        if (disputes.isEmpty()) return;
        for (Map.Entry<String, List<String>> d : disputes.entrySet()) {
            for (int pid = 0; pid < byPid.size(); pid++) {
                Choice c = find(byPid.get(pid), d.getKey());
                d.getValue().add("pid " + pid + ": " + (c == null ? "nothing" : c.module() + " " + c.version()));
            }
        }
        StringBuilder msg = new StringBuilder("the processes of this job selected different modules or versions"
                + " (major.minor must agree):");
        disputes.forEach((fw, who) -> msg.append(" [").append(fw).append(": ").append(String.join(", ", who)).append(']'));
        throw new IllegalStateException(msg.toString());
    }

    private static Choice find(List<Choice> list, String framework) {
        for (Choice c : list) if (c.framework().equals(framework)) return c;
        return null;
    }

    /**
     * Exchanges every process's choices over LPF and {@linkplain #check checks} them. Collective:
     * every process of {@code ctx} calls it. Meant for a fresh context at the start of a job: it
     * gathers the choices with {@link StartCollectives#allgather} (2 register entries, 2p queue
     * entries, 5 syncs), then releases the capacities in a sixth sync, leaving both at 0 again.
     *
     * @param ctx  a context of the job, with nothing registered or queued
     * @param mine this process's choices
     * @throws IllegalStateException if the processes disagree (on every process, same message)
     */
    public static void verify(Context ctx, List<Choice> mine) {
        byte[][] texts = StartCollectives.allgather(ctx, encode(mine).getBytes(StandardCharsets.UTF_8));
        ctx.resizeMemoryRegister(0);
        ctx.resizeMessageQueue(0);
        ctx.sync();
        List<List<Choice>> byPid = new ArrayList<>();
        for (byte[] text : texts) byPid.add(decode(new String(text, StandardCharsets.UTF_8)));
        check(byPid);
    }

}
