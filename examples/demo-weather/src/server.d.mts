export function openApiDocument(baseUrl: string): Record<string, unknown>;
export function startDemoWeather(options?: { port?: number; host?: string; token?: string }): Promise<{
  url: string;
  close(): Promise<void>;
  server: import("node:http").Server;
}>;
