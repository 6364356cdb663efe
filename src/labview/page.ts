// The lab view page: one self-contained document (no external assets, no framework). It
// subscribes to `<prefix>/events` and redraws from each model it receives; "follow a packet"
// asks `<prefix>/path`. Elements carry data-* attributes naming what they show, for tests and
// for anyone scripting the page.

const style = `
body { font: 14px system-ui, sans-serif; margin: 1em; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .3em; } h2 { font-size: 1.1em; margin: 1.2em 0 .4em; }
#status { color: #666; font-size: .9em; }
#nodes { display: flex; flex-wrap: wrap; gap: .8em; }
.node { border: 1px solid #889; border-radius: 6px; padding: .5em .7em; min-width: 15em; }
.node.notready { border-color: #c33; }
.node h3 { margin: 0 0 .2em; font-size: 1em; } .node .facts { color: #555; font-size: .85em; }
.node ul { list-style: none; padding: 0; margin: .4em 0 0; }
.pod { font-family: ui-monospace, monospace; font-size: .85em; padding: 1px 0; }
.pod.notready { color: #a60; } .pod .pol { color: #906; }
svg text { font-size: 11px; } .link.direct { stroke: #2a7; } .link.vxlan { stroke: #36c; stroke-dasharray: 6 3; } .link.none { stroke: #c33; stroke-dasharray: 2 3; }
table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd; padding: 2px 8px; text-align: left; font-size: .9em; }
td.allow { color: #2a7; text-align: right; } td.deny { color: #c33; text-align: right; } .facts { color: #555; font-size: .85em; }
#path li { margin: 2px 0; } .hop-drop { color: #c33; } .hop-policy { color: #906; } .hop-vxlan { color: #36c; } .hop-dnat { color: #a60; }
`;

// Runs in the browser. Kept as plain ES2020 so any recent browser runs it as is.
const script = `
const prefix = document.body.dataset.prefix;
let generation = 0;
let model = null;
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  for (const k of kids) if (k !== undefined && k !== null) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
function svgEl(tag, attrs, ...kids) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const k of kids) e.append(k);
  return e;
}
function podItem(p) {
  const pols = [...p.ingressPolicies.map((x) => 'in:' + x), ...p.egressPolicies.map((x) => 'out:' + x)];
  return el('li', { class: 'pod' + (p.ready ? '' : ' notready'), 'data-pod': p.namespace + '/' + p.name, 'data-ip': p.ip },
    p.namespace + '/' + p.name + ' ' + (p.ip || '-') + ' ' + p.phase + (p.ready ? '' : ' (not ready)') + (p.veth ? ' ' + p.veth : ''),
    pols.length ? el('span', { class: 'pol' }, ' [' + pols.join(', ') + ']') : null);
}
function drawNodes(m) {
  const box = document.getElementById('nodes');
  box.replaceChildren(...m.nodes.map((n) => el('section', { class: 'node' + (n.ready ? '' : ' notready'), 'data-node': n.name, 'data-pods': n.pods.length },
    el('h3', {}, n.name + (n.ready ? '' : ' (NotReady)')),
    el('div', { class: 'facts' }, 'InternalIP ' + (n.internalIP || '-') + ' · uplink ' + (n.uplink || '-') + ' · pods ' + (n.podCIDR || '-')),
    el('ul', {}, ...n.pods.map(podItem)))));
  const pend = document.getElementById('pending');
  pend.replaceChildren(...m.pending.map(podItem));
  document.getElementById('pending-title').hidden = !m.pending.length;
}
function drawLinks(m) {
  const svg = document.getElementById('links');
  const n = m.nodes.length, w = 520, h = n > 1 ? 320 : 80, r = Math.min(w, h) / 2 - 40;
  svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
  svg.setAttribute('height', h);
  const pos = new Map(m.nodes.map((node, i) => [node.name, n === 1 ? [w / 2, h / 2] : [w / 2 + r * Math.cos(2 * Math.PI * i / n - Math.PI / 2), h / 2 + r * Math.sin(2 * Math.PI * i / n - Math.PI / 2)]]));
  const kids = [];
  for (const l of m.links) {
    if (l.from > l.to && m.links.some((o) => o.from === l.to && o.to === l.from && o.path === l.path)) continue;
    const a = pos.get(l.from), b = pos.get(l.to);
    if (!a || !b) continue;
    const title = svgEl('title', {}, document.createTextNode(l.from + ' → ' + l.to + ': ' + l.path + (l.via ? ' via ' + l.via : '') + (l.reason ? ' (' + l.reason + ')' : '')));
    kids.push(svgEl('line', { class: 'link ' + l.path, 'data-from': l.from, 'data-to': l.to, 'data-path': l.path, x1: a[0], y1: a[1], x2: b[0], y2: b[1], 'stroke-width': 2 }, title));
    kids.push(svgEl('text', { x: (a[0] + b[0]) / 2 + 4, y: (a[1] + b[1]) / 2 - 4, fill: '#555' }, document.createTextNode(l.path)));
  }
  for (const node of m.nodes) {
    const [x, y] = pos.get(node.name);
    kids.push(svgEl('circle', { cx: x, cy: y, r: 8, fill: node.ready ? '#2a7' : '#c33', 'data-node': node.name }));
    kids.push(svgEl('text', { x: x + 11, y: y + 4 }, document.createTextNode(node.name + ' (' + node.pods.length + ')')));
  }
  svg.replaceChildren(...kids);
  document.getElementById('links-note').textContent = m.linksOmitted || '';
}
function drawServices(m) {
  const body = document.getElementById('services');
  body.replaceChildren(...m.services.map((s) => el('tr', { 'data-service': s.namespace + '/' + s.name, 'data-endpoints': s.endpoints.length, 'data-nft-elements': s.nftElements },
    el('td', {}, s.namespace + '/' + s.name), el('td', {}, s.type), el('td', {}, s.clusterIP || 'None'),
    el('td', {}, s.ports.map((p) => p.port + '/' + p.protocol + (p.nodePort ? ':' + p.nodePort : '')).join(', ')),
    el('td', {}, s.endpoints.map((e) => e.ip + (e.port ? ':' + e.port : '') + (e.node ? '@' + e.node : '') + (e.ready ? '' : ' (not ready)')).join(', ') || '-'),
    el('td', {}, s.nftElements))));
}
function drawPolicies(m) {
  document.getElementById('policies').replaceChildren(...m.policies.map((p) => {
    const k = p.namespace ? p.namespace + '/' + p.name : p.name, c = p.packets, admin = p.kind !== 'NetworkPolicy';
    const attrs = { 'data-policy': k, 'data-kind': p.kind, 'data-ingress-allowed': c.ingress.allowed, 'data-ingress-denied': c.ingress.denied,
      'data-egress-allowed': c.egress.allowed, 'data-egress-denied': c.egress.denied, 'data-pods': [...new Set([...p.ingressPods, ...p.egressPods])].join(' ') };
    if (admin) Object.assign(attrs, { 'data-ingress-passed': c.ingress.passed, 'data-egress-passed': c.egress.passed });
    return el('tr', attrs,
      el('td', {}, k), el('td', {}, p.kind + (p.priority !== undefined ? ' (priority ' + p.priority + ')' : '')), el('td', {}, p.policyTypes.join(', ')),
      el('td', { class: 'allow' }, c.ingress.allowed), el('td', { class: 'deny' }, c.ingress.denied),
      el('td', { class: 'allow' }, c.egress.allowed), el('td', { class: 'deny' }, c.egress.denied),
      el('td', {}, admin ? c.ingress.passed + ' / ' + c.egress.passed : '-'),
      el('td', {}, [...p.ingressPods.map((x) => 'in:' + x), ...p.egressPods.map((x) => 'out:' + x)].join(', ') || '-'),
      el('td', {}, c.nodes.join(', ') || '-'));
  }));
  const missing = m.nodes.map((n) => n.name).filter((n) => !m.countingNodes.includes(n));
  document.getElementById('policies-note').textContent = missing.length ? 'no counters published by ' + missing.join(', ') + ' (agent without policy enforcement, or not synced yet)' : '';
}
function fillSelect(id, values) {
  const s = document.getElementById(id), keep = s.value;
  s.replaceChildren(...values.map((v) => el('option', { value: v }, v)));
  if (values.includes(keep)) s.value = keep;
}
function render(m) {
  model = m;
  generation++;
  drawNodes(m); drawLinks(m); drawServices(m); drawPolicies(m);
  fillSelect('from', m.nodes.flatMap((n) => n.pods).filter((p) => p.ip).map((p) => p.namespace + '/' + p.name));
  fillSelect('service', m.services.filter((s) => s.clusterIP).map((s) => s.namespace + '/' + s.name));
  const st = document.getElementById('status');
  st.dataset.generation = generation;
  st.textContent = 'live · ' + m.nodes.length + ' nodes, ' + m.nodes.reduce((a, n) => a + n.pods.length, 0) + ' pods, ' + m.services.length + ' services · updated ' + new Date().toLocaleTimeString();
}
async function follow(ev) {
  ev.preventDefault();
  const q = new URLSearchParams({ from: document.getElementById('from').value, service: document.getElementById('service').value });
  const port = document.getElementById('port').value;
  if (port) q.set('port', port);
  const r = await (await fetch(prefix + '/path?' + q)).json();
  const out = document.getElementById('path');
  if (r.error) { out.replaceChildren(el('p', { class: 'hop-drop' }, r.error)); return; }
  out.replaceChildren(...r.paths.map((p) => el('div', { 'data-endpoint': p.endpoint }, el('b', {}, 'to ' + p.endpoint),
    el('ol', {}, ...p.hops.map((h) => el('li', { class: 'hop-' + h.kind, 'data-kind': h.kind }, (h.node ? '[' + h.node + '] ' : '') + h.text))))));
}
document.getElementById('follow').addEventListener('submit', follow);
const es = new EventSource(prefix + '/events');
es.addEventListener('model', (e) => render(JSON.parse(e.data)));
es.onerror = () => { document.getElementById('status').textContent = 'disconnected; retrying…'; };
`;

export function labViewPage(prefix: string): string {
  const attr = prefix.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>capstan lab view</title><style>${style}</style></head>
<body data-prefix="${attr}">
<h1>capstan lab view</h1><div id="status" data-generation="0">connecting…</div>
<h2>Nodes and pods</h2><div id="nodes"></div>
<h3 id="pending-title" hidden>Pending (no node)</h3><ul id="pending"></ul>
<h2>Paths between nodes</h2><svg id="links" width="520" height="80" role="img" aria-label="node-to-node paths"></svg><div id="links-note"></div>
<h2>Services</h2>
<table><thead><tr><th>service</th><th>type</th><th>cluster IP</th><th>ports</th><th>endpoints</th><th>nftables elements</th></tr></thead><tbody id="services"></tbody></table>
<h2>Policies</h2>
<p class="facts">In the order a packet is judged: AdminNetworkPolicies by priority, NetworkPolicies, the BaselineAdminNetworkPolicy. Packets of new connections each policy allowed and the packets dropped at the pods it isolates (an admin policy: its rules' Allow, Deny and Pass on to the next tier), as the nodes' network agents count them in nftables and publish them on their Node every few seconds.</p>
<table><thead><tr><th>policy</th><th>kind</th><th>types</th><th>ingress allowed</th><th>ingress denied</th><th>egress allowed</th><th>egress denied</th><th>passed (in / out)</th><th>selects</th><th>counted on</th></tr></thead><tbody id="policies"></tbody></table><div id="policies-note"></div>
<h2>Follow a packet</h2>
<form id="follow">from pod <select id="from"></select> to service <select id="service"></select> port <input id="port" size="5" placeholder="any"> <button>follow</button></form>
<div id="path"></div>
<script>${script}</script>
</body></html>
`;
}
