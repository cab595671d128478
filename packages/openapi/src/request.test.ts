import { describe, expect, it } from "vitest";
import { emptyCredentials } from "./auth.js";
import { DOMAIN_FORMAT, type ParameterBinding, type ToolDomain } from "./domain.js";
import { buildRequest, withCredentials, withQueryReplaced } from "./request.js";

const param = (
  key: string,
  location: ParameterBinding["in"],
  extra: Partial<ParameterBinding> = {},
): ParameterBinding => ({
  key,
  name: key,
  in: location,
  style: location === "query" || location === "cookie" ? "form" : "simple",
  explode: location === "query" || location === "cookie",
  allowReserved: false,
  ...extra,
});

const tool = (extra: Partial<ToolDomain> = {}): ToolDomain => ({
  format: DOMAIN_FORMAT,
  method: "get",
  path: "/pets/{petId}",
  server: null,
  parameters: [param("petId", "path")],
  body: null,
  security: [],
  accept: null,
  ...extra,
});

describe("buildRequest", () => {
  it("fills the path, query, headers and cookies", () => {
    const request = buildRequest(
      tool({
        parameters: [
          param("petId", "path"),
          param("query_petId", "query", { name: "petId" }),
          param("tags", "query"),
          param("X-Trace", "header"),
          param("session", "cookie"),
          param("filter", "query", { contentType: "application/json", style: "form", explode: true }),
        ],
        accept: "application/json",
      }),
      "https://api.example.com/v1",
      { "X-Client": "cyrnel" },
      { petId: "a/b", query_petId: 3, tags: ["x", "y"], "X-Trace": "t1", session: "s 1", filter: { a: 1 } },
    );
    expect(request).toEqual({
      method: "GET",
      url: "https://api.example.com/v1/pets/a%2Fb?petId=3&tags=x&tags=y&filter=%7B%22a%22%3A1%7D",
      headers: [
        ["X-Client", "cyrnel"],
        ["Accept", "application/json"],
        ["X-Trace", "t1"],
      ],
      cookies: [["session", "s%201"]],
    });
  });

  it("skips absent optional parameters and keeps a fixed query from the path key", () => {
    const request = buildRequest(
      tool({ path: "/search?type=user", parameters: [param("q", "query"), param("page", "query")] }),
      "http://h",
      {},
      { q: "x", page: null },
    );
    expect(request.url).toBe("http://h/search?type=user&q=x");
  });

  it("throws for a missing path parameter", () => {
    expect(() => buildRequest(tool(), "http://h", {}, {})).toThrow('Missing path parameter "petId"');
  });

  it("rejects header values with line breaks", () => {
    expect(() =>
      buildRequest(tool({ parameters: [param("X-A", "header")], path: "/" }), "http://h", {}, { "X-A": "a\r\nb: c" }),
    ).toThrow(/line breaks/);
  });

  it("config headers win over the computed Accept", () => {
    const request = buildRequest(
      tool({ accept: "application/json", path: "/", parameters: [] }),
      "http://h",
      { accept: "text/csv" },
      {},
    );
    expect(request.headers).toEqual([["accept", "text/csv"]]);
  });

  it("encodes the body with its content type", () => {
    const request = buildRequest(
      tool({
        method: "post",
        path: "/pets",
        parameters: [],
        body: { mediaType: "application/json", encoding: {}, files: [] },
      }),
      "http://h",
      {},
      { body: { name: "Rex" } },
    );
    expect(request.body).toBe('{"name":"Rex"}');
    expect(request.headers).toEqual([["Content-Type", "application/json"]]);
  });

  it.each(["get", "head"] as const)("a %s form body becomes query parameters (spaces as %%20)", (method) => {
    const request = buildRequest(
      tool({
        method,
        path: "/pets?fixed=1",
        parameters: [param("q", "query")],
        body: {
          mediaType: "application/x-www-form-urlencoded",
          encoding: { expand: { style: "deepObject", explode: true } },
          files: [],
        },
      }),
      "http://h",
      {},
      { q: "a", body: { name: "R x+", expand: ["p"], reserved: "a/b" } },
    );
    expect(request.url).toBe("http://h/pets?fixed=1&q=a&name=R%20x%2B&expand[0]=p&reserved=a%2Fb");
    expect(request.body).toBeUndefined();
    expect(request.headers).toEqual([]);
  });

  it("a GET JSON body stays a body (http.ts sends it over node:http)", () => {
    const request = buildRequest(
      tool({
        method: "get",
        path: "/pets",
        parameters: [],
        body: { mediaType: "application/json", encoding: {}, files: [] },
      }),
      "http://h",
      {},
      { body: { Filter: {} } },
    );
    expect(request.url).toBe("http://h/pets");
    expect(request.body).toBe('{"Filter":{}}');
  });
});

describe("withCredentials", () => {
  it("adds query parameters, headers and cookies without touching the prepared URL", () => {
    const request = buildRequest(
      tool({ parameters: [param("petId", "path"), param("c", "cookie")] }),
      "http://h",
      {},
      { petId: 1, c: "v" },
    );
    const credentials = {
      ...emptyCredentials(),
      headers: [["Authorization", "Bearer t"]],
      query: [["api key", "s&1"]],
      cookies: [["sid", "x y"]],
    } as ReturnType<typeof emptyCredentials>;
    const { url, headers } = withCredentials(request, credentials);
    expect(url).toBe("http://h/pets/1?api%20key=s%261");
    expect(request.url).toBe("http://h/pets/1");
    expect(headers.get("authorization")).toBe("Bearer t");
    expect(headers.get("cookie")).toBe("c=v; sid=x%20y");
  });

  it("puts the secret overrides in place of headers (any case), the cookie header and query parameters of their names", () => {
    const request = buildRequest(
      tool({ parameters: [param("petId", "path"), param("c", "cookie"), param("page", "query")] }),
      "http://h",
      { "x-client": "config" },
      { petId: 1, c: "v", page: 2 },
    );
    const credentials = {
      ...emptyCredentials(),
      headers: [["Authorization", "Bearer t"]],
      query: [["api_key", "scheme"]],
    } as ReturnType<typeof emptyCredentials>;
    const { url, headers } = withCredentials(request, credentials, {
      headers: [
        ["authorization", "token secret"],
        ["X-CLIENT", "secret"],
        ["Cookie", "session=secret"],
      ],
      query: [["api_key", "s e/c"]],
    });
    expect(url).toBe("http://h/pets/1?page=2&api_key=s%20e%2Fc");
    expect([...headers]).toEqual([
      ["authorization", "token secret"],
      ["cookie", "session=secret"],
      ["x-client", "secret"],
    ]);
  });
});

describe("withQueryReplaced", () => {
  it.each([
    ["no query yet", "http://h/a", [["k", "v"]], "http://h/a?k=v"],
    ["kept and replaced, every occurrence", "http://h/a?x=1&k=old&k=2&y", [["k", "v"]], "http://h/a?x=1&y&k=v"],
    ["names compared decoded", "http://h/a?a%20b=1&a+b=2", [["a b", "v"]], "http://h/a?a+b=2&a%20b=v"],
    ["an empty query", "http://h/a?", [["k", ""]], "http://h/a?k="],
    ["a name that does not decode is compared as written", "http://h/a?%E0=1", [["%E0", "v"]], "http://h/a?%25E0=v"],
    ["nothing to add", "http://h/a?k=1", [], "http://h/a?k=1"],
  ] as [string, string, [string, string][], string][])("%s", (_label, url, pairs, expected) => {
    expect(withQueryReplaced(url, pairs)).toBe(expected);
  });
});
