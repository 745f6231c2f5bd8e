/**
 * The one error module. Every stage collects {@link Problem}s; only the convenience calls throw,
 * and they throw one {@link KubeIptablesError} that lists them all.
 *
 * @module
 */
import { oneLine } from "./one-line.js";

/**
 * What kind of problem a {@link Problem} is.
 *
 * @example
 * const codes: ErrorCode[] = prepareCluster(input).problems.map((p) => p.code); // e.g. ["REQUIRED", "INVALID_VALUE"]
 */
export type ErrorCode =
  /** A required field is missing or empty. */
  | "REQUIRED"
  /** A field has the wrong JSON type. */
  | "TYPE"
  /** A value is not valid for its field (bad IP, port out of range, unknown protocol …). */
  | "INVALID_VALUE"
  /** A value that must be unique is repeated. */
  | "DUPLICATE"
  /** A Kubernetes object of a kind this library does not read. */
  | "UNKNOWN_KIND"
  /** A value that cannot be written into rule text safely. */
  | "UNSAFE_TEXT"
  /** The input file is not JSON or YAML, or is empty. */
  | "MALFORMED_INPUT"
  /** iptables text that cannot be parsed. */
  | "PARSE"
  /** kube-proxy would skip the object silently (reported as a warning). */
  | "SKIPPED"
  /** Objects of kinds (or apiVersions) kube-proxy does not read, left out: one note (a warning) names them. */
  | "OTHER_KIND";

/**
 * One problem with the input, located by a JSON path (`services[2].spec.ports[0].port`) or a line.
 *
 * @example
 * const { problems } = prepareCluster({ services: [{ metadata: { name: "web" }, spec: { ports: [{ port: 70000 }] } }] });
 * const bad = problems.find((p) => p.code === "INVALID_VALUE");
 * // { code: "INVALID_VALUE", path: "services[0].spec.ports[0].port", message: "70000 is not a port number (1-65535)", severity: "error" }
 * formatProblem(bad!) // "services[0].spec.ports[0].port: 70000 is not a port number (1-65535)"
 */
export interface Problem {
  /** What kind of problem. */
  readonly code: ErrorCode;
  /** JSON path from the input's root, or `""` for the whole input. */
  readonly path: string;
  /** A sentence about the value, without the path. */
  readonly message: string;
  /** `error` makes the input (or the object) unusable; `warning` reports what kube-proxy skips. */
  readonly severity: "error" | "warning";
  /** 1-based line, for text input. */
  readonly line?: number;
  /** 1-based column, for text input. */
  readonly column?: number;
  /** The file (or other named source) the problem is in, when the input came from several. */
  readonly source?: string;
}

/**
 * Formats a problem as one line: `path: message`, or `line:column: message` for text; after its
 * source when it has one (`b.yaml: items[3].spec: …`, `b.yaml:3:5: …`). Control characters are
 * escaped (see `oneLine`): a parse message quotes the input raw, as iptables does.
 *
 * @example
 * formatProblem({ code: "PARSE", path: "", message: "unable to initialize table 'filter\r'",
 *   severity: "error", line: 1, column: 2 })
 * // "1:2: unable to initialize table 'filter\\r'"
 */
export function formatProblem(problem: Problem): string {
  const { source } = problem;
  let line: string;
  if (problem.line !== undefined) {
    line = `${source === undefined ? "" : `${source}:`}${problem.line}:${problem.column ?? 1}: ${problem.message}`;
  } else {
    const where =
      source === undefined ? problem.path : problem.path === "" ? source : `${source}: ${problem.path}`;
    line = where === "" ? problem.message : `${where}: ${problem.message}`;
  }
  return oneLine(line);
}

/**
 * The error every throwing call of this library throws. `problems` holds every problem found,
 * `code` and `path` repeat the first one.
 *
 * @example
 * try { modelFromKubernetes(input) } catch (e) {
 *   if (e instanceof KubeIptablesError) console.error(e.problems.map(formatProblem).join("\n"));
 * }
 */
export class KubeIptablesError extends Error {
  /** The first problem's code. */
  readonly code: ErrorCode;
  /** The first problem's path. */
  readonly path: string;
  /** Every problem (errors only, unless the caller chose otherwise). */
  readonly problems: readonly Problem[];

  /** Builds the error from at least one problem. */
  constructor(problems: readonly Problem[]) {
    const first = problems[0];
    super(
      first === undefined
        ? "invalid input"
        : problems.length === 1
          ? formatProblem(first)
          : `${formatProblem(first)} (and ${problems.length - 1} more)`,
    );
    this.name = "KubeIptablesError";
    this.code = first?.code ?? "INVALID_VALUE";
    this.path = first?.path ?? "";
    this.problems = problems;
  }
}

/** Builds an error-severity problem. */
export function problem(code: ErrorCode, path: string, message: string): Problem {
  return { code, path, message, severity: "error" };
}

/** Builds a warning-severity problem. */
export function warning(code: ErrorCode, path: string, message: string): Problem {
  return { code, path, message, severity: "warning" };
}
