/**
 * Where the secrets key comes from: CYRNEL_SECRETS_KEY, or else a key file
 * generated once in the data directory (mode 0600) with a warning, so the
 * default install works but operators are told to manage the key.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HostLogger } from "../../log.js";

export function loadSecretsKey(configured: Buffer | null, dataDir: string, logger: HostLogger): Buffer {
  if (configured) return configured;
  const file = join(dataDir, "secrets.key");
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
    if (key.length !== 32)
      throw new Error(`${file} does not hold base64 of 32 bytes; restore it or set CYRNEL_SECRETS_KEY`);
    return key;
  }
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  logger.warn("no CYRNEL_SECRETS_KEY set: generated a secrets key file; back it up or set CYRNEL_SECRETS_KEY", {
    file,
  });
  return key;
}
