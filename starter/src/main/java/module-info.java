/**
 * A first lpf4j program as a JPMS module: it reads the API module {@code org.lpf4j.core}; the
 * engine module on the module path is found through the {@code ServiceLoader} binding, so the
 * program never names it.
 */
module com.example.starter {
    requires org.lpf4j.core;
    exports com.example.starter;
}
