import type { ResolveHook } from "node:module";

export declare const GENERATION_PARAM = "generation";
export declare const resolve: ResolveHook;
