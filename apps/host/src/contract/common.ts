/**
 * Schema pieces shared by several resources of the API: the error body,
 * lists and paging, timestamps, config and secrets bodies.
 */
import { type Static, type TSchema, type TUnsafe, Type } from "@sinclair/typebox";
import { ERROR_STATUS } from "../errors.js";
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_ROW_ID } from "./limits.js";

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: "Human-readable message" }),
    code: Type.Union(
      Object.keys(ERROR_STATUS).map((code) => Type.Literal(code)),
      { description: "Stable machine-readable code" },
    ),
    details: Type.Optional(Type.Unknown()),
  },
  { $id: "Error" },
);

/** `schema` or `null`; `options` (e.g. a description) go on the union. */
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

/** A row's id in a path or a query (processes, approvals, calls): 1 to PostgreSQL's largest `integer`. */
export const RowId = (options: { description?: string } = {}) =>
  Type.Integer({ minimum: 1, maximum: MAX_ROW_ID, ...options });

/**
 * A query parameter that may hold any text, NUL included (a process's `ref` is any text, and lists filter by it).
 * Every other path and query parameter refuses a NUL (http/mount.ts): ids and searches never hold one.
 */
export const ANY_TEXT = "x-cyrnel-any-text";
export const AnyText = (options: { description?: string } = {}) => Type.String({ ...options, [ANY_TEXT]: true });

export const JsonObject = Type.Record(Type.String(), Type.Unknown());

export const Timestamp = Type.String({ format: "date-time" });

export const ListQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: `Page size (max ${MAX_LIMIT})`,
    }),
  ),
  cursor: Type.Optional(Type.String({ description: "nextCursor of the previous page" })),
};

export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), nextCursor: Nullable(Type.String()) });

/** A page of `Item`s as `ListOf` describes it, e.g. `Page<ServiceRecord>`. */
export type Page<Item> = Static<ReturnType<typeof ListOf<TUnsafe<Item>>>>;

export const EnabledBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });

/**
 * A config or secrets patch: a merge-patch object or an RFC 6902 operation
 * list. Operations are only shape-checked here; the patch code names a bad
 * op or path precisely.
 */
export const PatchBody = Type.Union(
  [
    Type.Record(Type.String(), Type.Unknown(), { description: "JSON merge patch (RFC 7386): null removes a key" }),
    Type.Array(
      Type.Object({
        op: Type.String({ description: "add, remove, replace, move, copy or test" }),
        path: Type.String(),
        from: Type.Optional(Type.String()),
        value: Type.Optional(Type.Unknown()),
      }),
      { description: "JSON patch (RFC 6902)" },
    ),
  ],
  { description: "A JSON object (merge patch) or a JSON array (RFC 6902 patch)" },
);

export const SecretNames = Type.Object({
  set: Type.Array(Type.String(), { description: "Names of the secrets that have a value (never the values)" }),
});

export const ConfigBody = Type.Object({ config: JsonObject });

export type SecretNames = Static<typeof SecretNames>;
export type ConfigBody = Static<typeof ConfigBody>;

/** Which version of a registry descriptor to install (service and module installs and updates). */
export const VersionChoice = {
  version: Type.Optional(
    Type.String({ description: "Exact version, semver range, or omitted for the descriptor's latestVersion" }),
  ),
};

/** The versions an update went from and to (service and module updates). */
export const VersionChange = {
  fromVersion: Nullable(Type.String()),
  toVersion: Nullable(Type.String(), {
    description: "The version now installed (the previous one when nothing changed)",
  }),
};

/** The body of an update from a registry (services and modules). */
export const VersionBody = Type.Object(VersionChoice, { additionalProperties: false });
