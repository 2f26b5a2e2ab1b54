package org.lpf4j.tools;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The code of README.md and docs/*.md, as a reader copies it.
 * <ul>
 *   <li>Every {@code ```java} block is a whole source file, followed by a {@code ```bash} block with
 *       the commands that compile and run it ({@code bin/lpf-java F.java ...}: the source launcher;
 *       {@code bin/lpf-javac -d DIR F.java} then {@code bin/lpf run ... --class-path DIR ...}). The
 *       block compiles with {@code javac -Xlint:all,-serial} (as {@code bin/lpf-javac}) without a
 *       diagnostic, and each command runs in a JVM of its own (at most 180 s), exits with 0, prints
 *       no warning and prints every
 *       {@code // ... prints: TEXT} of the block. A block that needs what this module's tests lack is
 *       tagged on the line before it ({@code <!-- run: spark ... -->}) and run by the test named
 *       there; an unknown tag fails.</li>
 *   <li>Every {@code bin/lpf ...} command in a shell block parses: its options and values are
 *       accepted by the {@code lpf} command line ({@code <class>} stands for a class name, a
 *       {@code $VARIABLE} for 4); only the README's first command and the commands beside the Java
 *       blocks are run.</li>
 *   <li>The README opens with the two commands CI runs (the main job and {@code bin/test}), and the
 *       first of them runs.</li>
 *   <li>Every relative link between the pages reaches a file, and a {@code #fragment} a heading of it.</li>
 * </ul>
 */
class DocsCodeBlocksTest {
    /** Tags that hand a Java block to another module's test (named in the tag's text). */
    private static final Set<String> TAGS = Set.of("spark");
    private static final Pattern PRINTS = Pattern.compile("//.*?prints: (.*)");
    private static final Pattern TAG = Pattern.compile("<!-- run: (\\w+)[^>]*-->");

    /** A fenced code block: its page, the line of its opening fence, language, text and tag. */
    record Block(Path page, int line, String lang, String text, String tag) {
        String where() { return ROOT.relativize(page) + ":" + line; }
    }

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    static List<Block> blocks(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).startsWith("```")) continue;
            String lang = lines.get(i).substring(3).strip();
            String tag = null;
            for (int k = i - 1; k >= 0 && !lines.get(k).isBlank(); k--) {
                Matcher t = TAG.matcher(lines.get(k));
                if (t.find()) tag = t.group(1);
            }
            int start = i;
            StringBuilder text = new StringBuilder();
            for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) text.append(lines.get(i)).append('\n');
            assertTrue(i < lines.size(), page + ":" + (start + 1) + ": a code block that never closes");
            blocks.add(new Block(page, start + 1, lang, text.toString(), tag));
        }
        return blocks;
    }

    private static boolean isShell(Block b) {
        return b.lang().equals("bash") || b.lang().equals("sh") || b.lang().equals("shell");
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockCompilesWithoutAWarningAndRunsAsItsCommandsSay(@TempDir Path work) throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path page : pages()) {
            List<Block> blocks = blocks(page);
            for (int i = 0; i < blocks.size(); i++) {
                Block java = blocks.get(i);
                if (!java.lang().equals("java")) continue;
                if (java.tag() != null) {
                    tests.add(DynamicTest.dynamicTest(java.where() + " (run: " + java.tag() + ")",
                            () -> assertTrue(TAGS.contains(java.tag()), java.where() + ": unknown tag '" + java.tag()
                                    + "' (known: " + TAGS + ")")));
                    continue;
                }
                Block commands = i + 1 < blocks.size() ? blocks.get(i + 1) : null;
                Path dir = work.resolve("block" + tests.size());
                tests.add(DynamicTest.dynamicTest(java.where(), () -> compileAndRun(java, commands, dir)));
            }
        }
        assertFalse(tests.isEmpty(), "the pages have Java blocks");
        return tests.stream();
    }

    private static void compileAndRun(Block java, Block commands, Path dir) throws Exception {
        assertTrue(commands != null && isShell(commands), java.where() + ": a ```bash block with its commands follows it");
        Matcher file = Pattern.compile("bin/lpf-javac? .*?(\\w+\\.java)").matcher(commands.text());
        assertTrue(file.find(), commands.where() + ": a bin/lpf-java or bin/lpf-javac command names the source file");
        List<String> expected = PRINTS.matcher(java.text()).results().map(r -> r.group(1).strip()).toList();
        assertFalse(expected.isEmpty(), java.where() + ": the block says what it prints (// prints: ...)");
        Path source = Files.writeString(Files.createDirectories(dir.resolve("src")).resolve(file.group(1)), java.text());
        Path classes = Files.createDirectories(dir.resolve("classes"));
        String cp = System.getProperty("java.class.path");
        Process javac = new ProcessBuilder(tool("javac"), "-Xlint:all,-serial", "-d", classes.toString(), "-cp", cp,
                source.toString()).redirectErrorStream(true).start();
        try {
            assertTrue(javac.waitFor(120, TimeUnit.SECONDS), java.where() + ": javac did not finish in 120 s");
            String diagnostics = new String(javac.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, javac.exitValue(), java.where() + ":\n" + diagnostics);
            assertTrue(diagnostics.isBlank(), java.where() + " compiles without a warning:\n" + diagnostics);
        } finally {
            javac.destroyForcibly();
        }
        int ran = 0;
        for (String line : commandLines(commands.text())) {
            List<String> words = words(line);
            if (words.isEmpty()) continue;
            String command = words.getFirst();
            List<String> args = words.subList(1, words.size());
            String out;
            switch (command) {
                case "bin/lpf-javac" -> {
                    assertEquals(List.of("-d", "classes", source.getFileName().toString()), args,
                            commands.where() + ": compiles into classes");
                    continue;
                }
                case "bin/lpf-java" -> out = sourceLauncher(source, args.subList(1, args.size()), commands.where());
                case "bin/lpf" -> {
                    List<String> lpfArgs = new ArrayList<>();
                    for (int k = 0; k < args.size(); k++) {
                        String a = args.get(k);
                        boolean cpValue = k > 0 && (args.get(k - 1).equals("--class-path") || args.get(k - 1).equals("-cp"));
                        lpfArgs.add(cpValue ? classes.toString() : a.startsWith("/tmp/") ? dir.resolve(a.substring(5)).toString() : a);
                    }
                    LpfJvm r = LpfJvm.run(180, lpfArgs.toArray(String[]::new));
                    assertTrue(r.done() && r.exitCode() == 0, commands.where() + ": " + line + "\n" + r.both());
                    assertTrue(r.ghosts().isEmpty(), commands.where() + ": processes left behind: " + r.ghosts());
                    out = r.both();
                }
                default -> throw new AssertionError(commands.where() + ": not a command this test runs: " + line);
            }
            ran++;
            assertFalse(out.contains("WARNING"), commands.where() + ": " + line + " printed a warning:\n" + out);
            for (String text : expected) {
                assertTrue(out.contains(text), commands.where() + ": " + line + " prints '" + text + "':\n" + out);
            }
        }
        assertTrue(ran > 0, commands.where() + ": runs the program");
    }

    private static String sourceLauncher(Path source, List<String> args, String where) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(tool("java"), "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), source.toString()));
        cmd.addAll(args);
        Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!proc.waitFor(180, TimeUnit.SECONDS)) fail(where + ": did not finish in 180 s");
            String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, proc.exitValue(), where + ":\n" + out);
            return out;
        } finally {
            proc.descendants().forEach(ProcessHandle::destroyForcibly);
            proc.destroyForcibly();
        }
    }

    private static String tool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    /** The block's commands: continuation lines joined, comments and blank lines dropped. */
    static List<String> commandLines(String text) {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n")) {
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            current.append(line);
            String whole = current.toString().strip();
            current.setLength(0);
            if (!whole.isEmpty() && !whole.startsWith("#")) lines.add(whole);
        }
        return lines;
    }

    /**
     * A command line split as the shell splits it, up to its end ({@code #} comment, {@code |},
     * {@code &&}, {@code ;}, a redirection): quotes removed, {@code $VAR} and {@code ${VAR}} given 4.
     */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                else word.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) words.add(word.toString());
                word.setLength(0);
                inWord = false;
            } else if (!inWord && (c == '#' || c == '|' || c == ';' || c == '>' || c == '&')) {
                break;
            } else if (c == '>' || (c == '2' && line.startsWith("2>", i))) {
                break;
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) words.add(word.toString());
        words.replaceAll(w -> w.replaceAll("\\$\\{?\\w+}?", "4"));
        return words;
    }

    @Test
    void everyLpfCommandInTheShellBlocksParses() throws IOException {
        List<String> failures = new ArrayList<>();
        int parsed = 0;
        for (Path page : pages()) {
            for (Block b : blocks(page)) {
                if (!isShell(b)) continue;
                for (String line : commandLines(b.text())) {
                    List<String> words = words(line);
                    int at = -1;
                    for (int k = 0; k < words.size() && at < 0; k++) {
                        if (words.get(k).equals("bin/lpf") || words.get(k).endsWith("/bin/lpf")) at = k;
                    }
                    if (at < 0) continue;
                    String[] args = words.subList(at + 1, words.size()).stream()
                            .map(w -> w.equals("<class>") ? "org.lpf4j.examples.InnerProduct" : w).toArray(String[]::new);
                    try {
                        LpfCommand.commandLine().parseArgs(args);
                        parsed++;
                    } catch (CommandLine.ParameterException e) {
                        failures.add(b.where() + ": " + line + "\n    " + e.getMessage());
                    }
                }
            }
        }
        assertEquals(List.of(), failures, "bin/lpf commands that do not parse");
        assertTrue(parsed >= 40, "only " + parsed + " bin/lpf commands found");
    }

    @Test
    @Timeout(240)
    void theReadmeOpensWithTheMainJobAndTheTestCommandAndTheMainJobRuns() throws Exception {
        Block first = blocks(ROOT.resolve("README.md")).getFirst();
        List<String> commands = commandLines(first.text());
        assertEquals(2, commands.size(), first.text());
        assertEquals(List.of("bin/lpf", "run", "-p", "4", "org.lpf4j.examples.InnerProduct"), words(commands.get(0)));
        assertEquals(List.of("bin/test"), words(commands.get(1)), "CI runs bin/test as the README's test command");
        LpfJvm r = LpfJvm.run(180, "run", "-p", "4", "org.lpf4j.examples.InnerProduct");
        assertEquals(0, r.exitCode(), r::both);
        assertTrue(r.out().contains("p=4"), r::both);
    }

    @Test
    void everyLinkBetweenThePagesReachesAFileAndAHeading() throws IOException {
        Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages()) {
            for (String line : prose(page)) {
                Matcher m = link.matcher(line);
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("[a-z]+:.*")) continue;
                    links++;
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                    if (!Files.exists(to)) {
                        broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                    } else if (hash >= 0 && !anchors(to).contains(target.substring(hash + 1))) {
                        broken.add(ROOT.relativize(page) + ": " + target + " (no such heading in " + to.getFileName() + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), broken, "broken links");
        assertTrue(links >= 20, "only " + links + " links found");
    }

    /** The page's lines outside code blocks. */
    private static List<String> prose(Path page) throws IOException {
        List<String> out = new ArrayList<>();
        boolean code = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) code = !code;
            else if (!code) out.add(line);
        }
        return out;
    }

    /** The page's heading anchors, as GitHub makes them. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        if (!page.toString().endsWith(".md")) return anchors;
        for (String line : prose(page)) {
            if (!line.startsWith("#")) continue;
            String text = line.replaceFirst("^#+\\s*", "").toLowerCase(java.util.Locale.ROOT);
            anchors.add(text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
        }
        return anchors;
    }
}
