/**
 * AES-256-GCM sealing of single values. Each value gets a random 96-bit IV;
 * the caller's additional data (owner and name) is authenticated, so a
 * ciphertext copied to another row fails to open. The key id stored beside
 * each value is derived from the key (never the key itself), which is how
 * values sealed under a previous key are found and re-sealed.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

export interface Sealed {
  keyId: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

export class SecretBox {
  readonly currentKeyId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(current: Buffer, previous: Buffer[] = []) {
    this.currentKeyId = keyIdOf(current);
    for (const key of [current, ...previous]) this.keys.set(keyIdOf(key), key);
  }

  seal(plaintext: string, additionalData: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(additionalData, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return { keyId: this.currentKeyId, iv, ciphertext, tag: cipher.getAuthTag() };
  }

  open(sealed: Sealed, additionalData: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) {
      throw new Error(
        `secret was sealed with unknown key ${sealed.keyId}; add that key to CYRNEL_SECRETS_PREVIOUS_KEYS to read it`,
      );
    }
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.iv);
    decipher.setAAD(Buffer.from(additionalData, "utf8"));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString("utf8");
  }

  canOpen(keyId: string): boolean {
    return this.keys.has(keyId);
  }
}

/** A short public fingerprint of a key: the first 16 hex digits of SHA-256 over a domain-separated input. */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update("cyrnel-secrets-key-id:").update(key).digest("hex").slice(0, 16);
}
