/** The modules that ship with the host, registered from their packages' `manifest` and `instantiate()`. */
import * as grpc from "@cyrnel/grpc";
import * as mcp from "@cyrnel/mcp";
import * as openapi from "@cyrnel/openapi";
import type { ModuleFactory } from "@cyrnel/sdk";
import * as typescriptIvm from "@cyrnel/typescript-ivm";

export const BUILTIN_MODULES: ModuleFactory[] = [openapi, grpc, mcp, typescriptIvm];
