package org.lpf4j.tools;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * lpf4j-bom pins every artifact a user may depend on, at the reactor's version: the BOM has no
 * parent (so that importing it brings nothing else), so nothing else keeps the two in step.
 */
class BomTest {
    /** Reactor modules a user never depends on. */
    private static final List<String> INTERNAL = List.of("lpf4j-bom", "lpf4j-conformance", "lpf4j-testkit", "lpf4j-bench");

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void bomVersionIsTheReactorVersion() throws IOException {
        assertEquals(version(read("pom.xml")), version(read("lpf4j-bom/pom.xml")),
                "lpf4j-bom/pom.xml's <version> must equal lpf4j-parent's");
    }

    @Test
    void bomListsEveryPublishedModule() throws IOException {
        String bom = read("lpf4j-bom/pom.xml");
        List<String> missing = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(read("pom.xml"));
        while (m.find()) {
            String module = m.group(1);
            if (!INTERNAL.contains(module) && !bom.contains("<artifactId>" + module + "</artifactId>")) missing.add(module);
        }
        assertTrue(missing.isEmpty(), "lpf4j-bom/pom.xml lacks " + missing);
    }

    private static String read(String file) throws IOException {
        return Files.readString(ROOT.resolve(file));
    }

    /** The project's own version: the first {@code <version>} after its {@code <artifactId>}. */
    private static String version(String pom) {
        String withoutParent = pom.replaceAll("(?s)<!--.*?-->", "").replaceAll("(?s)<parent>.*?</parent>", "");
        Matcher m = Pattern.compile("<artifactId>[^<]+</artifactId>\\s*(?:<[^>]+>[^<]*</[^>]+>\\s*)*?<version>([^<]+)</version>")
                .matcher(withoutParent);
        if (!m.find()) throw new AssertionError("no <version> in a pom");
        return m.group(1);
    }
}
