/**
 * Model → `iptables-save` text without the state object: byte for byte
 * `formatSave(generateState(model, options))`. Each service port's writers print into the save
 * sink, which prints every rule in save form from its shape and values (`saveText`); the few
 * rules that are not a port's (the jumps, the fixed chains) are printed as rules. The lines are
 * kept per chain as flat strings until every chain is known, then printed in `iptables-save`'s
 * order.
 *
 * @module
 */

import type { Backend } from "../../ir/canonical-types.js";
import { compareChainNames, sortByChainName } from "../../ir/chain-sort.js";
import { BUILTIN_CHAINS, type IPFamily, type Rule, ruleTarget } from "../../ir/types.js";
import type { ClusterModel } from "../../model/types.js";
import { sortServicePorts } from "../../plan/service-port-order.js";
import { builtinJumps, jumpTargetChains } from "../base-chains.js";
import { createContext } from "../context.js";
import { arePlainLines, isPlainValue } from "../plain-lines.js";
import { saveLinesOfRule } from "../print/save.js";
import { TextRuns } from "../print/text-runs.js";
import { matchSaveLine } from "../shape/match.js";
import { fastSaveLine, type SaveForm, saveText } from "../shape/print.js";
import type { PortRuleSink } from "../shape/sink.js";
import type { RuleShape } from "../shape/types.js";
import { type GenerateOptions, payloadHead, payloadTail } from "./rules.js";
import { writePort } from "./write-port.js";

/**
 * Options of {@link generateSaveText}.
 *
 * @example
 * generateSaveText(model, { tables: ["nat"], counters: false }); // the nat table only, without [0:0]
 */
export interface SaveTextOptions extends GenerateOptions {
  /** Backend to imitate where nft and legacy print differently (spec §12); default `"nft"`. */
  readonly backend?: Backend;
}

/** A chain of the table being printed: its runs of save lines, and whether it is declared. */
class ChainText extends TextRuns {
  /** Declared by the jumps or the payload (and not a built-in chain). */
  declared = false;
  /** Deleted by the payload (`-X`). */
  deleted = false;
  /** When the text is indexed: each line's target code as written (see {@link SaveTextChain.targets}). */
  targets: number[] | null = null;
  /** When the text is indexed: whether its lines are plain (see plain-lines.ts). */
  plain = true;

  /**
   * @param name - The chain's name.
   * @param serial - Its number among the table's chain objects, in the order they were made: a
   *   line that jumps to it records this number (its place is known only once chains are sorted).
   *   -1 when the text is not indexed.
   */
  constructor(
    readonly name: string,
    readonly serial: number,
  ) {
    super();
  }

  /** Records the target code of the next `lines` lines. */
  target(code: number, lines: number): void {
    this.targets ??= [];
    for (let i = 0; i < lines; i++) this.targets.push(code);
  }
}

/** @internal The code of a line without a target (see {@link SaveTextChain.targets}). */
export const NO_TARGET = -1;

/**
 * @internal The place in {@link SaveTextChains.targetNames} of a target recorded by name, from
 * its code (-2 is the first; the same mapping turns a place into its code).
 */
export function namedTargetPlace(code: number): number {
  return -2 - code;
}

/** How many lines a string of whole lines holds. */
function lineCount(lines: string): number {
  let n = 0;
  for (let at = lines.indexOf("\n"); at >= 0; at = lines.indexOf("\n", at + 1)) n++;
  return n;
}

/**
 * One table of the state being printed: its chains and, per chain, its save lines so far.
 * Consecutive lines of one chain (a service chain's rules come in one run) are joined into one
 * flat string, so that ~320,000 lines are kept as about a third as many strings rather than a
 * concatenation tree each.
 */
class TableText {
  private readonly builtins: readonly string[];
  /** The chains named outside service port blocks (and, when indexing blocks, all), in first-seen order. */
  private readonly chains = new Map<string, ChainText>();
  /**
   * The chains the blocks declared, when blocks are not indexed by name: a block's chains are
   * its own (named by the hash of its service port), and its rules find them among the
   * block's hints, so 110,000 insertions into {@link chains} are spared. `print` checks that
   * no name came twice; if one did, it throws {@link SharedBlockChain} and the table is built
   * again with every chain indexed.
   */
  private readonly blockChains: ChainText[] = [];
  /** The current run: the pieces of consecutive lines of one chain, and that chain. */
  private readonly run: string[] = [];
  private runChain: ChainText | null = null;
  /**
   * The chains the current block declared, in order, and how many of them have had a run:
   * a block's rules come chain by chain in that order, so that most runs find their chain
   * here without a lookup by name (the ~110,000 chains of a 10k-service nat table make those
   * lookups slow).
   */
  private hints: ChainText[] = [];
  private hintAt = 0;
  /** The chain found by name last (KUBE-SERVICES, between one block's chains and the next's). */
  private found: ChainText | null = null;
  /** When indexing: where in the block's chains the next jump's target most likely is. */
  private targetAt = 0;

  private readonly form: SaveForm;

  /** When indexing: each chain object's name, by its serial (see {@link ChainText}). */
  private readonly serialNames: string[] = [];
  /** When indexing: the targets recorded by name, and each one's place there. */
  private readonly targetNames: string[] = [];
  private readonly targetNameCodes = new Map<string, number>();

  constructor(
    readonly name: string,
    private readonly family: IPFamily,
    private readonly canonicalOptions: { readonly backend: Backend },
    /** Whether block chains go into the name index (the safe, slower way; see {@link blockChains}). */
    private readonly indexBlocks: boolean,
    /** Whether the text is indexed: each line's target is then recorded (see {@link SaveTextChain.targets}). */
    private readonly recordTargets = false,
  ) {
    this.builtins = BUILTIN_CHAINS[name] ?? [];
    this.form = { family, backend: canonicalOptions.backend };
  }

  private chain(name: string): ChainText {
    let chain = this.chains.get(name);
    if (chain === undefined) {
      chain = this.newChain(name);
      this.chains.set(name, chain);
    }
    return chain;
  }

  /** A chain object; numbered only when the text is indexed (nothing else reads the number). */
  private newChain(name: string): ChainText {
    if (!this.recordTargets) return new ChainText(name, -1);
    const serial = this.serialNames.length;
    this.serialNames.push(name);
    return new ChainText(name, serial);
  }

  /** The code a line records for its target: a chain of the table by its serial, or a name's. */
  private targetCode(target: ChainText | string | null): number {
    if (target === null) return NO_TARGET;
    if (typeof target !== "string") return target.serial;
    let code = this.targetNameCodes.get(target);
    if (code === undefined) {
      code = namedTargetPlace(this.targetNames.length);
      this.targetNames.push(target);
      this.targetNameCodes.set(target, code);
    }
    return code;
  }

  /** Declares a user chain (built-in names are always there). */
  declare(name: string): void {
    if (!this.builtins.includes(name)) this.chain(name).declared = true;
  }

  /** Starts one service port's block: the chains it declares next are its own. */
  beginBlock(): void {
    this.hints = [];
    this.hintAt = 0;
    this.targetAt = 0;
  }

  /** Declares a chain of the current service port's block (its rules follow its declarations). */
  declareInBlock(name: string): void {
    if (this.builtins.includes(name)) return;
    let chain: ChainText | undefined;
    if (this.indexBlocks) chain = this.chain(name);
    else {
      chain = this.newChain(name);
      this.blockChains.push(chain);
    }
    chain.declared = true;
    this.hints.push(chain);
  }

  /** Deletes a declared chain (`-X`). */
  delete(name: string): void {
    this.chain(name).deleted = true;
  }

  /**
   * Appends a rule given as an object: the jumps and fixed chains' rules, and rules that have no
   * shape. The one place a rule that is not a shape's is printed in save form.
   */
  rule(rule: Rule): void {
    const run = this.runOf(rule.chain);
    const line = matchSaveLine(
      `-A ${rule.chain}`,
      rule.args,
      0,
      rule.args.length,
      this.family,
      this.canonicalOptions.backend,
    );
    const lines =
      line !== null ? [line] : saveLinesOfRule(rule.chain, rule.args, this.family, this.canonicalOptions);
    for (const line of lines) run.push(line, "\n");
    if (this.recordTargets) {
      const chain = this.runChain as ChainText;
      chain.target(this.targetCode(ruleTarget(rule.args)), lines.length);
      if (chain.plain) chain.plain = lines.every((line) => arePlainLines(`${line}\n`));
    }
  }

  /** Appends a rule of a shape, printed from its values (`saveText`). */
  shapeRule(shape: RuleShape, chain: string, values: readonly string[]): void {
    // One line from the shape's layout, else the general path's (maybe several).
    const line = fastSaveLine(shape, chain, values, this.form);
    const text = line !== null ? `${line}\n` : saveText(shape, chain, values, this.form);
    this.runOf(chain).push(text);
    // (Counting the lines of `text`, a concatenation, would flatten it into a copy.)
    if (this.recordTargets) this.recordShapeTarget(shape, values, line !== null ? 1 : lineCount(text));
  }

  /** Records the target of a shape's `lines` lines in the current run's chain. */
  private recordShapeTarget(shape: RuleShape, values: readonly string[], lines: number): void {
    const chain = this.runChain as ChainText;
    const jump = shape.jump;
    chain.target(
      this.targetCode(
        jump === null || typeof jump === "string" ? jump : this.targetChain(values[jump] as string),
      ),
      lines,
    );
    if (chain.plain)
      for (const k of shape.freeSlots) if (!isPlainValue(values[k] as string)) chain.plain = false;
  }

  /**
   * The chain a port's rule jumps to, when the port's block declared it (the chains of a block
   * are jumped to in the order they were declared: SVC, then each SEP), else its name. Only
   * the next two of the block's chains are tried, so that a port with many endpoints costs no
   * more per rule.
   */
  private targetChain(name: string): ChainText | string {
    const hints = this.hints;
    for (let k = this.targetAt, stop = Math.min(k + 2, hints.length); k < stop; k++) {
      if ((hints[k] as ChainText).name === name) {
        this.targetAt = k + 1;
        return hints[k] as ChainText;
      }
    }
    return name;
  }

  /** The pieces of the current run, after starting a new run if `chain` is not its chain. */
  private runOf(chain: string): string[] {
    if (this.runChain?.name !== chain) {
      this.endRun();
      this.runChain = this.chainOfRun(chain);
    }
    return this.run;
  }

  /**
   * The chain of a new run: the block's next chain, another chain of the block, the chain
   * found last, or found by name.
   */
  private chainOfRun(name: string): ChainText {
    const hints = this.hints;
    const hint = hints[this.hintAt];
    if (hint !== undefined && hint.name === name) {
      this.hintAt++;
      return hint;
    }
    // A block has a dozen chains at most (its SVC chain gets a second run, for its endpoints).
    for (let i = 0; i < hints.length; i++)
      if ((hints[i] as ChainText).name === name) return hints[i] as ChainText;
    if (this.found?.name === name) return this.found;
    const chain = this.chain(name);
    this.found = chain;
    return chain;
  }

  /** Joins the current run into one string of its chain. */
  private endRun(): void {
    const run = this.run;
    if (run.length === 0 || this.runChain === null) return;
    // A run of one piece (an endpoint chain's lines) is already one flat string.
    this.runChain.add(run.length === 1 ? (run[0] as string) : run.join(""));
    run.length = 0;
  }

  /**
   * Pushes the table's text to `out` as `formatSave` prints it: built-in chains in hook order,
   * user chains (declared and not deleted, or holding rules) sorted by byte-wise strcmp, the
   * rules grouped by chain in that order, then `COMMIT`.
   */
  print(out: string[], index: SaveTextIndexer | null = null): void {
    this.endRun();
    const { builtins, chains } = this;
    const names: string[] = [];
    const user: ChainText[] = [];
    const add = (chain: ChainText): void => {
      if (((chain.declared && !chain.deleted) || chain.hasRuns()) && !builtins.includes(chain.name)) {
        names.push(chain.name);
        user.push(chain);
      }
    };
    for (const chain of chains.values()) add(chain);
    for (let i = 0; i < this.blockChains.length; i++) add(this.blockChains[i] as ChainText);
    sortByChainName(names, user);
    if (!this.indexBlocks) {
      // Equal names are neighbours once sorted: one means two objects hold one chain's rules.
      for (let i = 1; i < names.length; i++) if (names[i] === names[i - 1]) throw new SharedBlockChain();
    }
    let head = `*${this.name}\n`;
    for (const name of builtins) head += `:${name} ACCEPT [0:0]\n`;
    // One join for all the user chains' lines (~110,000 in a 10k-service nat table).
    const declarations = names.length > 0 ? `:${names.join(" - [0:0]\n:")} - [0:0]\n` : "";
    out.push(head);
    if (declarations !== "") out.push(declarations);
    if (index === null) {
      for (const name of builtins) chains.get(name)?.pushTo(out);
      for (let i = 0; i < user.length; i++) (user[i] as ChainText).pushTo(out);
    } else {
      // The same pieces, with where each chain's rules land (the text is not read again).
      const start = index.offset + head.length;
      index.offset += head.length + declarations.length;
      const placed = new SaveTextChains(builtins.length, this.serialNames, this.targetNames);
      if (declarations !== "")
        placed.declarations = { start, end: start + declarations.length, first: builtins.length };
      for (const name of builtins) index.place(placed, name, "ACCEPT", chains.get(name), out);
      for (let i = 0; i < user.length; i++) index.place(placed, names[i] as string, null, user[i], out);
      index.tables.set(this.name, placed);
      index.offset += "COMMIT\n".length;
    }
    out.push("COMMIT\n");
  }
}

/**
 * Where one chain of generated save text is: what a diff needs to compare a node's dump with it
 * chain by chain without reading the text again (see {@link generateIndexedSaveText}).
 */
export interface SaveTextChain {
  /** `ACCEPT`/`DROP` for a built-in chain, `null` for a user chain. */
  readonly policy: string | null;
  /** Where its first `-A` line starts (its rules are one run of lines), or -1 when it has none. */
  readonly start: number;
  /** Where the newline after its last `-A` line is (-1 when it has none). */
  readonly end: number;
  /** How many rules (lines) it holds. */
  readonly count: number;
  /** Its place among its table's chains (declaration order: built-in chains first). */
  readonly index: number;
  /**
   * @internal Per line, its target as the writer gave it, when the text was indexed, as a code
   * that {@link SaveTextChains.targetOf} reads: -1 for none, from 0 a chain of the same table
   * (by the writer's serial: see {@link SaveTextChains.serialIndex}), from -2 down a name of
   * {@link SaveTextChains.targetNames}. Small integers, so that the parser reading a node's
   * dump against this text takes 320,000 of them without loading an object for each.
   */
  readonly targets?: readonly number[];
  /** @internal Whether its lines hold nothing read otherwise than as written (see plain-lines.ts). */
  readonly plain?: boolean;
}

/**
 * A rule's target as the save-text writer recorded it: a chain of the same text (its `index`
 * among the table's chains once printed, -1 if it is not), its name, or `null` (no target).
 *
 * @example
 * const target: SaveTextTarget = "KUBE-MARK-MASQ";
 */
export type SaveTextTarget = { readonly index: number; readonly name: string } | string | null;

/**
 * Save text with, per table, its chains in declaration order and where each one's rules are.
 *
 * @example
 * const { text, tables } = generateIndexedSaveText(model);
 * const chain = tables.get("nat")?.get("KUBE-SERVICES");
 * text.slice(chain.start, chain.end).split("\n").length === chain.count // true
 */
export interface IndexedSaveText {
  /** The text: byte for byte {@link generateSaveText}'s. */
  readonly text: string;
  /** Per table, its chains in the order the text declares them. */
  readonly tables: ReadonlyMap<string, SaveTextChains>;
}

/**
 * The chains of one table of generated save text, in declaration order. A 10k-service nat table
 * has ~110,000; its users (a diff, the parser reading a node's dump) look them up by name in that
 * same order, so a lookup tries the few chains after the last one found first, and only then
 * searches the sorted names (no map of 110,000 names is built).
 *
 * @example
 * const nat = generateIndexedSaveText(model).tables.get("nat");
 * nat?.get("KUBE-SERVICES")?.index // its place among the nat table's chains
 */
export class SaveTextChains implements ReadonlyMap<string, SaveTextChain> {
  /** The chains' names, in order. */
  readonly names: string[] = [];
  /** The chains, in order (`chains[k].index === k`). */
  readonly chains: SaveTextChain[] = [];
  /** Where the next lookup starts (just after the last chain found). */
  private near = 0;
  /**
   * @internal Where the `:CHAIN - [0:0]` lines of its user chains are in the text (from `start`
   * to `end`, one line per chain, in the chains' order from `first` on), when it has any.
   */
  declarations: { readonly start: number; readonly end: number; readonly first: number } | null = null;

  /**
   * @internal Per chain object of the writer (by its serial, as a line's target code names it):
   * its place among the chains (-1: not printed).
   */
  readonly serialIndex: Int32Array;

  /**
   * @param builtins - How many of the chains are the table's built-in ones (placed first).
   * @param serialNames - The names of the writer's chain objects, by serial.
   * @param targetNames - The targets lines recorded by name, by their place (code -2 - place).
   */
  constructor(
    private readonly builtins: number,
    /** @internal */ readonly serialNames: readonly string[] = [],
    /** @internal */ readonly targetNames: readonly string[] = [],
  ) {
    this.serialIndex = new Int32Array(serialNames.length).fill(-1);
  }

  /**
   * @internal What a line's target code (see {@link SaveTextChain.targets}) stands for.
   *
   * @example
   * chains.targetOf(-1) // null
   */
  targetOf(code: number): SaveTextTarget {
    if (code === NO_TARGET) return null;
    if (code >= 0) return { index: this.serialIndex[code] as number, name: this.serialNames[code] as string };
    return this.targetNames[namedTargetPlace(code)] as string;
  }

  /** How many chains. */
  get size(): number {
    return this.names.length;
  }

  /** Adds the next chain (while the text is printed). */
  add(name: string, chain: SaveTextChain): void {
    this.names.push(name);
    this.chains.push(chain);
  }

  private find(name: string): SaveTextChain | undefined {
    const names = this.names;
    const stop = Math.min(this.near + 8, names.length);
    for (let k = this.near; k < stop; k++) {
      if (names[k] === name) {
        this.near = k + 1;
        return this.chains[k];
      }
    }
    // The built-in chains come first, the others sorted as iptables-save sorts them.
    let lo = 0;
    for (; lo < names.length && lo < this.builtins; lo++) if (names[lo] === name) break;
    if (lo === this.builtins) {
      let hi = names.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareChainNames(names[mid] as string, name) < 0) lo = mid + 1;
        else hi = mid;
      }
    }
    if (names[lo] !== name) return undefined;
    this.near = lo + 1;
    return this.chains[lo];
  }

  /** The chain `name`, if the table has it. */
  get(name: string): SaveTextChain | undefined {
    return this.find(name);
  }

  /** Whether the table has the chain `name`. */
  has(name: string): boolean {
    return this.find(name) !== undefined;
  }

  /** Calls `f` with each chain and its name, in order. */
  forEach(f: (chain: SaveTextChain, name: string, map: ReadonlyMap<string, SaveTextChain>) => void): void {
    for (let k = 0; k < this.names.length; k++)
      f(this.chains[k] as SaveTextChain, this.names[k] as string, this);
  }

  /** The names and chains, in order. */
  *entries(): MapIterator<[string, SaveTextChain]> {
    for (let k = 0; k < this.names.length; k++)
      yield [this.names[k] as string, this.chains[k] as SaveTextChain];
  }

  /** The names, in order. */
  keys(): MapIterator<string> {
    return this.names.values();
  }

  /** The chains, in order. */
  values(): MapIterator<SaveTextChain> {
    return this.chains.values();
  }

  [Symbol.iterator](): MapIterator<[string, SaveTextChain]> {
    return this.entries();
  }
}

/** Counts the pieces pushed while tables print, and where each chain's rules start and end. */
class SaveTextIndexer {
  offset = 0;
  readonly tables = new Map<string, SaveTextChains>();

  /** Pushes a chain's runs to `out` and records where they are (a line per recorded target). */
  place(
    placed: SaveTextChains,
    name: string,
    policy: string | null,
    chain: ChainText | undefined,
    out: string[],
  ): void {
    const start = this.offset;
    const index = placed.size;
    if (chain !== undefined) placed.serialIndex[chain.serial] = index;
    if (chain !== undefined) {
      const from = out.length;
      chain.moveTo(out);
      for (let i = from; i < out.length; i++) this.offset += (out[i] as string).length;
    }
    const end = this.offset - 1;
    // A chain with lines has a recorded target per line (every rule path records them here).
    const targets = chain?.targets ?? [];
    placed.add(
      name,
      end < start
        ? { policy, start: -1, end: -1, count: 0, index }
        : { policy, start, end, count: targets.length, index, targets, plain: (chain as ChainText).plain },
    );
  }
}

/** The save sink: a service port's writers print straight into the two tables. */
class SaveSink implements PortRuleSink {
  constructor(
    private readonly filterTable: TableText,
    private readonly natTable: TableText,
    /** The payload's nat chains, for the stale-chain check (when it will be asked). */
    private readonly active: Set<string> | null,
  ) {}

  filter(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#write(this.filterTable, shape, chain, values);
  }

  jump(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#write(this.natTable, shape, chain, values);
  }

  chain(name: string): void {
    this.natTable.declareInBlock(name);
    this.active?.add(name);
  }

  rule(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#write(this.natTable, shape, chain, values);
  }

  #write(table: TableText, shape: RuleShape, chain: string, values: readonly string[]): void {
    table.shapeRule(shape, chain, values);
  }
}

/**
 * Thrown by `TableText.print` when a chain was declared by two blocks, or named outside its
 * block (only a model with two service ports of one name and protocol does that).
 */
class SharedBlockChain extends Error {}

/**
 * The kernel state after kube-proxy's first full sync on an empty kernel, as `iptables-save`
 * prints it: byte for byte `formatSave(generateState(model, options), { backend })`, in a
 * fraction of the time and memory (no rule objects, no canonical objects for kube-proxy's rule
 * shapes).
 *
 * @param model - The cluster model.
 * @param options - Stale chains to delete, profile traits, and the backend to imitate.
 * @returns The filter and nat tables, each line ending in a newline.
 * @throws KubeIptablesError when a rule cannot be printed (iptables would refuse it).
 * @example
 * generateSaveText(model) === formatSave(generateState(model)) // true
 * generateSaveText(model).startsWith("*filter\n:INPUT ACCEPT [0:0]\n") // true
 */
export function generateSaveText(model: ClusterModel, options: SaveTextOptions = {}): string {
  return printOrRetry(model, options, null);
}

/**
 * {@link generateSaveText} with where each chain's rules are in the text, recorded as it is
 * printed: a diff of a node's dump against a model compares them chain by chain.
 *
 * @param model - The cluster model.
 * @param options - As {@link generateSaveText}'s.
 * @returns The text and its index.
 * @throws KubeIptablesError when a rule cannot be printed (iptables would refuse it).
 * @example
 * generateIndexedSaveText(model).text === generateSaveText(model) // true
 * generateIndexedSaveText(model).tables.get("nat")?.get("KUBE-SERVICES")?.count // its rules
 */
export function generateIndexedSaveText(model: ClusterModel, options: SaveTextOptions = {}): IndexedSaveText {
  const index = new SaveTextIndexer();
  const text = printOrRetry(model, options, index);
  return { text, tables: index.tables };
}

function printOrRetry(model: ClusterModel, options: SaveTextOptions, index: SaveTextIndexer | null): string {
  try {
    return printSaveText(model, options, false, index);
  } catch (error) {
    if (!(error instanceof SharedBlockChain)) throw error;
    if (index !== null) {
      index.offset = 0;
      index.tables.clear();
    }
    return printSaveText(model, options, true, index);
  }
}

/** {@link generateSaveText}, with block chains indexed by name or not (see `TableText`). */
function printSaveText(
  model: ClusterModel,
  options: SaveTextOptions,
  indexBlocks: boolean,
  index: SaveTextIndexer | null,
): string {
  const ctx = createContext(model, options.traits);
  const canonicalOptions = { backend: options.backend ?? "nft" } as const;
  const filter = new TableText("filter", ctx.family, canonicalOptions, indexBlocks, index !== null);
  const nat = new TableText("nat", ctx.family, canonicalOptions, indexBlocks, index !== null);
  const existingChains = options.existingChains ?? [];
  // The payload's nat chains, for the stale-chain check; only kept when it will be asked.
  const active = existingChains.length > 0 ? new Set<string>() : null;

  // The jumps are inserted at the top of the built-in chains, so the last one ends up first.
  const jumps = builtinJumps(ctx.traits);
  for (let i = jumps.length - 1; i >= 0; i--) {
    const jump = jumps[i];
    if (jump?.table === "filter") filter.rule(jump.rule);
    else if (jump?.table === "nat") nat.rule(jump.rule);
  }
  const targets = jumpTargetChains(ctx.traits);
  for (const chain of targets.filter) filter.declare(chain);
  for (const chain of targets.nat) nat.declare(chain);

  const head = payloadHead(ctx);
  for (const decl of head.filterChains) filter.declare(decl.name);
  for (const rule of head.filterRules) filter.rule(rule);
  for (const decl of head.natChains) {
    nat.declare(decl.name);
    active?.add(decl.name);
  }
  for (const rule of head.natRules) nat.rule(rule);

  const sink = new SaveSink(filter, nat, active);
  for (const port of sortServicePorts(model.servicePorts)) {
    nat.beginBlock();
    writePort(port, ctx, sink);
  }

  const tail = payloadTail(ctx, existingChains, (chain) => active?.has(chain) === true);
  for (const rule of tail.filterRules) filter.rule(rule);
  for (const decl of tail.natChains) nat.declare(decl.name);
  for (const entry of tail.natEntries) {
    if (entry.kind === "chain" && entry.op === "-X") nat.delete(entry.chain);
    else if (entry.kind === "rule" && entry.op === "-A") nat.rule(entry);
  }

  const out: string[] = [];
  filter.print(out, index);
  nat.print(out, index);
  return out.join("");
}
