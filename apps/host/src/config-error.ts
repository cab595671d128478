/** A bad environment variable: the message names it. A leaf, so every reader of configuration can throw it. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}
