import { describe, expect, it } from "vitest";
import { searchQuery } from "./search-query.js";

describe("searchQuery", () => {
  it.each([
    // [text, related words, methods]
    ["read a file", ["get", "list", "download"], ["GET"]],
    ["close an issue", ["update", "state"], ["PATCH", "PUT", "POST"]],
    ["publish a release", ["create"], ["POST", "PUT"]],
    ["react with an emoji", ["reaction", "create"], ["POST", "PUT"]],
    ["refund a charge", [], ["POST", "PUT"]],
    ["delete a repository", [], ["DELETE"]],
    ["remove a user from a channel", ["delete", "conversation"], ["DELETE"]],
    ["list channels", ["conversations"], ["GET"]],
    // The first verb decides the methods: this is a read.
    ["list the webhooks to delete", [], ["GET"]],
    ["weather in oslo", [], []],
  ])("%j: related %j, methods %j", (text, related, methods) => {
    const query = searchQuery(text)!;
    expect(query.related).toEqual(related);
    expect(query.methods).toEqual(methods);
  });

  it("never repeats a typed word as a related one", () => {
    expect(searchQuery("read and get a file")!.related).toEqual(["list", "download"]);
  });

  it.each([
    ["/v1/customers", ["v1 customers", "get v1 customers", "post v1 customers", "delete v1 customers"]],
    [
      "/repos/{owner}/{repo}/pulls",
      ["repo owner repo pulls", "get repo owner repo pulls", "post repo owner repo pulls"],
    ],
  ])("a path without its method is exactly any endpoint at it: %s", (text, some) => {
    const query = searchQuery(text)!;
    expect(query.exact).toEqual(expect.arrayContaining(some));
    // A path is an address, not a task: no verbs read into it.
    expect(query.methods).toEqual([]);
    expect(query.related).toEqual([]);
  });

  it("a path with its method, or an id, is exactly that", () => {
    expect(searchQuery("GET /v1/customers")!.exact).toEqual(["get v1 customers"]);
    expect(searchQuery("chat.postMessage")!.exact).toEqual(["chat post message"]);
  });

  it("has nothing to look for without letters or digits", () => {
    expect(searchQuery("!!! ...")).toBeUndefined();
  });
});
