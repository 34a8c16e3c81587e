package dev.skail.runtime;

import org.junit.jupiter.api.Test;

import org.springframework.context.support.GenericApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** The bean classes whose methods the enhancer does not read at start-up: the JDK's, Spring's and skail's own. */
class EnhancerScopeTests {

    @Test
    void theEnhancerSkipsTheMethodsOfSkailsAndSpringsOwnBeansButNotOfAnApplicationsClasses() {
        assertThat(SkailBeanEnhancer.isLibraryClass(SkailRuntime.class)).isTrue();
        assertThat(SkailBeanEnhancer.isLibraryClass(GenericApplicationContext.class)).isTrue();
        // an application's class in a dev.skail package (this test's own, and the beans of the other tests) is read
        assertThat(SkailBeanEnhancer.isLibraryClass(EnhancerScopeTests.class)).isFalse();
        assertThat(SkailBeanEnhancer.isLibraryClass(Estoque.class)).isFalse();
    }
}
