/**
 * The shallow merge of every `cyrnel.output()` patch of one run, with the
 * byte size of its JSON kept up to date key by key. Each merge costs what
 * the patch costs, never what the whole output costs: re-serialising the
 * merged object on every call made 5,000 calls of 200 bytes cost the host
 * seconds of CPU (quadratic), stalling every other request.
 */
export class MergedOutput {
  /** Null prototype: a key such as `__proto__` stays an ordinary key, as JSON has it. */
  private readonly values: Record<string, unknown> = Object.create(null);
  /** JSON bytes of `"key":value` per key; 0 for keys JSON leaves out (an `undefined` value). */
  private readonly sizes = new Map<string, number>();
  private written = 0;
  /** Keys that appear in the JSON, for the commas between them. */
  private present = 0;

  constructor(private readonly limitBytes: number) {}

  /** Byte length of `JSON.stringify(output)`: the braces, each `"key":value`, and the commas. */
  get bytes(): number {
    return 2 + this.written + Math.max(0, this.present - 1);
  }

  /**
   * Merges `patch` unless the merged output would pass the limit (then
   * nothing changes and it returns false). Throws, like `JSON.stringify`,
   * for a value JSON cannot hold.
   */
  merge(patch: Record<string, unknown>): boolean {
    let written = this.written;
    let present = this.present;
    const sizes: [string, number][] = [];
    for (const [key, value] of Object.entries(patch)) {
      const json = JSON.stringify(value) as string | undefined;
      const size = json === undefined ? 0 : Buffer.byteLength(JSON.stringify(key)) + 1 + Buffer.byteLength(json);
      const previous = this.sizes.get(key) ?? 0;
      written += size - previous;
      present += (size > 0 ? 1 : 0) - (previous > 0 ? 1 : 0);
      sizes.push([key, size]);
    }
    if (2 + written + Math.max(0, present - 1) > this.limitBytes) return false;
    for (const [key, size] of sizes) this.sizes.set(key, size);
    this.written = written;
    this.present = present;
    Object.assign(this.values, patch);
    return true;
  }

  /**
   * A plain-object copy of the merge (for storing once the run ends; the
   * database layer expects ordinary objects). Spreading defines keys, so a
   * `__proto__` key is copied as a key, not as the prototype.
   */
  value(): Record<string, unknown> {
    return { ...this.values };
  }
}
