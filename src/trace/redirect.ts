/**
 * `-j REDIRECT`, as the kernel's nf_nat_redirect does it: a DNAT to the node itself. A locally
 * generated packet (nat OUTPUT) goes to the loopback address (127.0.0.1, ::1). A packet that
 * arrived (nat PREROUTING) goes to the first address of the interface it arrived on, and is
 * dropped when that interface has none (Calico's `cali*` veths, for one, carry no address).
 * Whether the interface has an address, and which, the rules do not say: the first is a fact
 * the path splits on, and the second is kept as a name (`the address of cbr0`) whose tests
 * (`-d`) are facts too. It is one of the node's addresses, so the packet is delivered locally.
 *
 * @module
 */
import type { CanonicalTarget, PortsTarget } from "../ir/canonical-types.js";
import { hostText } from "./addresses.js";
import type { Branch } from "./branch.js";
import { decide, type Fact } from "./conditions.js";
import type { MatchContext } from "./match.js";

/** Whether `target` is a REDIRECT the tracer follows (the nat table only, as the kernel allows). */
export function isRedirect(target: CanonicalTarget | null, ctx: MatchContext): target is PortsTarget {
  return target !== null && target.kind === "ports" && target.name === "REDIRECT" && ctx.table === "nat";
}

/** The name of the interface a packet arrived on, for the sentences. */
function interfaceName(ctx: MatchContext): string {
  return ctx.inInterface === null ? "the input interface" : ctx.inInterface;
}

/** The fact that the input interface has an address. */
function addressFact(ctx: MatchContext): Fact {
  return { kind: "interface-address", subject: interfaceName(ctx), test: "" };
}

/**
 * The fact a REDIRECT that matched still depends on (whether the input interface has an
 * address), or null when it is decided: a node's own packet, loopback, or an earlier split.
 *
 * @example
 * redirectFact(target, branch, ctx) // { kind: "interface-address", subject: "cbr0", test: "" }
 */
export function redirectFact(target: PortsTarget, b: Branch, ctx: MatchContext): Fact | null {
  if (ctx.fromNode || ctx.inInterface === "lo" || !portsFollowed(target)) return null;
  const f = addressFact(ctx);
  return decide(f, b.conditions) === null ? f : null;
}

/** A single port (or none): a range lets the kernel pick a free one, which the rules do not say. */
function portsFollowed(target: PortsTarget): boolean {
  return target.ports === null || target.ports.min === target.ports.max;
}

/**
 * Applies a REDIRECT to the path (its fact decided): `accept` (translated; the nat table is done),
 * `drop` (no address on the input interface), or why the tracer cannot follow it.
 *
 * @example
 * applyRedirect(target, branch, ctx) // "accept", branch.dnat = { address: "127.0.0.1", port: 15001 }
 */
export function applyRedirect(target: PortsTarget, b: Branch, ctx: MatchContext): "accept" | "drop" | string {
  if (!portsFollowed(target)) return "REDIRECT to a port range";
  if (ctx.fromNode || ctx.inInterface === "lo") {
    const loopback = ctx.family === "IPv4" ? [127, 0, 0, 1] : [...new Array<number>(15).fill(0), 1];
    b.dst = loopback;
    b.dstText = hostText(loopback);
  } else {
    if (decide(addressFact(ctx), b.conditions) === false) return "drop";
    b.dstAlias = `the address of ${interfaceName(ctx)}`;
    b.dst = new Array<number>(ctx.family === "IPv4" ? 4 : 16).fill(0);
    b.dstText = b.dstAlias;
  }
  if (target.ports !== null) b.dport = target.ports.min;
  b.dnat = { address: b.dstText, port: b.dport };
  return "accept";
}
