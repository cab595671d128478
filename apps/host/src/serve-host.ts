/**
 * Serving a built host over HTTP: the route list over the domain services,
 * and the Hono app around it. Middleware runs in this order: shutdown and
 * request accounting, a `worker` host's refusal of all but `GET /health`,
 * the cross-site guard, the console's files (no key needed), bearer auth,
 * per-key request limits; then the routes and the MCP endpoint. Building the
 * host (stores, domain, wiring) is app.ts's; nothing here creates state the
 * domain owns.
 */
import { Hono } from "hono";
import type { HostConfig } from "./config.js";
import type { HostRole } from "./contract/cluster.js";
import type { Connections } from "./domain/connections/connections.js";
import type { EnvironmentDocs } from "./domain/environment-docs.js";
import type { ApiKeys } from "./domain/governance/api-keys.js";
import type { Approvals } from "./domain/governance/approvals.js";
import type { CallLog } from "./domain/governance/call-log.js";
import type { Policies } from "./domain/governance/policies.js";
import type { HostHealth } from "./domain/host-health.js";
import type { ModuleEntries } from "./domain/modules/module-entries.js";
import type { ModuleInstaller } from "./domain/modules/module-installer.js";
import type { ModuleLoader } from "./domain/modules/module-loader.js";
import type { ModuleRegistry } from "./domain/modules/module-registry.js";
import type { ProcessRetention } from "./domain/processes/process-retention.js";
import type { ProcessRunner } from "./domain/processes/process-runner.js";
import type { Registries } from "./domain/registries/registries.js";
import type { RegistryServiceInstalls } from "./domain/registries/service-installs.js";
import type { InputOverrides } from "./domain/services/input-overrides.js";
import type { ServiceLifecycle } from "./domain/services/service-lifecycle.js";
import type { ServiceStore } from "./domain/services/service-store.js";
import type { ToolCredentials } from "./domain/services/tool-credentials.js";
import type { ToolGate } from "./domain/services/tool-gate.js";
import type { HostStats } from "./domain/stats/host-stats.js";
import { CyrnelError } from "./errors.js";
import { bearerAuth, metricsToken } from "./http/auth.js";
import { type ConsoleBuild, findConsoleBuild, mountConsole } from "./http/console-assets.js";
import { crossSiteGuard } from "./http/cross-site.js";
import { errorHandler, notFoundHandler } from "./http/error-handler.js";
import { keyRequestLimits } from "./http/key-limits.js";
import { mountRoutes } from "./http/mount.js";
import { buildOpenApiDocument } from "./http/openapi-document.js";
import { accessOf, type RouteDefinition } from "./http/route.js";
import type { StorageHealth } from "./lib/storage-faults.js";
import type { HostLogger } from "./log.js";
import { mountMcp } from "./mcp/mount.js";
import type { HostMetrics } from "./metrics/host-metrics.js";
import { requestLabels } from "./metrics/http-metrics.js";
import { approvalRoutes } from "./routes/approvals/routes.js";
import { callRoutes } from "./routes/calls/routes.js";
import { connectionRoutes } from "./routes/connections/routes.js";
import { environmentRoutes } from "./routes/environment/routes.js";
import { keyRoutes } from "./routes/keys/routes.js";
import { metricsRoutes } from "./routes/metrics/routes.js";
import { moduleInstallRoutes, moduleRoutes } from "./routes/modules/routes.js";
import { oauthResourceRoutes, RESOURCE_METADATA_PATH } from "./routes/oauth/routes.js";
import { policyRoutes } from "./routes/policies/routes.js";
import { processRoutes } from "./routes/processes/routes.js";
import { registryRoutes } from "./routes/registries/routes.js";
import { serviceRegistryRoutes, serviceRoutes } from "./routes/services/routes.js";
import { statsRoutes } from "./routes/stats/routes.js";
import { type HostIdentity, systemRoutes } from "./routes/system/routes.js";
import { toolRoutes } from "./routes/tools/routes.js";
import type { Tracing } from "./telemetry/tracing.js";
import { HOST_VERSION } from "./version.js";

/** The domain services the routes serve, as app.ts built them. */
export interface ServedDomain {
  services: ServiceLifecycle;
  serviceStore: ServiceStore;
  registryInstalls: RegistryServiceInstalls;
  gate: ToolGate;
  inputOverrides: InputOverrides;
  toolCredentials: ToolCredentials;
  docs: EnvironmentDocs;
  policies: Policies;
  moduleEntries: ModuleEntries;
  moduleRegistry: ModuleRegistry;
  moduleLoader: ModuleLoader;
  moduleInstaller: ModuleInstaller;
  registries: Registries;
  processes: ProcessRunner;
  retention: ProcessRetention;
  approvals: Approvals;
  calls: CallLog;
  keys: ApiKeys;
  connections: Connections;
  /** `GET /stats`. */
  stats: HostStats;
  /** `GET /metrics`, fed here by every request and every 429. */
  metrics: HostMetrics;
  /** What `GET /health` answers. */
  health(): HostHealth & HostIdentity;
}

export interface ServeHostOptions {
  config: HostConfig;
  logger: HostLogger;
  /** What the host saw of its storage lately: errors answered 503/507 are told to it. */
  storageHealth: StorageHealth;
  /** A span per request when the host traces (continuing the caller's `traceparent`); absent: none. */
  tracing?: Tracing;
  /** The host's role among hosts sharing PostgreSQL, or null on its own: a `worker` serves `GET /health` alone. */
  clusterRole: HostRole | null;
  /** Check every JSON response against its declared schema (tests turn this on). */
  validateResponses?: boolean;
  /** Where the web console's build is; defaults to the `@cyrnel/console` package's `dist/`. */
  consoleBuild?: ConsoleBuild;
}

export interface ServedHost {
  app: Hono;
  routes: RouteDefinition[];
  /** The web console served at /ui/, or why it is not. */
  console: ConsoleBuild;
  /** From now on, requests but those of public routes are answered 503 `shutting_down`. */
  refuseRequests(): void;
  /** Resolves once the requests in flight have been answered, or after `timeoutMs`. */
  requestsDone(timeoutMs: number): Promise<void>;
}

export function serveHost(domain: ServedDomain, options: ServeHostOptions): ServedHost {
  const { config, logger } = options;
  let document: Record<string, unknown> | undefined;
  const routes: RouteDefinition[] = [
    ...systemRoutes(HOST_VERSION, () => (document ??= buildOpenApiDocument(routes, HOST_VERSION)), domain.health),
    ...serviceRoutes(domain.services, domain.serviceStore),
    ...serviceRegistryRoutes(domain.registryInstalls),
    ...toolRoutes(
      domain.serviceStore,
      domain.gate,
      domain.docs,
      domain.policies,
      domain.inputOverrides,
      domain.toolCredentials,
    ),
    ...policyRoutes(domain.policies),
    ...moduleRoutes(domain.moduleEntries, domain.moduleRegistry, domain.moduleLoader),
    ...moduleInstallRoutes(domain.moduleInstaller),
    ...registryRoutes(domain.registries),
    ...processRoutes(domain.processes, {
      agentTextLimitChars: config.agentTextLimitChars,
      retention: domain.retention,
    }),
    ...approvalRoutes(domain.approvals),
    ...callRoutes(domain.calls, domain.processes),
    ...environmentRoutes(domain.docs),
    ...keyRoutes(domain.keys),
    ...oauthResourceRoutes(config.oauth),
    ...connectionRoutes(domain.connections),
    ...statsRoutes(domain.stats),
    ...metricsRoutes(domain.metrics),
  ];

  let stopping = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  // Public routes (GET /health) need no key and still answer while the host shuts down (see implicitErrors).
  const publicRoutes = routes.filter((route) => accessOf(route) === "public");
  const publicPaths = new Set(publicRoutes.map((route) => route.path));
  const app = new Hono();
  const answerError = errorHandler(logger, options.storageHealth, {
    // With OAuth on, a 401 tells an OAuth client where to start (RFC 9728, the MCP authorization specification).
    resourceMetadata: config.oauth === null ? null : `${config.oauth.resource}${RESOURCE_METADATA_PATH}`,
  });
  app.onError((error, c) => {
    const response = answerError(error, c);
    // Only a CyrnelError is answered 429; its code is the label.
    if (response.status === 429 && error instanceof CyrnelError) domain.metrics.tooManyRequests(error.code);
    return response;
  });
  app.notFound(notFoundHandler);
  const tracing = options.tracing;
  if (tracing?.enabled) {
    // First: every request's span, its caller's trace continued; what the request starts (a run, a call) is a child.
    app.use("*", async (c, next) => {
      const span = tracing.request(c.req.method, (name) => c.req.header(name));
      if (span === null) return next();
      try {
        await span.run(next);
      } finally {
        span.end(routeTemplate(c.req.matchedRoutes), c.res.status);
      }
    });
  }
  app.use("*", async (c, next) => {
    if (stopping && !publicPaths.has(c.req.path)) throw new CyrnelError("shutting_down", "the host is shutting down");
    const started = performance.now();
    inFlight++;
    try {
      await next();
    } finally {
      if (--inFlight === 0) drained?.();
    }
    const seconds = (performance.now() - started) / 1000;
    const { method, route } = requestLabels(c);
    domain.metrics.request(method, route, c.res.status, seconds);
    logger.debug("request", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round(seconds * 1000),
    });
  });
  if (options.clusterRole === "worker") {
    // A worker runs processes; the API is served by `api` and `all` hosts (a load balancer sends requests there).
    app.use("*", async (c, next) => {
      // Its own metrics too: each host reports its own (GET /metrics, with its own access check).
      if (c.req.method === "GET" && (c.req.path === "/health" || c.req.path === "/metrics")) return next();
      throw new CyrnelError(
        "not_found",
        `this host runs processes only (CYRNEL_ROLE=worker) and serves GET /health and GET /metrics alone; send ${c.req.method} ` +
          `${c.req.path} to a host with CYRNEL_ROLE=api or all`,
      );
    });
  }
  // Other web sites are kept out of a host without keys (Origin and Host, before anything answers).
  app.use(
    "*",
    crossSiteGuard({
      authenticated: () => domain.keys.required(),
      names: [config.host, ...hostnameOf(config.cluster.advertiseUrl)],
      exempt: (path) => publicPaths.has(path),
    }),
  );
  // The console's files hold no data and need no key (its API calls carry one), so they are mounted before auth.
  const consoleBuild = options.consoleBuild ?? findConsoleBuild();
  if ("missing" in consoleBuild) {
    logger.warn("the web console is not available; /ui/ answers 404", { reason: consoleBuild.missing });
  }
  mountConsole(app, consoleBuild);
  const publicRequests = new Set(publicRoutes.map((route) => `${route.method.toUpperCase()} ${route.path}`));
  app.use(
    "*",
    // HEAD is answered by the GET route (a load balancer's health check often sends it): as public as that GET.
    bearerAuth(
      domain.keys,
      (method, path) => publicRequests.has(`${method === "HEAD" ? "GET" : method} ${path}`),
      // CYRNEL_METRICS_TOKEN opens GET /metrics and nothing else.
      metricsToken(config.metricsToken),
    ),
  );
  app.use(
    "*",
    keyRequestLimits({ perSecond: config.keyLimits.requestsPerSecond, burst: config.keyLimits.requestsBurst }),
  );
  mountRoutes(app, routes, {
    bodyLimit: config.bodyLimitBytes,
    definitionBodyLimit: config.definitionLimitBytes,
    validateResponses: options.validateResponses ?? config.validateResponses,
  });
  mountMcp(app, { logger, bodyLimitBytes: config.bodyLimitBytes, waitMs: config.mcpWaitMs });

  return {
    app,
    routes,
    console: consoleBuild,
    refuseRequests() {
      stopping = true;
    },
    async requestsDone(timeoutMs) {
      if (inFlight === 0) return;
      await new Promise<void>((resolve) => {
        drained = resolve;
        setTimeout(resolve, timeoutMs).unref();
      });
    },
  };
}

/** The template of the route that answered (`/processes/:id`), past the middleware's `*`; none for a 404. */
function routeTemplate(matched: readonly { path: string }[]): string | undefined {
  for (let index = matched.length - 1; index >= 0; index--) {
    const path = matched[index]!.path;
    if (path !== "*" && path !== "/*") return path;
  }
  return undefined;
}

/** The host name of a URL the operator configured, if it is one. */
function hostnameOf(url: string | null): string[] {
  if (url === null) return [];
  try {
    return [new URL(url).hostname];
  } catch {
    return [];
  }
}
