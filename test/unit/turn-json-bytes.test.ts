import { describe, expect, it } from "vitest";
import { jsonBytes } from "../../shared/turns/turn-errors.js";

const exact = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");

describe("jsonBytes: the size a Turn travels at, without serializing frozen parts again", () => {
  it.each([
    ["a flat object with unicode and skipped keys", { a: "ä€😀", b: undefined, c: () => 1, d: null, e: 1.5, f: true }],
    ["nested arrays with holes and undefined", { list: [1, undefined, "x", [2, { y: '\n"' }]], empty: [], o: {} }],
    ["a Date and a toJSON object", { at: new Date(0), custom: { toJSON: () => ({ z: 1 }) } }],
    ["deep nesting past the walk", { a: { b: { c: { d: { e: ["deep", { f: "g" }] } } } } }],
    [
      "frozen parts",
      {
        catalog: Object.freeze({ entries: Object.freeze([Object.freeze({ name: "n", description: "d ü" })]) }),
        tools: [Object.freeze({ name: "t" })],
      },
    ],
    ["top-level values", "text"],
    ["every escape and UTF-8 width", { s: '"\\\b\t\n\f\r\u0001\u001f\u007f é€😀 \ud800 lone \udc00 \u2028', [`k\u0000"é`]: 1 }],
  ])("equals the UTF-8 length of JSON.stringify for %s", (_label, value) => {
    expect(jsonBytes(value)).toBe(exact(value));
  });

  it("measures a frozen object once: the same object costs no second serialization", () => {
    // Prepare
    let calls = 0;
    const frozen = Object.freeze({ big: "x".repeat(1000), nested: Object.freeze({ toJSON: () => (calls++, "n") }) });

    // Act
    const first = jsonBytes({ a: frozen });
    const second = jsonBytes({ b: frozen });

    // Assess
    expect(first).toBe(exact({ a: frozen }));
    expect(second).toBe(exact({ b: frozen }));
    expect(calls).toBe(3); // two exact() references above plus one measurement, not two
  });
});
