// Serves playground/dist on 127.0.0.1 (PORT, default 8080): a static server with no other route.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "dist");
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Starts the server on 127.0.0.1:port (0 picks a free port); resolves to the server once listening. */
export function servePlayground(port = 8080) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(root, path === "/" ? "index.html" : path);
    const type = TYPES[extname(file)];
    if (!file.startsWith(root) || type === undefined) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await servePlayground(Number(process.env.PORT ?? 8080));
  const { port } = server.address();
  console.log(`kube-iptables playground: http://127.0.0.1:${port}/`);
}
