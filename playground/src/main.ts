// The playground page: paste Kubernetes objects or an iptables-save dump, set the node, and see
// the rules, each service port's picture, and a packet traced on it. Nothing leaves the page.
import EXAMPLE from "../../examples/cluster.yaml";
import { type Computed, compute, frontendOf, type NodeOptions, packetOf, picture, type Shown, trace } from "./engine.js";

function $<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`#${id} missing`);
  return el as T;
}

const input = $<HTMLTextAreaElement>("input");
const problems = $<HTMLUListElement>("problems");
const form = $<HTMLSpanElement>("form");
const services = $<HTMLSelectElement>("services");
const picturePane = $<HTMLDivElement>("picture");
const restore = $<HTMLPreElement>("restore");
const save = $<HTMLPreElement>("save");
const traceForm = $<HTMLFormElement>("trace");
const outcomes = $<HTMLOListElement>("outcomes");
const status = $<HTMLSpanElement>("status");

let current: Computed | null = null;
let drawing = 0;

function nodeOptions(): NodeOptions {
  const value = (id: string): string => $<HTMLInputElement>(id).value;
  return {
    hostname: value("hostname"),
    nodeIPs: value("node-ips"),
    clusterCIDR: value("cluster-cidr"),
    profile: value("profile") as NodeOptions["profile"],
    family: value("family") as NodeOptions["family"],
  };
}

/** Selects a line of the input (a problem's place). */
function selectLine(line: number): void {
  const text = input.value;
  let start = 0;
  for (let i = 1; i < line && start >= 0; i++) start = text.indexOf("\n", start) + 1;
  const end = text.indexOf("\n", start);
  input.focus();
  input.setSelectionRange(start, end < 0 ? text.length : end);
}

function showProblems(list: readonly Shown[]): void {
  problems.replaceChildren(
    ...list.map((p) => {
      const li = document.createElement("li");
      li.textContent = p.text;
      if (p.line !== null) {
        const line = p.line;
        li.className = "at-line";
        li.title = "select this line of the input";
        li.addEventListener("click", () => selectLine(line));
      }
      return li;
    }),
  );
  problems.hidden = list.length === 0;
}

/** Puts our SVG into the page as a document of its own (parsed as XML, never as HTML). */
function showSvg(svg: string): void {
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  picturePane.replaceChildren(document.importNode(doc.documentElement, true));
}

async function draw(withTrace: boolean): Promise<void> {
  const ticket = ++drawing;
  if (current?.state == null || services.value === "") {
    picturePane.replaceChildren();
    return;
  }
  let traced = null;
  outcomes.replaceChildren();
  if (withTrace) {
    const value = (id: string): string => $<HTMLInputElement>(id).value;
    try {
      const packet = packetOf(value("src"), value("dst"), value("proto"), value("from"));
      traced = trace(current.state, packet, current.nodeIPs);
    } catch (e) {
      const li = document.createElement("li");
      li.className = "error";
      li.textContent = (e as Error).message;
      outcomes.replaceChildren(li);
    }
    for (const o of traced?.outcomes ?? []) {
      const li = document.createElement("li");
      li.textContent = o.summary;
      outcomes.append(li);
    }
  }
  const svg = await picture(current.state, [services.value], traced);
  if (ticket === drawing) showSvg(svg);
}

function fillTrace(): void {
  if (current?.state == null || services.value === "") return;
  const frontend = frontendOf(current.state, services.value);
  if (frontend === null) return;
  $<HTMLInputElement>("dst").value = frontend.destination;
  $<HTMLSelectElement>("proto").value = frontend.protocol;
}

function update(): void {
  const started = performance.now();
  current = compute(input.value, nodeOptions());
  form.textContent =
    current.form === "cluster" ? "Kubernetes objects / cluster file" : `iptables rules (${current.form} form)`;
  showProblems(current.problems);
  restore.textContent = current.restore;
  save.textContent = current.save;
  const selected = services.value;
  services.replaceChildren(
    ...current.servicePorts.map((p) => {
      const option = document.createElement("option");
      option.value = p;
      option.textContent = p;
      return option;
    }),
  );
  if (current.servicePorts.includes(selected)) services.value = selected;
  fillTrace();
  outcomes.replaceChildren();
  status.textContent = `${current.servicePorts.length} service ports, ${Math.round(performance.now() - started)} ms`;
  void draw(false);
}

let timer: ReturnType<typeof setTimeout> | undefined;
function later(): void {
  clearTimeout(timer);
  timer = setTimeout(update, 250);
}

input.addEventListener("input", later);
for (const id of ["hostname", "node-ips", "cluster-cidr", "profile", "family"])
  $<HTMLElement>(id).addEventListener("input", later);
services.addEventListener("change", () => {
  fillTrace();
  void draw(false);
});
traceForm.addEventListener("submit", (e) => {
  e.preventDefault();
  void draw(true);
});
$<HTMLButtonElement>("example").addEventListener("click", () => {
  input.value = EXAMPLE;
  update();
});

const fit = $<HTMLInputElement>("fit");
fit.addEventListener("change", () => picturePane.classList.toggle("fit", fit.checked));

input.value = EXAMPLE;
update();
