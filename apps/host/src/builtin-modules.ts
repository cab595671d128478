/** The modules that ship with the host, registered from their packages' `manifest` and `instantiate()`. */
import type { ModuleFactory } from "@cyrnel/sdk";

export const BUILTIN_MODULES: ModuleFactory[] = [];
