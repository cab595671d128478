/** A text stream (stdout or stderr) kept up to a byte cap; past it, one marker line says how much was dropped. */
export class CappedText {
  private readonly chunks: string[] = [];
  private bytes = 0;
  private dropped = 0;

  constructor(
    private readonly limit: number,
    private readonly name: string,
  ) {}

  append(chunk: string): void {
    if (this.dropped > 0) {
      this.dropped += Buffer.byteLength(chunk);
      return;
    }
    const size = Buffer.byteLength(chunk);
    if (this.bytes + size <= this.limit) {
      this.chunks.push(chunk);
      this.bytes += size;
      return;
    }
    const room = this.limit - this.bytes;
    const kept = Buffer.from(chunk)
      .subarray(0, room)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    this.chunks.push(kept);
    this.bytes += Buffer.byteLength(kept);
    this.dropped = size - Buffer.byteLength(kept);
  }

  toString(): string {
    const text = this.chunks.join("");
    if (this.dropped === 0) return text;
    const separator = text.endsWith("\n") || text === "" ? "" : "\n";
    return `${text}${separator}[cyrnel: ${this.name} truncated at ${this.limit} bytes; ${this.dropped} more bytes dropped]\n`;
  }
}
