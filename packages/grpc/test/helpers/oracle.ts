import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  createFileRegistry,
  type DescMessage,
  type FileRegistry,
  fromBinary,
  fromJson,
  type JsonValue,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { type FileDescriptorSet, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

const BUF = join(dirname(createRequire(import.meta.url).resolve("@bufbuild/buf/package.json")), "bin", "buf");

/**
 * Compiles proto sources with `buf` (a protoc-grade compiler, from the npm
 * registry) into a FileDescriptorSet, imports and source info included.
 */
export function compile(files: Record<string, string>): FileDescriptorSet {
  const dir = mkdtempSync(join(tmpdir(), "cyrnel-grpc-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    writeFileSync(join(dir, "buf.yaml"), "version: v2\n");
    const out = join(dir, "set.binpb");
    execFileSync(BUF, ["build", dir, "--as-file-descriptor-set", "-o", out], { stdio: ["ignore", "ignore", "pipe"] });
    return fromBinary(FileDescriptorSetSchema, readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An independent implementation of the proto3 JSON mapping to check the
 * adapter against: protobuf-es (@bufbuild/protobuf) over descriptors
 * compiled by buf. Output is compared with `alwaysEmitImplicit`, the
 * adapter's choice of emitting fields without presence.
 */
export class Oracle {
  readonly registry: FileRegistry;

  constructor(readonly set: FileDescriptorSet) {
    this.registry = createFileRegistry(set);
  }

  static of(files: Record<string, string>): Oracle {
    return new Oracle(compile(files));
  }

  message(name: string): DescMessage {
    const desc = this.registry.getMessage(name);
    if (!desc) throw new Error(`oracle: no message ${name}`);
    return desc;
  }

  encode(name: string, json: unknown): Uint8Array {
    const desc = this.message(name);
    return toBinary(desc, fromJson(desc, json as JsonValue, { registry: this.registry }));
  }

  decode(name: string, bytes: Uint8Array): unknown {
    const desc = this.message(name);
    return toJson(desc, fromBinary(desc, bytes), { registry: this.registry, alwaysEmitImplicit: true });
  }

  /** `json` as the oracle writes it back (names normalised, defaults filled). */
  normalise(name: string, json: unknown): unknown {
    return this.decode(name, this.encode(name, json));
  }
}
