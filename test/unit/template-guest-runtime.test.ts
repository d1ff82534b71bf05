import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  NUNJUCKS_GUEST_RUNTIME_FILE,
  buildNunjucksGuestRuntime,
  renderVendorFile,
} from "../../shared/templates/guest/build-nunjucks-guest.js";
import { LruCache } from "../../shared/templates/lru-cache.js";

describe("nunjucks guest runtime", () => {
  it("is vendored from the current nunjucks-guest-entry.js and nunjucks (rebuild with build-nunjucks-guest.ts)", async () => {
    // Act
    const rebuilt = renderVendorFile(await buildNunjucksGuestRuntime());
    const vendored = await readFile(NUNJUCKS_GUEST_RUNTIME_FILE, "utf8");

    // Assess
    expect(vendored).toBe(rebuilt);
  });
});

describe("LruCache", () => {
  it("evicts the least recently used entry beyond its entry bound", () => {
    // Prepare
    const cache = new LruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.get("a");

    // Act
    cache.set("c", 3);

    // Assess
    expect(cache.get("a")).toBe(1);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("c")).toBe(3);
  });

  it("evicts by total weight and never keeps an entry heavier than the bound", () => {
    // Prepare
    const cache = new LruCache<string, string>(10, 10, (value) => value.length);
    cache.set("a", "aaaa");
    cache.set("b", "bbbb");

    // Act
    cache.set("c", "cccc");
    cache.set("huge", "x".repeat(11));

    // Assess
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBe("bbbb");
    expect(cache.get("c")).toBe("cccc");
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
