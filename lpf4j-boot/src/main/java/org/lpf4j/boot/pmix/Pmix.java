package org.lpf4j.boot.pmix;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The part of the PMIx client ABI lpf4j calls, bound through java.lang.foreign (no JNI, no shim).
 * Layouts and constants are those of PMIx 4.2.2 ({@code pmix_common.h}, {@code pmix.h} of the
 * Debian package libpmix-dev 4.2.2, also openpmix/openpmix {@code include/pmix_common.h.in}) for
 * LP64 Linux; the offsets were checked against {@code sizeof}/{@code offsetof} of that header.
 * Older PMIx differ (PMIx 1.x had {@code PMIX_MAX_KEYLEN 512} and another {@code pmix_value_t}), so
 * {@link #load} refuses a library whose {@code PMIx_Get_version()} is below 4.
 *
 * <pre>
 * #define PMIX_MAX_NSLEN 255, PMIX_MAX_KEYLEN 511
 * typedef char pmix_nspace_t[256]; typedef uint32_t pmix_rank_t;   PMIX_RANK_WILDCARD = UINT32_MAX-1
 * pmix_proc_t        { pmix_nspace_t nspace; pmix_rank_t rank; }          260 bytes, rank at 256
 * pmix_byte_object_t { char *bytes; size_t size; }                         16 bytes
 * pmix_value_t       { pmix_data_type_t(uint16) type; union data; }        32 bytes, data at 8
 *                    (the union's largest member is pmix_envar_t: two pointers and a char, 24 bytes)
 * pmix_info_t        { pmix_key_t key(512); uint32 flags; pmix_value_t value; } 552 bytes, flags 512, value 520
 * types: PMIX_BOOL 1, PMIX_INT 6, PMIX_UINT32 14, PMIX_BYTE_OBJECT 27;  scope PMIX_GLOBAL 3
 * status: PMIX_SUCCESS 0, PMIX_ERR_TIMEOUT -24, PMIX_ERR_NOT_FOUND -46
 * attributes: PMIX_COLLECT_DATA "pmix.collect" (bool), PMIX_TIMEOUT "pmix.timeout" (int, seconds),
 *             PMIX_OPTIONAL "pmix.optional" (bool: look only in the local store), PMIX_JOB_SIZE "pmix.job.size" (uint32)
 * </pre>
 * Thread-safe (the handles are immutable; PMIx's client library is thread-safe).
 */
final class Pmix {
    static final int NSPACE = 256, PROC = 260, RANK_AT = 256, VALUE = 32, DATA_AT = 8, INFO = 552, INFO_FLAGS = 512,
            INFO_VALUE = 520, KEY = 512;
    static final int RANK_WILDCARD = -2; // UINT32_MAX - 1
    static final short BOOL = 1, INT = 6, UINT32 = 14, BYTE_OBJECT = 27;
    static final byte GLOBAL = 3;
    static final int SUCCESS = 0, ERR_TIMEOUT = -24, ERR_NOT_FOUND = -46;

    final MethodHandle init, finalize, put, commit, fence, get, valueDestruct, errorString, free;
    final String version;

    private Pmix(SymbolLookup lib) {
        Linker l = Linker.nativeLinker();
        init = l.downcallHandle(find(lib, "PMIx_Init"), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
        finalize = l.downcallHandle(find(lib, "PMIx_Finalize"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        put = l.downcallHandle(find(lib, "PMIx_Put"), FunctionDescriptor.of(JAVA_INT, JAVA_BYTE, ADDRESS, ADDRESS));
        commit = l.downcallHandle(find(lib, "PMIx_Commit"), FunctionDescriptor.of(JAVA_INT));
        fence = l.downcallHandle(find(lib, "PMIx_Fence"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
        get = l.downcallHandle(find(lib, "PMIx_Get"), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
        valueDestruct = l.downcallHandle(find(lib, "PMIx_Value_destruct"), FunctionDescriptor.ofVoid(ADDRESS));
        errorString = l.downcallHandle(find(lib, "PMIx_Error_string"), FunctionDescriptor.of(ADDRESS, JAVA_INT));
        free = l.downcallHandle(l.defaultLookup().find("free").orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS));
        MethodHandle getVersion = l.downcallHandle(find(lib, "PMIx_Get_version"), FunctionDescriptor.of(ADDRESS));
        try {
            version = ((MemorySegment) getVersion.invokeExact()).reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("PMIx_Get_version failed", t);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)\\.(\\d+)").matcher(version);
        if (!m.find() || Integer.parseInt(m.group(1)) < 4) {
            throw new org.lpf4j.spi.boot.BootException("pmix: the PMIx library is '" + version
                    + "'; lpf4j's struct layouts are those of PMIx 4.x or newer");
        }
    }

    private static MemorySegment find(SymbolLookup lib, String name) {
        return lib.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libpmix has no symbol " + name));
    }

    private static volatile Pmix loaded;

    /**
     * Loads the library once per JVM (it stays loaded).
     *
     * @param library a name the dynamic linker finds ({@code libpmix.so.2}) or a path
     * @return the bindings
     */
    static synchronized Pmix load(String library) {
        if (loaded == null) loaded = new Pmix(SymbolLookup.libraryLookup(library, Arena.global()));
        return loaded;
    }

    /** Writes a pmix_info_t's key, flags 0 and a value header of the given type. */
    static MemorySegment info(MemorySegment infos, int index, String key, short type) {
        MemorySegment i = infos.asSlice((long) index * INFO, INFO);
        i.fill((byte) 0);
        i.setString(0, key);
        i.set(JAVA_INT, INFO_FLAGS, 0);
        MemorySegment v = i.asSlice(INFO_VALUE, VALUE);
        v.set(java.lang.foreign.ValueLayout.JAVA_SHORT, 0, type);
        return v;
    }

    String error(int status) {
        try {
            MemorySegment s = (MemorySegment) errorString.invokeExact(status);
            return s.equals(MemorySegment.NULL) ? "status " + status : s.reinterpret(4096).getString(0) + " (" + status + ")";
        } catch (Throwable t) {
            return "status " + status;
        }
    }
}
