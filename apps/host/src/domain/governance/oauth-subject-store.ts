/**
 * What the host remembers of each OAuth subject (`oauth:<sub>`): the grants
 * of its latest access token and when that token expires. A process created
 * with a token runs its tool calls as that subject, read again here at each
 * call: there is no key row to read, and the token itself is not kept.
 */

/** One subject: the grants of the token seen that expires last. */
export interface OAuthSubjectRow {
  /** `oauth:<sub>`, as processes, approvals and call records name the caller. */
  id: string;
  role: "admin" | "agent";
  /** Service ids the subject may reach; null = all. */
  services: string[] | null;
  /** The `exp` of the latest token seen, ISO-8601: calls from its processes after it are refused. */
  expiresAt: string;
  /** When a token of this subject was last written here. */
  seenAt: string;
}

export interface OAuthSubjectStore {
  get(id: string): Promise<OAuthSubjectRow | undefined>;
  /**
   * Writes the subject's grants unless a token expiring later was seen
   * already (one conditional upsert, so hosts sharing a database agree).
   */
  remember(row: OAuthSubjectRow): Promise<void>;
}
