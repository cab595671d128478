/** A text stream (stdout or stderr) kept up to a byte cap; past it, one marker line says how much was dropped. */
export class CappedText {
  private readonly chunks: string[] = [];
  private bytes = 0;
  private dropped = 0;

  constructor(
    private readonly limit: number,
    private readonly name: string,
  ) {}

  /**
   * Keeps what fits and returns the text a live reader should see: the kept
   * part, plus a marker line the moment the cap is first crossed ("" after).
   */
  append(chunk: string): string {
    if (this.dropped > 0) {
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
    // Happens once per stream, so joining what was kept to find its last character is cheap enough.
    const soFar = this.chunks.join("");
    const separator = soFar.endsWith("\n") || soFar === "" ? "" : "\n";
    return `${kept}${separator}[cyrnel: ${this.name} truncated at ${this.limit} bytes; the rest is dropped]\n`;
  }

  toString(): string {
    const text = this.chunks.join("");
    if (this.dropped === 0) return text;
    const separator = text.endsWith("\n") || text === "" ? "" : "\n";
    return `${text}${separator}[cyrnel: ${this.name} truncated at ${this.limit} bytes; ${this.dropped} more bytes dropped]\n`;
  }
}
