export { createHost, type Host, type HostOptions } from "./app.js";
export { ConfigError, type HostConfig, loadConfig } from "./config.js";
export { CyrnelError, type ErrorCode } from "./errors.js";
export { startServer } from "./server.js";
export { HOST_VERSION } from "./version.js";
