/**
 * lpf4j's boot modules for multi-process jobs: {@code tcp} (independent JVMs meet at a rendezvous
 * address and prove job membership with a shared job key) and {@code pmix} (the PMIx client
 * library of a PMIx-enabled launcher, called through java.lang.foreign). JDK only.
 */
module org.lpf4j.boot {
    requires org.lpf4j.core;

    exports org.lpf4j.boot.tcp;
    exports org.lpf4j.boot.pmix;

    provides org.lpf4j.spi.BootModule with org.lpf4j.boot.tcp.TcpBoot, org.lpf4j.boot.pmix.PmixBoot;
}
