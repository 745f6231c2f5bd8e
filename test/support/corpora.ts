// The conformance corpora under test/fixtures/, one reader each: the only code that lists a
// corpus's vectors and parses them (each file once per test process). Test files ask here for
// the vectors; none of them lists or reads a corpus folder itself. Each vector is the stored
// document as it is (tests hand it to the library as input); what the reader adds (where it comes
// from, which profile reproduces it) is kept out of its enumerable keys.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Backend, EndpointSlice, ProxyConfigInput, Service } from "../../src/index.js";
import { FIXTURES, readJson } from "./fixtures.js";

/** The folders of kube-proxy iptables-mode vectors: v1.30.5 and v1.22.17. */
export type KubeProxyCorpus = "kube-proxy" | "kube-proxy-v1.22";

/** One vector of fixtures/kube-proxy or fixtures/kube-proxy-v1.22. */
export interface KubeProxyVector {
  /** The vector's name (its file name without extension). */
  readonly name: string;
  /** The folder it comes from. */
  readonly corpus: KubeProxyCorpus;
  /** The profile that reproduces it (`v1.22` for the v1.22 corpus). */
  readonly profile: "v1.30" | "v1.22";
  readonly path: string;
  readonly description: string;
  readonly config: Record<string, unknown>;
  readonly services: unknown[];
  readonly endpointSlices: unknown[];
  /** kube-proxy's restore payload, the full state in its order, and iptables-save after loading it. */
  readonly expected: { readonly restore: string; readonly full: string; readonly save: string };
}

/** One vector of fixtures/kube-proxy-nft (the nftables proxier of v1.30.5). */
export interface NftVector {
  /** The stored name (`nft-` and the file name). */
  readonly name: string;
  /** The file name without extension. */
  readonly id: string;
  readonly path: string;
  readonly config: Record<string, unknown>;
  readonly services: unknown[];
  readonly endpointSlices: unknown[];
  readonly expected: {
    readonly transaction: string;
    readonly dump: string;
    readonly ruleset?: string;
    readonly nftError?: string;
    readonly loadNote?: string;
  };
}

/** One step of a sequence: the objects kube-proxy saw, and what it wrote and the kernel saved. */
export interface SequenceStep {
  readonly services: Service[];
  readonly endpointSlices: EndpointSlice[];
  readonly expected: { readonly restore: string; readonly save: string };
}

/** One vector of fixtures/kube-proxy-sequences: successive syncs of one kube-proxy. */
export interface SequenceVector {
  /** The stored name (the file name without extension). */
  readonly name: string;
  readonly path: string;
  readonly config: ProxyConfigInput;
  readonly steps: readonly SequenceStep[];
}

/** One accepted input of fixtures/iptables-save (iptables 1.8.9): restored, then saved. */
export interface SaveFixture {
  /** The file name, with its extension. */
  readonly file: string;
  readonly path: string;
  readonly name: string;
  readonly family: "ipv4" | "ipv6";
  readonly backend: Backend;
  readonly saveCommand: string;
  readonly input: string;
  readonly save: string;
  readonly saveByTable: Record<string, string>;
  /** A command run before the restore, where the fixture needed one. */
  readonly setup?: unknown;
}

/** One input of fixtures/iptables-save/rejected: what iptables-restore did with it. */
export interface RejectedFixture {
  /** The file name, with its extension (`<case>.<ipv4|ipv6>.<nft|legacy>.json`). */
  readonly file: string;
  readonly name: string;
  readonly family: "ipv4" | "ipv6";
  readonly backend: Backend;
  readonly input: string;
  readonly accepted: boolean;
  readonly exitCode: number;
  readonly stderr: string;
}

const cache = new Map<string, unknown>();

/** `doc` with `meta` added as non-enumerable properties: spreading or validating it sees the stored document only. */
function withMeta<T extends object, M extends object>(doc: T, meta: M): T & M {
  for (const [key, value] of Object.entries(meta))
    Object.defineProperty(doc, key, { value, enumerable: false });
  return doc as T & M;
}

function once<T>(key: string, read: () => T): T {
  if (!cache.has(key)) cache.set(key, read());
  return cache.get(key) as T;
}

/** `{name, path}` of every `.json` / `.json.gz` file of a folder, sorted by file name. */
function listFolder(folder: string): { name: string; path: string }[] {
  const dir = join(FIXTURES, folder);
  return readdirSync(dir)
    .filter((f) => /\.json(\.gz)?$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/\.json(\.gz)?$/, ""), path: join(dir, f) }));
}

/**
 * Every vector of a kube-proxy iptables corpus, in file-name order.
 *
 * @example kubeProxyVectors("kube-proxy-v1.22")[0]?.profile // "v1.22"
 */
export function kubeProxyVectors(corpus: KubeProxyCorpus): readonly KubeProxyVector[] {
  return once(corpus, () =>
    listFolder(corpus).map(({ path }) =>
      withMeta(readJson<Omit<KubeProxyVector, "corpus" | "profile" | "path">>(path), {
        corpus,
        profile: corpus === "kube-proxy-v1.22" ? ("v1.22" as const) : ("v1.30" as const),
        path,
      }),
    ),
  );
}

/**
 * One vector of a kube-proxy corpus by name; throws when there is none.
 *
 * @example kubeProxyVector("kube-proxy", "large-1").expected.save
 */
export function kubeProxyVector(corpus: KubeProxyCorpus, name: string): KubeProxyVector {
  const found = kubeProxyVectors(corpus).find((v) => v.name === name);
  if (found === undefined) throw new Error(`no vector ${corpus}/${name}`);
  return found;
}

/** Every vector of fixtures/kube-proxy-nft. */
export function nftVectors(): readonly NftVector[] {
  return once("kube-proxy-nft", () =>
    listFolder("kube-proxy-nft").map(({ name, path }) =>
      withMeta(readJson<Omit<NftVector, "id" | "path">>(path), { id: name, path }),
    ),
  );
}

/** Every sequence of fixtures/kube-proxy-sequences. */
export function sequenceVectors(): readonly SequenceVector[] {
  return once("kube-proxy-sequences", () =>
    listFolder("kube-proxy-sequences").map(({ path }) =>
      withMeta(readJson<Omit<SequenceVector, "path">>(path), { path }),
    ),
  );
}

/** Every accepted input of fixtures/iptables-save. */
export function saveFixtures(): readonly SaveFixture[] {
  return once("iptables-save", () =>
    listFolder("iptables-save").map(({ name, path }) =>
      withMeta(readJson<Omit<SaveFixture, "file" | "path">>(path), { file: `${name}.json`, path }),
    ),
  );
}

/** Every input of fixtures/iptables-save/rejected. */
export function rejectedSaveFixtures(): readonly RejectedFixture[] {
  return once("iptables-save/rejected", () =>
    listFolder(join("iptables-save", "rejected")).map(({ name, path }) => {
      const [, family, backend] = name.split(".") as [string, "ipv4" | "ipv6", Backend];
      return {
        ...readJson<Omit<RejectedFixture, "file" | "family" | "backend">>(path),
        file: `${name}.json`,
        family,
        backend,
      };
    }),
  );
}

/**
 * Every document of every corpus, labelled `<folder>/<name>`: the vectors above as they are read,
 * for tests that harvest rules texts or rule lines from all of them.
 */
export function corpusDocuments(): { readonly name: string; readonly value: unknown }[] {
  const doc = (folder: string, name: string, value: unknown) => ({ name: `${folder}/${name}`, value });
  return [
    ...kubeProxyVectors("kube-proxy").map((v) => doc("kube-proxy", v.name, v)),
    ...kubeProxyVectors("kube-proxy-v1.22").map((v) => doc("kube-proxy-v1.22", v.name, v)),
    ...sequenceVectors().map((v) => doc("kube-proxy-sequences", v.name, v)),
    ...saveFixtures().map((v) => doc("iptables-save", v.file, v)),
    ...rejectedSaveFixtures().map((v) => doc("iptables-save/rejected", v.file, v)),
  ];
}

/** The worked examples of the spec (fixtures/spec-examples/*.txt), by file name. */
export function specExamples(): readonly { readonly name: string; readonly text: string }[] {
  return once("spec-examples", () => {
    const dir = join(FIXTURES, "spec-examples");
    return readdirSync(dir)
      .filter((f) => f.endsWith(".txt") && statSync(join(dir, f)).isFile())
      .sort()
      .map((f) => ({ name: f, text: readFileSync(join(dir, f), "utf8") }));
  });
}
