package dev.skail.runtime;

/** Lets tests of other packages ask {@link SkailBeanEnhancer} what it skips. */
public final class SkailBeanEnhancerAccess {

    private SkailBeanEnhancerAccess() {
    }

    public static boolean isLibraryClass(Class<?> beanClass) {
        return SkailBeanEnhancer.isLibraryClass(beanClass);
    }
}
