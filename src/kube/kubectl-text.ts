/**
 * kubectl's human-readable output given where objects are wanted: the table `kubectl get`
 * prints without `-o`, or what `kubectl describe` prints. Neither holds the objects' fields, and
 * YAML reads them as a string or as unknown keys, which made messages about cluster files; this
 * names what the text is and what to run instead.
 *
 * @module
 */

/**
 * A table's header line: `NAME` (or `NAMESPACE` with `-A`), then column titles in capitals,
 * which kubectl's tab writer separates by at least two spaces (a title may hold one space:
 * `NOMINATED NODE`).
 */
const TABLE_HEADER = /^(?:NAMESPACE|NAME)(?: {2,}[A-Z][-A-Z0-9()%/.]*(?: [A-Z][-A-Z0-9()%/.]*)*)+ *$/;
/** describe's first two lines for a namespaced object: `Name:` and `Namespace:`, values aligned. */
const DESCRIBE_NAME = /^Name:[ \t]+\S/;
const DESCRIBE_NAMESPACE = /^Namespace:[ \t]/;

/** Which human-readable output of kubectl a text is, with the line it is recognized on. */
export interface KubectlText {
  /** `table` (`kubectl get` without `-o`) or `describe`. */
  readonly form: "table" | "describe";
  /** The 1-based line of its first line. */
  readonly line: number;
  /** What it is and what to run instead. */
  readonly message: string;
}

/**
 * Whether YAML text is kubectl's table or describe output rather than objects; only its first
 * lines are read. Neither is ever a valid cluster file or object, so the answer only changes the
 * message for a text that is refused anyway.
 *
 * @example
 * kubectlTextForm("NAME   TYPE   CLUSTER-IP\nweb    ClusterIP   10.96.0.10\n")?.form // "table"
 * kubectlTextForm("Name:   web\nNamespace:   default\n")?.form                    // "describe"
 * kubectlTextForm("apiVersion: v1\nkind: Service\n")                              // undefined
 */
export function kubectlTextForm(text: string): KubectlText | undefined {
  let start = 0;
  let line = 1;
  // Blank lines above it (a copied terminal often starts with one) are passed over.
  for (;;) {
    const end = lineEnd(text, start);
    if (text.slice(start, end).trim() !== "" || end >= text.length) break;
    start = end + 1;
    line++;
  }
  const first = text.slice(start, lineEnd(text, start)).replace(/\r$/, "");
  if (TABLE_HEADER.test(first)) {
    return {
      form: "table",
      line,
      message:
        "this is the table 'kubectl get' prints, not the objects: run the command again with -o yaml (or -o json) and give what it prints",
    };
  }
  if (DESCRIBE_NAME.test(first)) {
    const nextStart = lineEnd(text, start) + 1;
    const second = text.slice(nextStart, lineEnd(text, nextStart));
    if (DESCRIBE_NAMESPACE.test(second)) {
      return {
        form: "describe",
        line,
        message:
          "this is what 'kubectl describe' prints, not the objects: run 'kubectl get' with -o yaml (or -o json) for the same objects and give what it prints",
      };
    }
  }
  return undefined;
}

/** The index of the newline ending the line that starts at `start`, or the text's length. */
function lineEnd(text: string, start: number): number {
  const nl = text.indexOf("\n", start);
  return nl < 0 ? text.length : nl;
}
