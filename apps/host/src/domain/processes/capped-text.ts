/**
 * A text stream (stdout or stderr) kept up to a byte cap; past it, one marker line says how much was dropped —
 * what this host cut of what it was sent, plus what the environment cut at its own cap and never sent
 * (`EnvironmentBindings.streamDropped`), so the count is exact.
 */
export class CappedText {
  private readonly chunks: string[] = [];
  private bytes = 0;
  /** Set once the stream is cut (here, or by the environment): the size the marker names. */
  private cutAt: number | null = null;
  /** Bytes this host was sent past the cut. */
  private dropped = 0;
  /** Bytes the environment dropped past its own cap, as it last told (a total). */
  private droppedUpstream = 0;

  constructor(
    private readonly limit: number,
    private readonly name: string,
  ) {}

  /**
   * Keeps what fits and returns the text a live reader should see: the kept
   * part, plus a marker line the moment the cap is first crossed ("" after).
   */
  append(chunk: string): string {
    if (this.cutAt !== null) {
      this.dropped += Buffer.byteLength(chunk);
      return "";
    }
    const size = Buffer.byteLength(chunk);
    if (this.bytes + size <= this.limit) {
      this.chunks.push(chunk);
      this.bytes += size;
      return chunk;
    }
    const room = this.limit - this.bytes;
    const kept = Buffer.from(chunk)
      .subarray(0, room)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    this.chunks.push(kept);
    this.bytes += Buffer.byteLength(kept);
    this.dropped = size - Buffer.byteLength(kept);
    return kept + this.cut(this.limit);
  }

  /**
   * The environment cut the stream at its own cap and has dropped `total` bytes past it so far. Returns the
   * marker line for live readers if that is where the stream ends ("" when it was cut already).
   */
  droppedElsewhere(total: number): string {
    this.droppedUpstream = Math.max(this.droppedUpstream, total);
    return this.cutAt === null ? this.cut(this.bytes) : "";
  }

  toString(): string {
    const text = this.chunks.join("");
    if (this.cutAt === null) return text;
    const dropped = this.dropped + this.droppedUpstream;
    return `${text}${separatorAfter(text)}[cyrnel: ${this.name} truncated at ${this.cutAt} bytes; ${dropped} more bytes dropped]\n`;
  }

  /** Cuts the stream at `at` bytes: the marker line live readers see (the count comes with the final text). */
  private cut(at: number): string {
    this.cutAt = at;
    // Happens once per stream, so joining what was kept to find its last character is cheap enough.
    const soFar = this.chunks.join("");
    return `${separatorAfter(soFar)}[cyrnel: ${this.name} truncated at ${at} bytes; the rest is dropped]\n`;
  }
}

const separatorAfter = (text: string) => (text.endsWith("\n") || text === "" ? "" : "\n");
