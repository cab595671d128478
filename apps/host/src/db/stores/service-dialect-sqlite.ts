/**
 * The service store's hooks on SQLite (see service-dialect.ts): tool search
 * over the FTS5 tables that migration 0003's triggers keep in step with
 * `tools`, `?query=` folded by the `casefold` SQL function (client.ts),
 * and a definition's tools written with one prepared statement on the
 * host's better-sqlite3 connection, the WAL checkpoint after the commit.
 */
import type Database from "better-sqlite3";
import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { SEARCH_WEIGHTS, type ToolRowText } from "../../domain/services/service-store.js";
import type { SqliteGate } from "../dialect-sqlite.js";
import { tools } from "../schema.js";
import { fts5Expression } from "../search-text.js";
import type { RankedWords, ServiceDialect, ServiceFolds, ToolBatch, ToolSearchIndex } from "./service-dialect.js";

const W = SEARCH_WEIGHTS;
/** FTS5 `bm25()` column weights of `tool_search`: id words, title, endpoint, service. */
const TITLE_WEIGHTS = `${W.idWords}, ${W.title}, ${W.endpoint}, ${W.service}`;

/** BM25 over the three tool_search tables of migration 0003, summed per tool (lower is better, as `bm25()`). */
const search: ToolSearchIndex = {
  // The tool_search tables' rows carry the tool's rowid.
  rowId: sql<number>`${tools}."rowid"`,
  ranked: (groups) => {
    const branches = groups.filter((group) => group.terms.length > 0).map((group) => matches(group));
    if (branches.length === 0) return undefined;
    return sql`(
      select "rowid" as "row_id", sum("score") as "score" from (${sql.join(branches, sql` union all `)})
      group by "rowid"
    ) as "ranked"`;
  },
  isExactly: (words) =>
    sql`(tool_search_text(${tools.id}) in ${words} or tool_search_text(${tools.endpoint}) in ${words})`,
  bestFirst: (factor) => sql`"ranked"."score" * ${factor}`,
};

/** Each tool matching a word of `terms` in the three tables (or the main one), with its weighted `bm25()` times `scale`. */
function matches({ terms, scale, mainOnly }: RankedWords): SQL {
  const expression = fts5Expression(terms);
  const times = (weight: number) => sql.raw(String(weight * scale));
  const main = sql`
    select "rowid", ${times(1)} * bm25("tool_search", ${sql.raw(TITLE_WEIGHTS)}) as "score"
      from "tool_search" where "tool_search" match ${expression}`;
  if (mainOnly) return main;
  return sql`${main}
    union all
    select "rowid", ${times(W.description)} * bm25("tool_search_descriptions")
      from "tool_search_descriptions" where "tool_search_descriptions" match ${expression}
    union all
    select "rowid", ${times(W.values)} * bm25("tool_search_values")
      from "tool_search_values" where "tool_search_values" match ${expression}`;
}

export class SqliteServiceDialect implements ServiceDialect {
  readonly search = search;
  private insertTool: Database.Statement | undefined;
  /** Large writes under way (they may overlap: each waits for the gate inside), and the setting they put back. */
  private largeWrites = 0;
  private autocheckpoint = 0;

  constructor(
    /** The host's one connection: the gate's transactions are open on it, so a statement run in one is part of it. */
    private readonly sqlite: Database.Database,
    private readonly gate: SqliteGate,
  ) {}

  /** Case-insensitive (Unicode) substring test, via the `casefold` SQL function registered in client.ts. */
  contains(column: AnyColumn, needle: string): SQL {
    return sql`instr(casefold(${column}), casefold(${needle})) > 0`;
  }

  /** SQLite folds as it compares: its rows keep no copies. */
  serviceFolds(): ServiceFolds {
    return {};
  }

  /** Nothing to prepare: the triggers index each tool as it is inserted. */
  async toolBatch(serviceId: string, _serviceName: string, rows: readonly ToolRowText[]): Promise<ToolBatch> {
    return { insert: async (_tx, enabled) => this.insertTools(serviceId, rows, enabled) };
  }

  /** SQLite's JSON columns are text: the column itself, read without drizzle's JSON mapping. */
  jsonText(column: AnyColumn): SQL<string> {
    return sql<string>`${column}`;
  }

  /**
   * A transaction that writes a whole definition (GitHub's: 22 MB). SQLite
   * would checkpoint the WAL inside its commit — copy all of it into the
   * database file once more, on the install's time; the checkpoint runs
   * right after instead (still on this thread, once the caller has answered).
   */
  async largeWrite<T>(write: () => Promise<T>): Promise<T> {
    if (this.largeWrites++ === 0) {
      this.autocheckpoint = this.sqlite.pragma("wal_autocheckpoint", { simple: true }) as number;
      this.sqlite.pragma("wal_autocheckpoint = 0");
    }
    let result: T;
    try {
      result = await write();
    } finally {
      if (--this.largeWrites === 0 && this.sqlite.open) {
        this.sqlite.pragma(`wal_autocheckpoint = ${this.autocheckpoint}`);
      }
    }
    setImmediate(() => {
      // Not inside another request's transaction (a checkpoint cannot run in one).
      void this.gate.run(() => {
        if (this.sqlite.open) this.sqlite.pragma("wal_checkpoint(PASSIVE)");
      });
    });
    return result;
  }

  /**
   * One prepared statement run once per tool, inside the caller's
   * transaction (drizzle's multi-row insert built and bound a 500-row
   * statement per chunk: a third of the host's share of a large install).
   */
  private insertTools(serviceId: string, rows: readonly ToolRowText[], enabled: ReadonlyMap<string, boolean>): void {
    this.insertTool ??= this.sqlite.prepare(
      `insert into "tools" ("service_id", "id", "position", "name", "description", "input_schema", "output_schema",
        "adapter_domain", "annotations", "enabled", "endpoint", "secrets") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insert = this.insertTool;
    rows.forEach((tool, position) => {
      insert.run(
        serviceId,
        tool.id,
        position,
        tool.name,
        tool.description,
        tool.inputSchema,
        tool.outputSchema,
        tool.adapterDomain,
        tool.annotations,
        (enabled.get(tool.id) ?? true) ? 1 : 0,
        tool.endpoint,
        tool.secrets,
      );
    });
  }
}
