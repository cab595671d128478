import type { ToolDocsInput } from "@cyrnel/sdk";

/**
 * The note a tool's docs and types carry when the host says its calls cannot authenticate
 * (`ToolDocsInput.missingSecrets`): which secrets it needs, none of them set.
 */
export function missingSecretsNote({ missingSecrets, serviceId }: ToolDocsInput): string | undefined {
  if (missingSecrets === undefined || missingSecrets.length === 0) return undefined;
  return `Not callable yet: it needs ${secretsWanted(missingSecrets)} of service "${serviceId}", which is not set; calls fail until an operator sets it.`;
}

/** `the secret "api_key"`, `the secret "api_key" or "basic"`, `the secrets "user" + "token"`. */
export function secretsWanted(alternatives: readonly (readonly string[])[]): string {
  const plural = alternatives.every((names) => names.length > 1);
  const text = alternatives.map((names) => names.map((name) => JSON.stringify(name)).join(" + ")).join(" or ");
  return `${plural ? "the secrets" : "the secret"} ${text}`;
}
