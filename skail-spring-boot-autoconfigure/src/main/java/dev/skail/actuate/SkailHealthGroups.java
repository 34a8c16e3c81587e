package dev.skail.actuate;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;

/**
 * The application's health groups plus a group {@value #NAME} holding skail's health contributor ({@value #MEMBER}),
 * so that {@code GET /actuator/health/skail-runtime} answers skail's status (and 503 when it is DOWN) with Boot's
 * default settings, where {@code /actuator/health} shows no components and {@code /actuator/health/skail} is not
 * found (a group cannot take a contributor's name). Who sees components and details, how statuses aggregate and
 * which HTTP status they answer are the primary group's ({@code management.endpoint.health.*}). A group
 * {@value #NAME} the application configures itself ({@code management.endpoint.health.group.skail-runtime.*}) is kept as it is.
 */
public final class SkailHealthGroups implements HealthEndpointGroups, AdditionalPathsMapper {

    /** The name of the group. */
    public static final String NAME = "skail-runtime";

    /** The name of skail's health contributor, the group's member. */
    public static final String MEMBER = "skail";

    private final HealthEndpointGroups groups;

    private final HealthEndpointGroup skail;

    private SkailHealthGroups(HealthEndpointGroups groups) {
        this.groups = groups;
        this.skail = new SkailGroup(groups.getPrimary());
    }

    /** {@code groups} with the group {@value #NAME} added, unless it has one of that name. */
    public static HealthEndpointGroups withSkailGroup(HealthEndpointGroups groups) {
        return (groups.get(NAME) != null) ? groups : new SkailHealthGroups(groups);
    }

    @Override
    public HealthEndpointGroup getPrimary() {
        return this.groups.getPrimary();
    }

    @Override
    public Set<String> getNames() {
        Set<String> names = new LinkedHashSet<>(this.groups.getNames());
        names.add(NAME);
        return names;
    }

    @Override
    public @Nullable HealthEndpointGroup get(String name) {
        return NAME.equals(name) ? this.skail : this.groups.get(name);
    }

    @Override
    public @Nullable List<String> getAdditionalPaths(EndpointId endpointId, WebServerNamespace webServerNamespace) {
        return (this.groups instanceof AdditionalPathsMapper mapper)
                ? mapper.getAdditionalPaths(endpointId, webServerNamespace) : null;
    }

    private static final class SkailGroup implements HealthEndpointGroup {

        private final HealthEndpointGroup primary;

        SkailGroup(HealthEndpointGroup primary) {
            this.primary = primary;
        }

        @Override
        public boolean isMember(String name) {
            return MEMBER.equals(name) || name.startsWith(MEMBER + "/");
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            return this.primary.showComponents(securityContext);
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return this.primary.showDetails(securityContext);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return this.primary.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return this.primary.getHttpCodeStatusMapper();
        }

        @Override
        public @Nullable AdditionalHealthEndpointPath getAdditionalPath() {
            return null;
        }
    }
}
