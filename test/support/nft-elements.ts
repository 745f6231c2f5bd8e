// nft prints the elements of a set or map in the kernel's hash order, kube-proxy's writer in its
// own: comparisons of rulesets sort them first.

/** `text` with the elements inside `elements = { … }` and `map { … }` / `vmap { … }` sorted. */
export function sortNftElements(text: string): string {
  const sorted = (body: string): string =>
    body
      .split(",")
      .map((e) => e.trim())
      .filter(Boolean)
      .sort()
      .join(", ");
  return text
    .replace(/elements = \{([^}]*)\}/g, (_, body: string) => `elements = { ${sorted(body)} }`)
    .replace(/(vmap|map) \{([^}@]*)\}/g, (_, kw: string, body: string) => `${kw} { ${sorted(body)} }`);
}
