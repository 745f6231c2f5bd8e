/**
 * A rule shape: one kind of rule kube-proxy writes, described once, in kube-proxy's argument
 * order, with slots where its values go. Both printers (restore text, save text) and the rule
 * objects are filled from one description and one list of values.
 *
 * @module
 */

/**
 * What a slot holds. The kind says how its value prints in each form and which values keep the
 * shape's structure (a `/0` CIDR or an address list does not: such values take the general path).
 *
 * - `chain`: a chain name as a `-j` target or `--name` (printed as given in both forms);
 * - `comment`: a comment's text (quoted as needed; the kernel keeps 255 bytes of it);
 * - `protocol`: `tcp`, `udp` or `sctp` (it selects the match module, so it is part of the
 *   shape's save layout: one derived layout per protocol);
 * - `address`: one host address (`-d 10.96.0.10` saves as `-d 10.96.0.10/32`);
 * - `cidr`: one network (`-s 10.0.0.0/8`);
 * - `port`: a decimal port;
 * - `probability`: `--probability` text (the kernel stores 1/2^31 steps);
 * - `seconds`: a positive decimal (`--seconds`);
 * - `destination`: a DNAT `--to-destination` (`ip:port`, `[ip6]:port`);
 * - `interface`: an interface name or `prefix+`;
 * - `word`: any other single argument printed as given in both forms (nfacct names, marks).
 */
export type SlotKind =
  | "chain"
  | "comment"
  | "protocol"
  | "address"
  | "cidr"
  | "port"
  | "probability"
  | "seconds"
  | "destination"
  | "interface"
  | "word";

/**
 * A place in a shape's arguments filled from the values list.
 *
 * @example
 * const destination: Slot = { slot: 2, kind: "address" };
 */
export interface Slot {
  /** Index into the values list (one value may fill several places, e.g. the protocol). */
  readonly slot: number;
  /** What the value is. */
  readonly kind: SlotKind;
}

/** One argument of a shape: literal text, or a slot. */
export type ShapeArgument = string | Slot;

/**
 * One rule shape.
 *
 * @example
 * const jump: RuleShape = ruleShape("jump", ["-j", { slot: 0, kind: "chain" }]);
 */
export interface RuleShape {
  /** A short name for messages and tests (`"cluster IP jump"`). */
  readonly name: string;
  /** The arguments after `-A CHAIN`, in kube-proxy's order. */
  readonly args: readonly ShapeArgument[];
  /** How many values fill it (one more than the highest slot index). */
  readonly slots: number;
  /** The kind of each slot, by index. */
  readonly kinds: readonly SlotKind[];
  /**
   * Its target: the name after its last `-j` when that is literal text, the slot there (a
   * number), or `null` when it has no `-j`.
   */
  readonly jump: string | number | null;
  /** The slots it prints that hold free text (`comment`, `word`, `interface`), in order. */
  readonly freeSlots: readonly number[];
}
