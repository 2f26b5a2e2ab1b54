/**
 * The {@code lpf} command: {@code run} an SPMD program, {@code probe} the machine's g and l, and
 * {@code bench} the side-by-side workloads. Entry point {@link org.lpf4j.tools.LpfCommand}.
 */
module org.lpf4j.tools {
    requires org.lpf4j.core;
    requires java.management;
    requires org.lpf4j.boot;
    requires org.lpf4j.examples;
    requires org.lpf4j.coll;
    requires org.lpf4j.bsmp;
    requires org.lpf4j.cr;
    requires info.picocli;
    requires org.lpf4j.bench.programs;
    requires org.knowm.xchart;
    requires HdrHistogram;
    requires com.fasterxml.jackson.core;
    requires java.desktop;

    exports org.lpf4j.tools;
    exports org.lpf4j.tools.bench;
    exports org.lpf4j.tools.boot;
    exports org.lpf4j.tools.plot;
    opens org.lpf4j.tools to info.picocli;
}
