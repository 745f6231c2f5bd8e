// Input bytes → text: the encodings people's files come in, and bytes that are no text.
import fc from "fast-check";
import { describe, expect, test, vi } from "vitest";
import { decodeInput } from "../../src/cli/decode-input.js";
import { jsonSyntaxError } from "../../src/kube/json-syntax.js";
import { splitJsonValues } from "../../src/kube/json-values.js";
import { readClusterText } from "../../src/kube/read-input.js";

const TEXT = "services: [] # ünïcode ✓ 𝄞\n";

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const bytes = new Uint8Array(2 + text.length * 2);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, 0xfeff, littleEndian);
  for (let i = 0; i < text.length; i++) view.setUint16(2 + 2 * i, text.charCodeAt(i), littleEndian);
  return bytes;
}

describe("decodeInput", () => {
  test("UTF-8, with or without a byte order mark, and UTF-16 of either order with one", () => {
    const utf8 = new TextEncoder().encode(TEXT);
    const cases: Record<string, Uint8Array> = {
      utf8,
      "utf8 with BOM": new Uint8Array([0xef, 0xbb, 0xbf, ...utf8]),
      utf16le: utf16(TEXT, true),
      utf16be: utf16(TEXT, false),
    };
    for (const [name, bytes] of Object.entries(cases))
      expect(decodeInput(bytes), name).toEqual({ text: TEXT });
    expect(decodeInput(new Uint8Array())).toEqual({ text: "" });
  });

  test("bytes that break UTF-8 are refused, naming the first bad byte", () => {
    const at = (bytes: number[]) => decodeInput(new Uint8Array(bytes));
    expect(at([0x7b, 0xff])).toEqual({ problem: "is not UTF-8 text (byte 1)" });
    expect(at([0xef, 0xbb, 0xbf, 0x61, 0xc3])).toEqual({ problem: "is not UTF-8 text (byte 4)" }); // cut short
    expect(at([0x61, 0xe2, 0x28, 0xa1])).toEqual({ problem: "is not UTF-8 text (byte 1)" }); // bad continuation
    expect(at([0xc0, 0x80])).toEqual({ problem: "is not UTF-8 text (byte 0)" }); // overlong NUL
    // An unpaired surrogate in UTF-16.
    expect(decodeInput(new Uint8Array([0xff, 0xfe, 0x00, 0xd8, 0x61, 0x00]))).toEqual({
      problem: "is not UTF-16LE text",
    });
  });
});

describe("readClusterText", () => {
  test("a leading byte order mark is not part of the JSON or YAML", () => {
    for (const text of ['{"services": []}', "services: []\n"]) {
      const read = readClusterText(`\ufeff${text}`);
      expect(read.problems).toEqual([]);
      expect(read.input).toEqual(readClusterText(text).input);
    }
  });

  test("a mapping key that is a list or a mapping is refused with its place, and nothing is printed", () => {
    const emitted = vi.spyOn(process, "emitWarning");
    try {
      const read = readClusterText("services:\n- metadata: {name: a, ? [x, y] : z}\n");
      expect(read.input).toBeNull();
      expect(read.problems).toEqual([
        {
          code: "MALFORMED_INPUT",
          path: "",
          message: "the input is not valid YAML: a mapping key is a list or a mapping",
          severity: "error",
          line: 2,
          column: 25, // the "["
        },
      ]);
      expect(emitted).not.toHaveBeenCalled();
    } finally {
      emitted.mockRestore();
    }
  });

  test("a YAML syntax error gives its line and column once, not again inside the message", () => {
    const read = readClusterText("kind: List\nitems:\n  - a: b\n   c: d\n");
    expect(read.problems.map((p) => `${p.line}:${p.column}: ${p.message}`)).toEqual([
      "4:1: the input is not valid YAML: Sequence item without - indicator",
    ]);
  });

  test("an unclosed quote is reported where it opens, not where the text ends", () => {
    const where = (text: string) => read(text).map((p) => `${p.line}:${p.column}: ${p.message}`);
    const read = (text: string) => readClusterText(text).problems;
    // A kubectl paste cut inside a quoted value (kubernetes/cloud-provider-aws#87).
    const cut = 'kind: List\nitems:\n- apiGroups:\n  - ""\n  - "extensi\n';
    expect(where(cut)).toEqual([
      '5:5: the input is not valid YAML: the " string opened here is never closed (a paste cut short?)',
    ]);
    // In a flow sequence, single-quoted, and before further documents.
    expect(where("a: ['x', 'y\nb: 1\n")).toEqual([
      "1:10: the input is not valid YAML: the ' string opened here is never closed (a paste cut short?)",
    ]);
    expect(where('a: 1\nb: "x\n---\nc: 2\n')[0]).toMatch(/^2:4: /);
    // A quoted top-level value.
    expect(where('"abc\n')[0]).toMatch(/^1:1: /);
  });

  test("a Markdown rule where a --- separator was is named as such", () => {
    // A real guide's manifests, rendered by Markdown and copied back: `***` between documents.
    const svc = (name: string) =>
      `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}}\nspec:\n  clusterIP: None\n`;
    for (const rule of ["***", "___", "* * *"]) {
      const problems = readClusterText(`${svc("a")}\n${rule}\n${svc("b")}`).problems;
      expect(problems.map((p) => `${p.line}:${p.column}: ${p.message}`)).toEqual([
        `7:1: the input is not valid YAML: ${rule} is a Markdown rule, not a YAML document separator (---)`,
      ]);
    }
    // Elsewhere, yaml's own message stays.
    expect(readClusterText("a: b\n  c: d\n").problems[0]?.message).not.toMatch(/Markdown/);
  });

  test("YAML merge keys (`<<: *anchor`) merge, as kubectl reads them", () => {
    const text = [
      "defaults: &web",
      "  clusterIP: 10.96.0.10",
      "  ports: [{name: http, port: 80}]",
      "services:",
      "- metadata: {name: web, namespace: default}",
      "  spec:",
      "    <<: *web",
      "    type: ClusterIP",
    ].join("\n");
    const read = readClusterText(text);
    expect(read.problems).toEqual([]);
    expect(read.input?.services?.[0]?.spec).toEqual({
      clusterIP: "10.96.0.10",
      ports: [{ name: "http", port: 80 }],
      type: "ClusterIP",
    });
  });

  test("aliases that expand without bound (a billion laughs) are a problem, not an exception", () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 8; i++) {
      const [prev, name] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)];
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    levels.push("services: *h");
    const read = readClusterText(levels.join("\n"));
    expect(read.input).toBeNull();
    expect(read.problems.map((p) => `${p.code} ${p.path}: ${p.message}`)).toEqual([
      "MALFORMED_INPUT : the input is not valid YAML: Excessive alias count indicates a resource exhaustion attack",
    ]);
  });
});

describe("splitJsonValues", () => {
  test("objects and arrays one after another, with braces and quotes inside strings", () => {
    const a = '{"a": "}{\\"", "b": [1, {"c": "]"}]}';
    const b = '[{"kind": "List"}]';
    expect(splitJsonValues(`${a}\n${b}\r\n\t${a}`)).toEqual([a, b, a]);
    expect(splitJsonValues(`${a}${b}`)).toEqual([a, b]);
    for (const piece of splitJsonValues(`${a} ${b}`) ?? []) expect(() => JSON.parse(piece)).not.toThrow();
  });

  test("anything else is not such a stream", () => {
    expect(splitJsonValues('{"a": 1}')).toBeNull(); // one value: JSON.parse's to report on
    expect(splitJsonValues('{"a": 1} 2')).toBeNull();
    expect(splitJsonValues('{"a": 1} {"b": ')).toBeNull();
    expect(splitJsonValues('{"a": "}')).toBeNull();
    expect(splitJsonValues("")).toBeNull();
  });

  test("readClusterText reads such a stream as documents; a broken one is still a JSON error", () => {
    const services = { kind: "ServiceList", apiVersion: "v1", items: [] };
    const slices = {
      kind: "EndpointSliceList",
      apiVersion: "discovery.k8s.io/v1",
      items: [{ metadata: {} }],
    };
    const read = readClusterText(`${JSON.stringify(services, null, 2)}\n${JSON.stringify(slices)}\n`);
    expect(read.shape).toBe("list");
    expect(read.origins.endpointSlices).toEqual(["documents[1].items[0]"]);
    const broken = readClusterText(`${JSON.stringify(services)}\n{"kind": "List", "items": [}`);
    expect(broken.input).toBeNull();
    expect(broken.problems[0]?.message).toMatch(/^the input is not valid JSON: /);
  });
});

// kubectl's JSON runs to megabytes: a syntax error must say where, as YAML's do, and V8's message
// gives at most an offset (none at all for "Unexpected token"), or, for a stream of documents, an
// offset at the start of the second one ("non-whitespace character after JSON").
describe("JSON syntax errors: line and column", () => {
  const where = (text: string) =>
    readClusterText(text).problems.map((p) => `${p.line}:${p.column}: ${p.message}`);

  test.each([
    [
      "a comma before a closing brace",
      '{\n  "kind": "List",\n  "items": [\n    {"kind": "Service",}\n  ]\n}\n',
      '4:24: the input is not valid JSON: expected a property name in double quotes, found "}"',
    ],
    [
      "a file cut short",
      '{\r\n  "kind": "List",\r\n  "items": [\r\n',
      "4:1: the input is not valid JSON: the input ends inside an array",
    ],
    [
      "a misspelt literal",
      '{"items": [], "x": tru}',
      'the input is not valid JSON: unexpected "}" in a literal',
    ],
    [
      "the second document of a stream",
      '{"kind": "List", "items": []}\n{"kind": "List", "items": [}\n',
      '2:28: the input is not valid JSON: unexpected "}"',
    ],
    [
      "a NUL byte after the value",
      '{"kind": "List", "items": []}\u0000',
      '1:30: the input is not valid JSON: unexpected "\\u0000" after a JSON value',
    ],
    [
      "a form feed before the value (blank to the reader, not to JSON)",
      '\f{"kind": "List", "items": []}',
      '1:1: the input is not valid JSON: unexpected "\\f"',
    ],
    [
      "a raw line break in a string",
      '{"kind": "Li\nst"}',
      '1:13: the input is not valid JSON: a control character ("\\n") in a string',
    ],
  ])("%s", (_, text, message) => {
    const [problem] = where(text);
    expect(problem).toMatch(/^\d+:\d+: /);
    expect(problem?.endsWith(message)).toBe(true);
    expect(readClusterText(text).input).toBeNull();
  });

  test("the column counts from the line's start, after a byte order mark", () => {
    expect(where('\ufeff[\n  {"a": 1,, "b": 2}\n]')).toEqual([
      '2:11: the input is not valid JSON: expected a property name in double quotes, found ","',
    ]);
  });

  test("nesting deeper than any stack is still only a syntax error", () => {
    const deep = `${"[".repeat(500_000)}}`;
    expect(where(deep)).toEqual(['1:500001: the input is not valid JSON: unexpected "}"']);
  });
});

describe("jsonSyntaxError", () => {
  test("finds an error exactly when JSON.parse does, at the offset V8 names when it names one", () => {
    const noise = fc.constantFrom(...'{}[],:"\\-01.etn \n\u0000x');
    const value = fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()));
    fc.assert(
      fc.property(value, fc.nat(), noise, fc.boolean(), (v, at, ch, drop) => {
        const good = JSON.stringify(v, null, at % 3);
        const k = at % (good.length + 1);
        const text = good.slice(0, k) + (drop ? "" : ch) + good.slice(drop ? k + 1 : k);
        if (!/^\s*[[{]/.test(text)) return;
        const found = jsonSyntaxError(text);
        let message: string | undefined;
        try {
          JSON.parse(text);
        } catch (e) {
          message = (e as Error).message;
        }
        if (message === undefined) expect(found).toBeNull();
        // Two values one after another are a stream to the scanner, an error to JSON.parse.
        else if (found === null) expect(message).toMatch(/after JSON/);
        else {
          const offset = /at position (\d+)/.exec(message)?.[1];
          if (offset !== undefined && !/after JSON/.test(message)) expect(found.offset).toBe(Number(offset));
        }
      }),
      { numRuns: 3000, seed: 20240101 },
    );
  });
});
