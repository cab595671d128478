import { describe, expect, it } from "vitest";
import { loadClusterConfig } from "./config-cluster.js";

const pg = { CYRNEL_DATABASE_URL: "postgres://cyrnel@db/cyrnel" };

describe("loadClusterConfig", () => {
  it("defaults to one host doing everything", () => {
    expect(loadClusterConfig({})).toEqual({
      role: "all",
      leaseMs: 15_000,
      workerConcurrency: 500,
      processFlushMs: 250,
      queuePollMs: 60_000,
      advertiseUrl: null,
      queueLimit: 10_000,
    });
  });

  it("reads the role and the tuning variables", () => {
    expect(
      loadClusterConfig({
        ...pg,
        CYRNEL_ROLE: "Worker",
        CYRNEL_LEASE_MS: "5000",
        CYRNEL_WORKER_CONCURRENCY: "8",
        CYRNEL_PROCESS_FLUSH_MS: "100",
        CYRNEL_QUEUE_POLL_MS: "30000",
        CYRNEL_ADVERTISE_URL: "http://10.0.0.5:8080",
        CYRNEL_QUEUE_LIMIT: "200",
      }),
    ).toEqual({
      role: "worker",
      leaseMs: 5000,
      workerConcurrency: 8,
      processFlushMs: 100,
      queuePollMs: 30_000,
      advertiseUrl: "http://10.0.0.5:8080",
      queueLimit: 200,
    });
  });

  it("refuses what cannot work, naming the variable", () => {
    expect(() => loadClusterConfig({ ...pg, CYRNEL_ROLE: "scheduler" })).toThrow(/^CYRNEL_ROLE: must be one of/);
    expect(() => loadClusterConfig({ CYRNEL_ROLE: "api" })).toThrow(/CYRNEL_ROLE: "api" needs a shared PostgreSQL/);
    expect(() => loadClusterConfig({ CYRNEL_ROLE: "worker", CYRNEL_DATABASE_URL: "file:data.db" })).toThrow(
      /needs a shared PostgreSQL/,
    );
    expect(() => loadClusterConfig({ CYRNEL_LEASE_MS: "500" })).toThrow(/^CYRNEL_LEASE_MS: must be between 1000/);
    expect(() => loadClusterConfig({ CYRNEL_WORKER_CONCURRENCY: "many" })).toThrow(/must be an integer/);
    expect(() => loadClusterConfig({ CYRNEL_LEASE_MS: "2000", CYRNEL_PROCESS_FLUSH_MS: "3000" })).toThrow(
      /CYRNEL_PROCESS_FLUSH_MS: must be between 10 and 2000/,
    );
  });
});
