/**
 * Whether a submission may run, decided before anything is written (a
 * refused submission leaves no process behind), in this order:
 *
 * 1. the submission itself: its code within `CYRNEL_PROCESS_CODE_LIMIT_BYTES`,
 *    a non-empty `ref`, a `timeoutMs` a timer can hold (400/413);
 * 2. its key's cap of active processes, `CYRNEL_KEY_PROCESSES` (429);
 * 3. the active environment: there is one (503), it can type-check when
 *    the run asks for it (400), and it takes one more run now, its
 *    `admit()` (429).
 *
 * The queued path asks the queue's length too (`RunQueue.admit`, 429). On
 * the local path submissions are admitted one at a time (`admitted`): the
 * environment's answer holds only until the next run is handed over, and
 * recording the run (awaited) comes in between.
 */
import type { EnvironmentModule } from "@cyrnel/sdk";
import { atCapacity, CyrnelError, noEnvironment, rateLimited } from "../../errors.js";
import { MAX_TIMEOUT_MS } from "./live-run.js";
import type { ProcessStore } from "./process-store.js";

export type ActiveEnvironment = { id: string; module: EnvironmentModule };

/** What a process is created with, once checked. */
export interface Submission {
  code: string;
  ref: string | null;
  timeoutMs: number | null;
}

export interface ProcessAdmissionOptions {
  store: Pick<ProcessStore, "countActive">;
  limits: {
    codeBytes: number;
    /** Processes of one stored key that may be active (not idle) at once (`CYRNEL_KEY_PROCESSES`); absent: no cap. */
    perKey?: number;
  };
  /** The environment new runs go to, or null. */
  environment(): ActiveEnvironment | null;
}

export class ProcessAdmission {
  /** Submissions admitted on the local path, one at a time from the environment's answer to the run's hand-over. */
  private admissions: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ProcessAdmissionOptions) {}

  /** The submission's own limits; `timeoutMs` absent: 30 s. */
  submission(input: { code: string; ref?: string; timeoutMs?: number | null }): Submission {
    const { codeBytes } = this.options.limits;
    if (Buffer.byteLength(input.code) > codeBytes) {
      throw new CyrnelError("payload_too_large", `code exceeds the limit of ${codeBytes} bytes`);
    }
    const ref = input.ref === undefined ? null : input.ref.trim();
    if (ref === "") throw new CyrnelError("bad_request", `"ref" must not be empty when given`);
    const timeoutMs = input.timeoutMs === undefined ? 30_000 : input.timeoutMs;
    if (timeoutMs !== null && (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)) {
      throw new CyrnelError(
        "bad_request",
        `"timeoutMs" must be an integer from 1 to ${MAX_TIMEOUT_MS} (about 24.8 days), or null for no limit`,
      );
    }
    return { code: input.code, ref, timeoutMs };
  }

  /**
   * A stored key past its cap of active processes is refused (`429 rate_limited`); counted on every host, at the
   * moment of the submission (submissions racing each other may pass it by a few).
   */
  async admitKey(keyId: string | null): Promise<void> {
    const cap = this.options.limits.perKey;
    if (keyId === null || cap === undefined) return;
    const active = await this.options.store.countActive(keyId);
    if (active >= cap) {
      throw rateLimited(
        `this key already has ${active} processes queued or running, its limit (CYRNEL_KEY_PROCESSES); nothing was run`,
        1,
      );
    }
  }

  /**
   * The active environment, if it takes one more run now (`admit`: ask it;
   * false when the run may go to another host's). A run that asks for a type
   * check needs an environment that can check: running the code unchecked
   * instead is what it asked not to happen.
   */
  environment(typecheck: boolean | undefined, admit = true): ActiveEnvironment {
    const environment = this.options.environment();
    if (!environment) throw noEnvironment();
    if (typecheck === true && environment.module.supportsTypecheck !== true) {
      throw new CyrnelError(
        "bad_request",
        `the active environment "${environment.id}" cannot type-check code; leave "typecheck" out or set it to false`,
      );
    }
    const admission = admit ? environment.module.admit?.() : undefined;
    if (admission !== undefined && !admission.admitted) throw atCapacity(admission.reason, admission.retryAfterSeconds);
    return environment;
  }

  /**
   * Admits one submission of the local path: the active environment is
   * asked, then `record` writes the run and its `start` hands it over, with
   * no other submission admitted in between.
   */
  admitted<T>(
    typecheck: boolean | undefined,
    record: (environment: ActiveEnvironment) => Promise<{ processId: T; start(): void }>,
  ): Promise<T> {
    const admission = this.admissions.then(async () => {
      const environment = this.environment(typecheck);
      const recorded = await record(environment);
      recorded.start();
      return recorded.processId;
    });
    this.admissions = admission.catch(() => undefined);
    return admission;
  }
}
