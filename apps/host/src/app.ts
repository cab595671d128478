/**
 * Composition root: builds the stores and domain services and wires them
 * together (no domain module imports another's instance; governance and
 * the process runner meet through `ProcessEvents`), then serves them over
 * HTTP (serve-host.ts) and, last, joins the cluster. `createHost` is
 * what the CLI and the tests start; `Host.stop` takes it down in order.
 */

import { join } from "node:path";
import type { ModuleFactory } from "@cyrnel/sdk";
import type { Hono } from "hono";
import { BUILTIN_MODULES } from "./builtin-modules.js";
import { type ChangeSync, startChangeSync } from "./cluster/change-sync.js";
import type { NotificationListener } from "./cluster/notification-listener.js";
import type { ProcessCluster } from "./cluster/process-cluster.js";
import { ConfigError, type HostConfig } from "./config.js";
import { secureDataDir } from "./data-dir.js";
import { openStore, type Store } from "./db/store.js";
import { Connections } from "./domain/connections/connections.js";
import { EnvironmentDocs } from "./domain/environment-docs.js";
import { EnvironmentPreparation } from "./domain/environment-prepare.js";
import { ApiKeys } from "./domain/governance/api-keys.js";
import { Approvals } from "./domain/governance/approvals.js";
import { CallLog } from "./domain/governance/call-log.js";
import type { Caller } from "./domain/governance/caller.js";
import { OAuthTokens } from "./domain/governance/oauth-tokens.js";
import { Policies } from "./domain/governance/policies.js";
import { PolicyCatalog } from "./domain/governance/policy-catalog.js";
import { visibleCatalog } from "./domain/governance/visible-catalog.js";
import { hostHealth } from "./domain/host-health.js";
import { ModuleEntries } from "./domain/modules/module-entries.js";
import { ModuleEvents } from "./domain/modules/module-events.js";
import { ModuleInstaller } from "./domain/modules/module-installer.js";
import { ModuleLoader } from "./domain/modules/module-loader.js";
import { ModuleQuarantine } from "./domain/modules/module-quarantine.js";
import { ModuleRegistry } from "./domain/modules/module-registry.js";
import { ModuleRows } from "./domain/modules/module-rows.js";
import type { UnfinishedRun } from "./domain/processes/journal-store.js";
import { ProcessEvents } from "./domain/processes/process-events.js";
import { ProcessRetention } from "./domain/processes/process-retention.js";
import { ProcessRunner } from "./domain/processes/process-runner.js";
import { Registries } from "./domain/registries/registries.js";
import { RegistryClient } from "./domain/registries/registry-client.js";
import { RegistryServiceInstalls } from "./domain/registries/service-installs.js";
import { loadSecretsKey } from "./domain/secrets/key-file.js";
import { SecretBox } from "./domain/secrets/secret-box.js";
import { SecretMasks } from "./domain/secrets/secret-masks.js";
import { SecretStore } from "./domain/secrets/secret-store.js";
import { InputOverrides } from "./domain/services/input-overrides.js";
import { valuesToMask } from "./domain/services/secret-headers.js";
import { ServiceLifecycle } from "./domain/services/service-lifecycle.js";
import { ToolCredentials } from "./domain/services/tool-credentials.js";
import { ToolGate } from "./domain/services/tool-gate.js";
import { budgetedServiceTools, TypesBudget } from "./domain/services/types-budget.js";
import { environmentStats, HostStats } from "./domain/stats/host-stats.js";
import { messageOf } from "./errors.js";
import type { ConsoleBuild } from "./http/console-assets.js";
import type { RouteDefinition } from "./http/route.js";
import { type DescriptorBudget, descriptorBudget } from "./lib/descriptors.js";
import { download } from "./lib/download.js";
import { SchemaValidator } from "./lib/json-schema.js";
import { isLoopbackListenAddress } from "./lib/public-address.js";
import { StorageHealth } from "./lib/storage-faults.js";
import { createLogger, type HostLogger } from "./log.js";
import { HostMetrics } from "./metrics/host-metrics.js";
import { serveHost } from "./serve-host.js";
import { loadTracing, traceIdsOf } from "./telemetry/load-tracing.js";
import type { Tracing } from "./telemetry/tracing.js";
import { HOST_VERSION } from "./version.js";

/** How often pending approvals are checked for expiry by their rows (those whose calls no host holds). */
const APPROVAL_SWEEP_MS = 2_000;

/** What the record of a call left in flight by a stopped host shows for its parameters (the journal keeps a digest). */
const UNKNOWN_PARAMETERS = "[not kept: the call was in flight when the host running its process stopped]";

export interface HostOptions {
  logger?: HostLogger;
  /** Built-in modules; defaults to the bundled ones. */
  builtins?: ModuleFactory[];
  /** Check every JSON response against its declared schema (tests turn this on). */
  validateResponses?: boolean;
  /** Where the web console's build is; defaults to the `@cyrnel/console` package's `dist/`. */
  consoleBuild?: ConsoleBuild;
  /** The share of open files the host may use (lib/descriptors.ts); defaults to this process's, null: none. */
  descriptors?: DescriptorBudget | null;
  /** The tracing its logger was made with (the CLI loads it first); defaults to what `config.traces` asks for. */
  tracing?: Tracing;
}

export interface Host {
  app: Hono;
  config: HostConfig;
  logger: HostLogger;
  /** The stores, on the configured dialect. */
  store: Store;
  modules: ModuleRegistry;
  services: ServiceLifecycle;
  gate: ToolGate;
  processes: ProcessRunner;
  keys: ApiKeys;
  routes: RouteDefinition[];
  /** The web console served at /ui/, or why it is not. */
  console: ConsoleBuild;
  /** What the host may hold of open files (inbound connections, followers), or null where no limit is known. */
  descriptors: DescriptorBudget | null;
  /** Told the URL the server listens at (its port may have been picked): connections' redirect URI without CYRNEL_ADVERTISE_URL. */
  listening(url: string): void;
  /** Stop accepting work, cancel running processes, tear modules down, close the database. */
  stop(): Promise<void>;
  /**
   * Resolves (with why) if this host lost its lease in the cluster (PostgreSQL): it stopped taking runs and
   * canceled its own; the server must exit non-zero. Never resolves on SQLite.
   */
  lost: Promise<string>;
}

export async function createHost(config: HostConfig, options: HostOptions = {}): Promise<Host> {
  const tracing = options.tracing ?? (await loadTracing(config.traces, HOST_VERSION));
  // Lines written inside a traced context carry its ids (nothing is asked when the host does not trace).
  const logger = options.logger ?? createLogger(config.logLevel, process.stdout, {}, traceIdsOf(tracing));
  if (config.traces === null) logger.debug("traces are off: no OTEL_* variable sets an OTLP endpoint");
  else {
    logger.info("traces are on: spans go over OTLP/HTTP to the endpoint the OTEL_* variables set", {
      serviceName: config.traces.serviceName,
      sampler: config.traces.sampler,
    });
  }
  const descriptors = options.descriptors === undefined ? descriptorBudget() : options.descriptors;
  secureDataDir(config.dataDir);
  const db = await openStore({
    config,
    onUpkeepError: (error) =>
      logger.warn("background database work failed; it is tried again", { error: messageOf(error) }),
    // Queue workers take connections from the stores' pool (fetching jobs, claims, the runs' writes).
    ...(config.cluster.role !== "api" && {
      poolSize: 10 + Math.min(20, Math.ceil(config.cluster.workerConcurrency / 4)),
    }),
  });
  // Governance and the process runner tell each other what happens through these events (listeners below, once
  // both are built).
  const processEvents = new ProcessEvents();
  const keys = new ApiKeys(
    db.keys,
    config.apiKey,
    processEvents,
    config.oauth === null ? null : new OAuthTokens(config.oauth, db.oauthSubjects),
  );
  let cluster: ProcessCluster | null = null;
  let listener: NotificationListener | null = null;
  let sync: ChangeSync;
  try {
    await refuseAnonymousExposure(config, keys);
    // PostgreSQL: processes through the durable queue, on any host (cluster/process-cluster.ts), and one LISTEN
    // connection per host for everything other hosts tell it (changes, kills, decisions, runs' ends). Loaded only
    // there.
    if (db.shared !== null && config.databaseUrl !== null) {
      const { ProcessCluster } = await import("./cluster/process-cluster.js");
      const { NotificationListener } = await import("./cluster/notification-listener.js");
      const { newHostId } = await import("./cluster/host-leases.js");
      const pgDb = db.shared.db;
      const hostId = newHostId();
      // Named, so an operator (or a test) can tell each host's listening connection in pg_stat_activity.
      listener = new NotificationListener({
        connection: { connectionString: config.databaseUrl, application_name: `cyrnel listen ${hostId}` },
        logger,
      });
      cluster = await ProcessCluster.open({ db: pgDb, config: config.cluster, logger, listener, hostId });
    }
    // Hosts sharing a PostgreSQL database: cross-host locks, module files kept in the database, and the changes of
    // other hosts followed from here on (cluster/change-sync.ts). On SQLite, one host's own locks and nothing else.
    sync = await startChangeSync({
      store: db,
      config,
      logger,
      ...(cluster && listener && { cluster: { hostId: cluster.hostId, listener } }),
    });
  } catch (error) {
    await listener?.stop();
    await db.close();
    throw error;
  }

  const box = new SecretBox(loadSecretsKey(config.secretsKey, config.dataDir, logger), config.previousSecretsKeys);
  const secrets = new SecretStore(db.secrets, box);
  const rotation = await secrets.rotate();
  if (rotation.rotated > 0) logger.info("re-encrypted secrets under the current key", { count: rotation.rotated });
  for (const owner of rotation.unreadable) {
    logger.error("a secret was sealed with an unknown key; add it to CYRNEL_SECRETS_PREVIOUS_KEYS", { owner });
  }

  const validator = new SchemaValidator();
  const store = db.services;
  const typesBudget = new TypesBudget(store, config.typesBudgetChars);
  const moduleStore = new ModuleRows(db.modules);
  await moduleStore.load();
  const processStore = db.processes;

  // Governance: policies decide what a call gets, approvals hold the calls under `ask`, every call is recorded. What
  // they publish goes to the process runner through `processEvents`.
  const policies = new Policies(db.policies, store);
  const policyCatalog = new PolicyCatalog(store, policies);
  const approvals = new Approvals({
    store: db.approvals,
    logger,
    timeoutMs: config.approvalTimeoutMs,
    timeoutOf: (serviceId) => policies.approvalTimeoutOf(serviceId),
    maxPendingPerKey: config.pendingApprovalsLimit,
    // An approval holds at most what a direct invoke may send.
    parametersLimitBytes: config.bodyLimitBytes,
    events: processEvents,
  });
  // What the host saw of its storage lately (faults from requests and from the writes it retries), for /health.
  const storageHealth = new StorageHealth();
  const calls = new CallLog({
    store: db.calls,
    logger,
    storage: storageHealth,
    events: processEvents,
    ...(cluster && { ids: cluster.callIds }),
  });
  await calls.start();
  calls.keepFor(config.callsRetentionDays);
  // One host: the runs its last stop left unfinished are resumed from their journals once the modules are up
  // (below), and the approvals their calls waited for stay pending for them; what cannot be resumed (a run whose
  // journal outgrew its limit) is over. Many hosts: other hosts own what is unfinished; a lost host's runs are
  // re-queued by the reaper.
  let resumable: UnfinishedRun[] = [];
  if (!cluster) {
    // A run that was being killed is not resumed: it ends as the kill would have ended it.
    await processStore.markInterrupted("canceled", [], "canceled");
    resumable = (await db.journal.unfinished()).filter((run) => run.notDurable === null);
    const expired = await approvals.expireLeftovers(resumable.map((run) => run.executionId));
    if (expired > 0) logger.warn("approvals pending at the last shutdown expired", { count: expired });
    const interrupted = await processStore.markInterrupted(
      "interrupted: host restarted (the run was not durable: its journal outgrew CYRNEL_JOURNAL_LIMIT_BYTES)",
      resumable.map((run) => run.processId),
    );
    if (interrupted > 0)
      logger.warn("processes interrupted by the last shutdown were marked failed", { count: interrupted });
  }

  // Modules, services and processes: the registry publishes module events and awaits what services and the process
  // runner do about them (they subscribe in their constructors); everything else reads the module entries.
  const moduleEvents = new ModuleEvents();
  const moduleEntries = new ModuleEntries(moduleStore);
  const services = new ServiceLifecycle({
    store,
    modules: moduleEntries,
    events: moduleEvents,
    secrets,
    validator,
    logger,
    hookTimeoutMs: config.invokeTimeoutMs,
    definitionLimitBytes: config.definitionLimitBytes,
    downloadTimeoutMs: config.downloadTimeoutMs,
    downloadTotalTimeoutMs: config.downloadTotalTimeoutMs,
    denyPrivateDownloads: config.downloadDenyPrivate,
    spaceFreed: () => db.spaceFreed(),
    locks: sync.serviceLocks,
    typesBudget: typesBudget.limits,
    typesNoteOf: async (serviceId) => {
      const entry = (await store.catalog())[serviceId];
      return entry === undefined ? undefined : typesBudget.noteOf(serviceId, entry.revision);
    },
  });
  // Where providers send a connecting user back: the advertised URL, or the address the host listens at.
  const advertised = config.cluster.advertiseUrl?.replace(/\/+$/, "") ?? null;
  let listeningAt = `http://${config.host}:${config.port}`;
  const connections = new Connections({
    store: db.connections,
    services: store,
    secrets,
    locks: sync.serviceLocks,
    logger,
    redirectUri: () => `${advertised ?? listeningAt}/oauth/callback`,
    timeoutMs: config.invokeTimeoutMs,
  });
  const toolCredentials = new ToolCredentials({
    secrets,
    services: store,
    oauthConfigured: (serviceId) => connections.configured(serviceId),
  });
  const gate = new ToolGate({
    store,
    modules: moduleEntries,
    masks: new SecretMasks(secrets, valuesToMask),
    policies,
    approvals,
    calls,
    caller: (keyId) => keys.processCaller(keyId),
    validator,
    logger,
    invokeTimeoutMs: config.invokeTimeoutMs,
    maxInFlightPerKey: config.keyLimits.inFlightCalls,
    unavailable: (id) => services.unavailableReason(id),
    connections,
    tracing,
  });
  const runner = new ProcessRunner({
    store: processStore,
    logger,
    limits: {
      codeBytes: config.processCodeLimitBytes,
      streamBytes: config.processStreamLimitBytes,
      outputBytes: config.processOutputLimitBytes,
      followers: config.processFollowersLimit,
      ...(descriptors && { followersTotal: descriptors.followers }),
      perKey: config.keyLimits.processes,
    },
    environment: () => moduleEntries.activeEnvironment(),
    events: moduleEvents,
    invokeTool: (input, call) => gate.invoke(input, call),
    pendingApprovals: (processId) => approvals.pendingOf(processId),
    processEvents,
    callCounts: (processId) => calls.countsOfLatestRun(processId),
    // Each service's denied tools named: a call to one fails the run's type check, before any call is made.
    catalog: async (caller) => visibleCatalog(await policyCatalog.current(), caller),
    caller: (keyId) => keys.processCaller(keyId),
    serviceTools: (serviceId, toolIds) => budgetedServiceTools(store, typesBudget, serviceId, toolIds),
    ...(cluster && { queue: cluster.runQueue }),
    storage: storageHealth,
    tracing,
    journal: { store: db.journal, limitBytes: config.journalLimitBytes },
    suspendEvictMs: config.suspendEvictMs,
    approvalsPendingOfRun: (executionId) => db.approvals.pendingOfRun(executionId),
    storedApprovals: async (processId) =>
      (await approvals.list({ state: "pending", processId, limit: 100 })).slice(0, 100).reverse(),
    expireStoredApprovals: (processId, reason) => approvals.expireStored(processId, reason),
    // One host: a run evicted just as its approval was decided resumes at once (the queue does it with many).
    ...(!cluster && {
      evicted: ({ processId, executionId }: { processId: number; executionId: number }) =>
        void runner
          .approvalSettled({ processId, executionId })
          .catch((error) =>
            logger.error("could not resume an evicted run", { process: processId, error: messageOf(error) }),
          ),
    }),
    unknownCalls: ({ processId, executionId, keyId }, inFlight) => {
      for (const call of inFlight) {
        calls.record({
          context: { caller: { keyId } as Caller, processId, executionId },
          serviceId: call.serviceId,
          toolId: call.toolId,
          startedAt: Date.now(),
          durationMs: 0,
          outcome: "unknown",
          status: null,
          connectionId: null,
          parameters: { value: UNKNOWN_PARAMETERS, json: JSON.stringify(UNKNOWN_PARAMETERS) },
        });
      }
    },
  });
  // What governance and the runner tell each other (domain/processes/process-events.ts), before any call is made.
  processEvents.on("keyRevoked", async ({ keyId }) => {
    await approvals.expireKey(keyId);
  });
  processEvents.on("runEnding", ({ processId, reason }) => approvals.expireProcess(processId, reason));
  processEvents.on("runDetached", async ({ processId }) => approvals.releaseProcess(processId));
  if (cluster) processEvents.on("approvalDecided", ({ approval }) => cluster.approvalDecided(approval));
  else processEvents.on("approvalDecided", ({ approval }) => runner.approvalSettled(approval));
  processEvents.onNotice("approvalChanged", ({ approval }) =>
    runner.publish(approval.processId, { type: "approval", ...approval }),
  );
  processEvents.onNotice("approvalsPending", ({ processId, pending }) =>
    runner.setPendingApprovals(processId, pending),
  );
  processEvents.onNotice("callEnded", ({ record }) => {
    if (record.processId !== null) runner.publish(record.processId, { type: "call", ...record });
  });
  // The metrics count what these events already tell (metrics/host-metrics.ts); their gauges are read at a scrape.
  const activeEnvironmentStats = () => {
    const environment = moduleEntries.activeEnvironment();
    return environment === null ? null : environmentStats(environment.module);
  };
  const clusterQueueDepth = cluster ? () => cluster.queueDepth() : undefined;
  const metrics = new HostMetrics({
    livePhases: () => runner.livePhases(),
    environment: activeEnvironmentStats,
    ...(clusterQueueDepth && { clusterQueueDepth }),
  });
  processEvents.onNotice("callEnded", ({ record }) => metrics.callEnded(record));
  processEvents.onNotice("approvalSettled", ({ approval }) => metrics.approvalSettled(approval));
  processEvents.onNotice("runEnded", ({ exitState, ran }) => metrics.runEnded(exitState, ran));
  const stats = new HostStats({
    store: db.stats,
    environment: () => moduleEntries.activeEnvironment(),
    ...(clusterQueueDepth && { clusterQueueDepth }),
  });
  const retention = new ProcessRetention({ store: processStore, logger, spaceFreed: () => db.spaceFreed() });
  retention.keepFor(config.processesRetentionDays);
  const modulesDir = join(config.dataDir, "modules");
  // One lock per module: enabling, settings and loading never interleave on one module (on any host).
  const moduleLocks = sync.moduleLocks;
  const quarantine = new ModuleQuarantine(modulesDir);
  const moduleRegistry = new ModuleRegistry({
    entries: moduleEntries,
    store: moduleStore,
    events: moduleEvents,
    locks: moduleLocks,
    quarantine,
    secrets,
    validator,
    logger,
    bindings: runner.bindings,
    lifecycleTimeoutMs: config.moduleLoadTimeoutMs,
  });
  const moduleLoader = new ModuleLoader({
    entries: moduleEntries,
    store: moduleStore,
    registry: moduleRegistry,
    locks: moduleLocks,
    quarantine,
    secrets,
    validator,
    logger,
    modulesDir,
    hostVersion: HOST_VERSION,
    builtins: options.builtins ?? BUILTIN_MODULES,
    lifecycleTimeoutMs: config.moduleLoadTimeoutMs,
    files: sync.moduleFiles,
  });

  // Registries: catalogue browsing, and installs/updates of services and modules from descriptors.
  const registryClient = new RegistryClient({
    validator,
    logger,
    timeoutMs: config.downloadTimeoutMs,
    totalTimeoutMs: config.downloadTotalTimeoutMs,
    denyPrivate: config.downloadDenyPrivate,
  });
  const registries = new Registries({ store: db.registries, client: registryClient, logger });
  const registryInstalls = new RegistryServiceInstalls({
    client: registryClient,
    services,
    definitionLimitBytes: config.definitionLimitBytes,
  });
  // Module archives share the definition size cap: one operator-facing limit for downloaded artifacts.
  const moduleInstaller = new ModuleInstaller({
    loader: moduleLoader,
    entries: moduleEntries,
    store: moduleStore,
    validator,
    logger,
    hostVersion: HOST_VERSION,
    modulesDir,
    fetchRelease: (source, version) =>
      registryClient.release(source, version, "module archive", config.definitionLimitBytes),
    downloadArchive: async (url) =>
      (
        await download(url, {
          what: "module archive",
          maxBytes: config.definitionLimitBytes,
          timeoutMs: config.downloadTimeoutMs,
          totalTimeoutMs: config.downloadTotalTimeoutMs,
          denyPrivate: config.downloadDenyPrivate,
        })
      ).body,
    files: sync.moduleFiles,
  });

  await sync.restoreModules(moduleStore);
  // The active environment hears of the services its runs can reach ahead of the runs (type declarations made once).
  const preparation = new EnvironmentPreparation(store, moduleEntries, logger);
  preparation.start(moduleEvents);
  await moduleLoader.start();
  await moduleRegistry.start();
  // Approvals no call of this host waits for (their runs were let go of) expire by the rows, on every host. Not
  // before the modules are up: a run whose approval expires resumes at once, and needs its environment then.
  const stopApprovalSweep = approvals.sweepEvery(APPROVAL_SWEEP_MS);
  await sync.follow({
    serviceStore: store,
    services,
    policies,
    secrets,
    moduleRows: moduleStore,
    moduleEntries,
    moduleRegistry,
    moduleLoader,
  });

  const docs = new EnvironmentDocs(
    moduleEntries,
    store,
    policies,
    config.invokeTimeoutMs,
    config.agentTextLimitChars,
    typesBudget,
    toolCredentials,
  );
  const served = serveHost(
    {
      services,
      serviceStore: store,
      registryInstalls,
      gate,
      inputOverrides: new InputOverrides(store, validator, logger),
      toolCredentials,
      docs,
      policies,
      moduleEntries,
      moduleRegistry,
      moduleLoader,
      moduleInstaller,
      registries,
      processes: runner,
      retention,
      approvals,
      calls,
      keys,
      connections,
      stats,
      metrics,
      health: () => ({
        ...hostHealth(moduleEntries, storageHealth.reason()),
        ...(cluster ? cluster.health() : { role: config.cluster.role }),
      }),
    },
    {
      config,
      logger,
      storageHealth,
      tracing,
      clusterRole: cluster?.role ?? null,
      ...(options.validateResponses !== undefined && { validateResponses: options.validateResponses }),
      ...(options.consoleBuild && { consoleBuild: options.consoleBuild }),
    },
  );
  // A run that waits for an approval stays as it is (evicted: rows, no sandbox) until its approvals are decided.
  const resumeNow: UnfinishedRun[] = [];
  for (const run of resumable) {
    if (run.state !== "suspended" || (await db.approvals.pendingOfRun(run.executionId)) === 0) resumeNow.push(run);
  }
  if (resumeNow.length > 0) {
    logger.info("resuming the runs the last stop left unfinished", { count: resumeNow.length });
    // Not awaited: runs resume as the environment has room, while the host serves.
    void runner.resume(resumeNow);
  }
  // Last: the lease's clock runs from here, so the work of starting (modules, routes) never eats into it.
  await cluster?.start({
    runner,
    approvals,
    hasRoom: () => {
      const environment = moduleEntries.activeEnvironment();
      return environment !== null && (environment.module.admit?.().admitted ?? true);
    },
    flushCalls: () => calls.flush(),
    runEnded: (processId, exitState, ran) => processEvents.notice("runEnded", { processId, exitState, ran }),
  });

  return {
    app: served.app,
    config,
    logger,
    store: db,
    modules: moduleRegistry,
    services,
    gate,
    processes: runner,
    keys,
    routes: served.routes,
    console: served.console,
    descriptors,
    listening(url) {
      listeningAt = url;
    },
    lost: cluster?.lost ?? new Promise<string>(() => {}),
    async stop() {
      served.refuseRequests();
      // Direct invokes still at their adapters are answered 503 shutting_down, their requests aborted.
      gate.stop();
      // Running processes end `canceled`, which also answers requests blocked on them; then in-flight requests finish.
      const queueStopped = cluster?.stopTaking();
      // The runs' ends are written before the host goes, waiting out a storage fault — for shutdownTimeoutMs at most.
      const giveUp = setTimeout(() => runner.abandonWrites(), config.shutdownTimeoutMs);
      await runner.release("canceled: the host shut down");
      clearTimeout(giveUp);
      await queueStopped;
      await served.requestsDone(config.shutdownTimeoutMs);
      // Then the lease is given up: a host that stops is not lost, and nothing of it is left to reap.
      await cluster?.stop();
      // No other host's change is applied while modules are torn down.
      await sync.stop();
      await listener?.stop();
      preparation.stop();
      await moduleRegistry.stop();
      retention.stop();
      stopApprovalSweep();
      await calls.stop();
      await db.close();
      // Last: the spans of what ended while stopping are sent too.
      await tracing.shutdown();
    },
  };
}

/**
 * A host that others can reach must not serve them without a key. Stored
 * keys count: the database is read before the host listens, so a host whose
 * operator created keys (while it listened on loopback) may then listen
 * anywhere without CYRNEL_API_KEY.
 */
async function refuseAnonymousExposure(config: HostConfig, keys: ApiKeys): Promise<void> {
  if (config.allowAnonymous || isLoopbackListenAddress(config.host) || (await keys.required())) return;
  throw new ConfigError(
    "CYRNEL_API_KEY",
    `not set and no API key is stored, so anyone who can reach ${config.host} could use this host: set ` +
      "CYRNEL_API_KEY (or create an admin key while the host listens on 127.0.0.1), or set CYRNEL_ALLOW_ANONYMOUS=1 " +
      "to serve without authentication",
  );
}
