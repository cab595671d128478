import type { TypesOptions } from "@cyrnel/sdk";
import type { TypeErrorLine } from "./code-file.js";

/**
 * Messages between the environment (host process) and its type-checker
 * thread. The thread handles one message at a time, in order; each `job`
 * is answered with `done` or `failed`.
 */
export type ToChecker =
  | {
      /** Parse one service's declarations (see renderServiceFile), replacing what the thread had for it. */
      type: "declare";
      job: number;
      serviceId: string;
      namespace: string;
      tools: string[];
      text: string;
    }
  /** Check each program (the code of one run) on its own, all against the same services. */
  | { type: "check"; job: number; programs: string[]; services: CheckedService[] };

/** A service the checked code can reach, and the tools it can call on it. */
export interface CheckedService {
  serviceId: string;
  tools: string[];
  /** Whether the thread has its declarations (sent with `declare`); without them it is typed `any`. */
  declared: boolean;
  /** Of `tools`, those the service's policy denies: typed so that a call to one is an error. */
  denied?: string[];
}

export type FromChecker =
  /** Posted once the compiler and the standard library are loaded. */
  | { type: "ready" }
  /** A `declare` is done (no errors), or a `check` found these errors, per program (none: it type-checks). */
  | { type: "done"; job: number; errors: TypeErrorLine[][] }
  /** The compiler threw (a bug, or a stack overflow on hostile code). */
  | { type: "failed"; job: number; message: string };

/** What a render is asked for (the render thread gets it as {@link RenderThreadData}), and answers. */
export interface RenderRequest {
  serviceId: string;
  /** JSON text of a `ToolDocsInput[]`, whole or in consecutive parts (see EnvironmentBindings.serviceTools). */
  toolsJson: string | readonly string[];
  /**
   * Work nobody waits for (declarations prepared ahead of runs): the thread lowers its own CPU priority, so that
   * on a busy machine the runs, checks and requests of the moment go first.
   */
  background?: boolean;
}

/**
 * What a render thread is started with (`workerData`): tools' JSON as UTF-8, in parts, and what to make of it — one
 * service's declarations for the checker (`service`), or the declaration file `GET /environment/types` answers
 * (`types`, see EnvironmentModule.generateTypesFromJson).
 */
export type RenderThreadData =
  | { kind: "service"; serviceId: string; parts: Uint8Array[]; background?: boolean }
  | { kind: "types"; options: TypesOptions; parts: Uint8Array[] };

export interface RenderedService {
  namespace: string;
  tools: string[];
  text: string;
}
