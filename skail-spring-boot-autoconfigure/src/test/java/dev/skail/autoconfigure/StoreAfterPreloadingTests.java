package dev.skail.autoconfigure;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.skail.platform.jdbc.StorePreloading;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured store keeps the start-up's background preloading from running while it opens (see
 * {@code PreloadGate}): a preloading asked for once the store is open never runs. The gate is once per class loader,
 * and the first store of a test JVM closes it, so skail's and H2's classes are loaded here afresh (the rest, Spring's
 * among them, from the test's class path).
 */
class StoreAfterPreloadingTests {

    @Test
    void aPreloadingAskedForOnceTheAutoConfiguredStoreIsOpenNeverRuns(@TempDir Path directory) throws Exception {
        try (FreshStoreClasses loader = new FreshStoreClasses()) {
            // JDBC hands a connection only to a driver the pool's class loader sees: H2's of this loader, registered
            Class<?> driver = Class.forName("org.h2.Driver", true, loader);
            try {
                openTheStoreThenTryThePreloading(loader, directory);
            }
            finally {
                driver.getMethod("unload").invoke(null);
            }
        }
    }

    private static void openTheStoreThenTryThePreloading(ClassLoader loader, Path directory) throws Exception {
        Class<?> propertiesClass = loader.loadClass(SkailProperties.class.getName());
        Object properties = propertiesClass.getConstructor().newInstance();
        Object store = propertiesClass.getMethod("getStore").invoke(properties);
        store.getClass().getMethod("setDirectory", Path.class).invoke(store, directory);
        Class<?> configuration = loader.loadClass(SkailAutoConfiguration.class.getName());
        Constructor<?> constructor = configuration.getDeclaredConstructor();
        constructor.setAccessible(true);
        Method executionStore = configuration.getDeclaredMethod("skailExecutionStore", propertiesClass);
        executionStore.setAccessible(true);

        try (AutoCloseable opened = (AutoCloseable) executionStore.invoke(constructor.newInstance(), properties)) {
            Field gateField = loader.loadClass(StorePreloading.class.getName()).getDeclaredField("GATE");
            gateField.setAccessible(true);
            Object gate = gateField.get(null);
            Method open = gate.getClass().getDeclaredMethod("open");
            open.setAccessible(true);
            assertThat(open.invoke(gate)).as("the preloading may start after the store opened").isEqualTo(false);
        }
    }

    /** skail's, H2's and HikariCP's classes loaded by this loader itself; everything else by the test's. */
    private static final class FreshStoreClasses extends URLClassLoader {

        FreshStoreClasses() throws URISyntaxException, IOException {
            super(new URL[] { location(SkailAutoConfiguration.class), location(org.h2.Driver.class),
                    location(com.zaxxer.hikari.HikariConfig.class) },
                    StoreAfterPreloadingTests.class.getClassLoader());
        }

        private static URL location(Class<?> type) throws URISyntaxException, IOException {
            return type.getProtectionDomain().getCodeSource().getLocation().toURI().toURL();
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("dev.skail.") && !name.startsWith("org.h2.") && !name.startsWith("com.zaxxer.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    loaded = findClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
