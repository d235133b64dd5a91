// The studio: an MCP client of this server's /mcp in the 2026-07-28 era. Every request is
// stateless (its protocol version and capabilities in _meta, the routing headers beside it), so
// the page keeps no session, and the gateway treats it as any other client.
//
// When the gateway wants a token (--tokens, OAuth), the page asks the person for one, keeps it
// in sessionStorage (this tab only, gone when it closes) and sends it as Authorization: Bearer
// on every request it makes: the MCP calls, and the media it fetches itself and shows through
// blob and data URLs, since an <img> or <audio> cannot send a header.

const PROTOCOL = '2026-07-28';
const CLIENT = { name: 'hootenanny-studio', version: '1' };
const $ = (sel) => document.querySelector(sel);
let seq = 0;
let tools = new Set();

// ---- MCP over HTTP ----------------------------------------------------------------------

class ToolError extends Error {}

// SignInNeeded is thrown when the gateway refuses the page's token, or wants one it lacks.
class SignInNeeded extends Error {}

const TOKEN_KEY = 'hootenanny-studio-token';
const token = () => sessionStorage.getItem(TOKEN_KEY) || '';

// withAuth returns headers with the person's token, when there is one.
function withAuth(headers = {}) {
  const t = token();
  return t ? { ...headers, Authorization: `Bearer ${t}` } : headers;
}

// refused reports whether the gateway refused the request's credentials: 401, or 400 with a
// challenge (a token that is not one).
const refused = (resp) => resp.status === 401 || (resp.status === 400 && resp.headers.has('WWW-Authenticate'));

// refusal reads the words of a 401 or 403: a JSON-RPC error's message and hint, or plain text.
async function refusal(resp) {
  const text = await resp.text();
  try {
    const m = JSON.parse(text);
    if (m.error) return m.error.message + (m.error.data && m.error.data.hint ? `\n${m.error.data.hint}` : '');
  } catch (_) { /* plain text */ }
  return text.trim();
}

// rpc sends one request and returns its result, reading a JSON or an event-stream answer.
async function rpc(method, params = {}, name) {
  const id = ++seq;
  const body = {
    jsonrpc: '2.0', id, method,
    params: { ...params, _meta: {
      'io.modelcontextprotocol/protocolVersion': PROTOCOL,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': CLIENT,
    } },
  };
  const headers = {
    'Content-Type': 'application/json',
    'Accept': 'application/json, text/event-stream',
    'MCP-Protocol-Version': PROTOCOL,
    'Mcp-Method': method,
  };
  if (name !== undefined) headers['Mcp-Name'] = name;
  const resp = await fetch('/mcp', { method: 'POST', headers: withAuth(headers), body: JSON.stringify(body) });
  if (refused(resp)) throw new SignInNeeded(await refusal(resp));
  const type = resp.headers.get('Content-Type') || '';
  let msg;
  if (type.startsWith('text/event-stream')) {
    const text = await resp.text();
    for (const block of text.split(/\r?\n\r?\n/)) {
      const data = block.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (!data) continue;
      const m = JSON.parse(data);
      if (m.id === id) msg = m;
    }
  } else if (type.startsWith('application/json')) {
    msg = await resp.json();
  }
  if (!msg) throw new Error(`the server answered ${resp.status} without a response`);
  if (msg.error) {
    const hint = msg.error.data && msg.error.data.hint ? `\n${msg.error.data.hint}` : '';
    throw new Error(msg.error.message + hint);
  }
  return msg.result;
}

// call calls a tool and returns its result; a tool's failure throws its text.
async function call(tool, args = {}) {
  const res = await rpc('tools/call', { name: tool, arguments: args }, tool);
  if (res.isError) {
    throw new ToolError((res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n'));
  }
  return res;
}

// listTools learns which tools the live workers offer now.
async function listTools() {
  const names = new Set();
  let cursor;
  do {
    const res = await rpc('tools/list', cursor ? { cursor } : {});
    for (const t of res.tools) names.add(t.name);
    cursor = res.nextCursor;
  } while (cursor);
  tools = names;
  return names;
}

// awaitJob follows a job to its end and returns it.
async function awaitJob(id, onProgress) {
  for (;;) {
    const job = (await call('job_status', { id })).structuredContent.job;
    if (['JOB_STATUS_SUCCEEDED', 'JOB_STATUS_FAILED', 'JOB_STATUS_CANCELLED'].includes(job.status)) return job;
    if (onProgress) onProgress(job);
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ---- helpers ------------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const c of children) if (c !== undefined && c !== null) e.append(c);
  return e;
}

function when(ts) {
  if (!ts) return '';
  const d = new Date(ts);
  return isNaN(d) ? ts : d.toLocaleString();
}

function shortType(mime) {
  return ({ 'audio/midi': 'MIDI', 'text/vnd.abc': 'ABC', 'audio/wav': 'WAV', 'audio/flac': 'FLAC', 'image/png': 'PNG', 'image/svg+xml': 'SVG' })[(mime || '').split(';')[0]] || mime;
}

function banner(text) {
  const b = $('#banner');
  if (!text) { b.hidden = true; b.textContent = ''; return; }
  b.hidden = false;
  b.innerHTML = '';
  b.append(text);
}

function showError(where, err) {
  where.append(el('p', { class: 'error', role: 'alert' }, String(err.message || err)));
}

// ---- media ------------------------------------------------------------------------------

// Object URLs made for the artifact on show, revoked when another is shown.
let objectURLs = [];

function forgetMedia() {
  for (const u of objectURLs) URL.revokeObjectURL(u);
  objectURLs = [];
}

// Types shown from a blob URL with their own type: pictures and sound, which never run script.
const BLOB_SAFE = /^(image\/(png|jpeg|gif|webp|avif)|audio\/[a-z0-9.+-]+)$/;

// fetchContent fetches a content route with the person's token, and throws SignInNeeded when
// the gateway refuses it.
async function fetchContent(url) {
  const resp = await fetch(url, { headers: withAuth() });
  if (refused(resp)) throw new SignInNeeded(await refusal(resp));
  if (!resp.ok) throw new Error(`${url}: ${resp.status} ${await refusal(resp)}`);
  return resp;
}

// mediaSrc returns a URL for an <img> or <audio> to show the bytes of a content route. Without
// a token the route itself; with one, the page fetches the bytes with the token and shows them
// from memory: SVG as a data: URL (an opaque origin, never this page's, should it be opened on
// its own), pictures and sound as blob URLs.
async function mediaSrc(url, type) {
  if (!token()) return url;
  const blob = await (await fetchContent(url)).blob();
  if (type === 'image/svg+xml') {
    return new Promise((resolve, reject) => {
      const r = new FileReader();
      r.onload = () => resolve(r.result);
      r.onerror = () => reject(r.error);
      r.readAsDataURL(new Blob([blob], { type: 'image/svg+xml' }));
    });
  }
  const u = URL.createObjectURL(new Blob([blob], { type: BLOB_SAFE.test(type) ? type : 'application/octet-stream' }));
  objectURLs.push(u);
  return u;
}

// showMedia appends an <img> or <audio> for a content route to where, once its bytes are in.
function showMedia(where, tag, url, type, attrs) {
  const e = el(tag, attrs);
  where.append(e);
  mediaSrc(url, type).then((src) => { e.src = src; }, (err) => failed(where, err));
}

// downloadLink is a link that saves the bytes of a content route, fetched with the token,
// under the file name the route gives (name when it gives none).
function downloadLink(url, name) {
  const a = el('a', { href: `${url}?download`, download: '' }, 'Download');
  a.addEventListener('click', async (e) => {
    if (!token()) return; // the route itself answers with an attachment
    e.preventDefault();
    try {
      const resp = await fetchContent(`${url}?download`);
      const given = /filename="([A-Za-z0-9_.-]+)"/.exec(resp.headers.get('Content-Disposition') || '');
      if (given) name = given[1];
      const blob = await resp.blob();
      // Typed as bytes to save, so that the URL never shows the content as a page.
      const u = URL.createObjectURL(new Blob([blob], { type: 'application/octet-stream' }));
      const tmp = el('a', { href: u, download: name });
      document.body.append(tmp);
      tmp.click();
      tmp.remove();
      setTimeout(() => URL.revokeObjectURL(u), 10000);
    } catch (err) {
      failed(a.parentElement, err);
    }
  });
  return a;
}

// failed shows an error where it happened, or the sign-in form when the token was refused.
function failed(where, err) {
  if (err instanceof SignInNeeded) { showSignIn(err.message); return; }
  showError(where, err);
}

// ---- signing in ---------------------------------------------------------------------------

// showSignIn replaces the page with the sign-in form, saying why (as an error when a token was
// refused), and where a token comes from.
async function showSignIn(why) {
  const tried = token() !== '';
  sessionStorage.removeItem(TOKEN_KEY);
  clearTimeout(jobsTimer);
  for (const v of ['#view-list', '#view-artifact', '#view-jobs']) $(v).hidden = true;
  $('#view-signin').hidden = false;
  $('#signout').hidden = true;
  const w = $('#signin-why');
  w.textContent = why || 'This gateway needs a token.';
  w.className = tried ? 'error' : 'note';
  if (tried) w.setAttribute('role', 'alert'); else w.removeAttribute('role');
  const oauth = $('#signin-oauth');
  oauth.innerHTML = '';
  try {
    const resp = await fetch('/.well-known/oauth-protected-resource');
    if (resp.ok) {
      const m = await resp.json();
      const issuer = (m.authorization_servers || [])[0];
      if (issuer) {
        oauth.append('This gateway also takes OAuth access tokens from ', el('a', { href: issuer, rel: 'noreferrer' }, issuer),
          ` for the resource ${m.resource}` + ((m.scopes_supported || []).length ? ` (scopes: ${m.scopes_supported.join(', ')})` : '') +
          ': get one there, with your organisation\'s sign-in, and paste it here.');
      }
    }
  } catch (_) { /* no metadata: file tokens only */ }
  document.body.dataset.ready = 'signin';
  $('#signin input[name="token"]').focus();
}

$('#signin').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = e.target;
  const t = f.token.value.trim();
  if (!t) return;
  sessionStorage.setItem(TOKEN_KEY, t);
  f.reset();
  $('#view-signin').hidden = true;
  route();
});

$('#signout').addEventListener('click', () => {
  forgetMedia();
  sessionStorage.removeItem(TOKEN_KEY);
  showSignIn('Signed out. Paste a token to sign in again.');
});

// ---- health -----------------------------------------------------------------------------

async function checkHealth() {
  try {
    const resp = await fetch('/healthz');
    const h = await resp.json();
    if (h.status !== 'ok') {
      $('#status').textContent = 'No worker is live';
      banner(el('span', {}, 'No worker is live, so there are no tools to call. Start one: ',
        el('code', {}, 'make run'), ' starts holler with a worker, or run ', el('code', {}, 'hootenanny'),
        ' on this machine. This page checks again every few seconds.'));
      return false;
    }
    $('#status').textContent = `Live: ${h.services.join(', ')}`;
    banner(null);
    return true;
  } catch (err) {
    $('#status').textContent = 'The gateway does not answer';
    banner(`The gateway does not answer (${err.message}). Is holler running?`);
    return false;
  }
}

// ---- artifacts ----------------------------------------------------------------------------

let listCursor = '';

async function showList(more = false) {
  const form = $('#search');
  const tag = form.tag.value.trim();
  const creator = form.creator.value.trim();
  const text = form.text.value.trim().toLowerCase();
  const body = $('#artifacts tbody');
  if (!more) { body.innerHTML = ''; listCursor = ''; }
  const args = { limit: 100 };
  if (tag) args.tag = tag;
  if (creator) args.creator = creator;
  if (more && listCursor) args.cursor = listCursor;
  $('#list-note').textContent = 'Loading…';
  try {
    const res = (await call('artifact_list', args)).structuredContent;
    let shown = 0;
    for (const a of res.artifacts || []) {
      const hay = [a.id, a.mime_type, a.creator, ...(a.tags || []), a.variation_set].join(' ').toLowerCase();
      if (text && !hay.includes(text)) continue;
      shown++;
      body.append(el('tr', {},
        el('td', { class: 'id' }, el('a', { href: `#/artifact/${a.id}` }, a.id)),
        el('td', {}, shortType(a.mime_type)),
        el('td', {}, a.creator),
        el('td', {}, ...(a.tags || []).map((t) => el('span', { class: 'tag' }, t))),
        el('td', {}, when(a.created_at))));
    }
    listCursor = res.next_cursor || '';
    $('#more').hidden = !listCursor;
    const rows = body.querySelectorAll('tr').length;
    $('#list-note').textContent = rows === 0
      ? 'No artifact matches. Tools such as abc_to_midi and artifact_create make them.'
      : `${rows} artifact${rows === 1 ? '' : 's'}, newest first` + (text ? ` (text "${text}" filters the ${shown ? 'loaded' : ''} page)` : '') + '.';
  } catch (err) {
    if (err instanceof SignInNeeded) throw err;
    $('#list-note').textContent = '';
    showError($('#view-list'), err);
  }
}

const ARTIFACT_QUERY = `query Studio($id: ID!) { artifact(id: $id) {
  id hash size mime_type tags creator created_at variation_set variation_index
  parents { id mime_type creator parents { id mime_type creator } }
  children { id mime_type creator children { id mime_type creator } }
  annotations { id message vibe source created_at } } }`;

async function showArtifact(id) {
  const meta = $('#artifact-meta'), media = $('#artifact-media'), actions = $('#artifact-actions');
  $('#artifact-title').textContent = id;
  for (const e of [meta, media, actions, $('#lineage'), $('#annotations')]) e.innerHTML = '';
  forgetMedia();
  let a;
  try {
    const res = (await call('artifact_query', { query: ARTIFACT_QUERY, variables: { id } })).structuredContent;
    a = res.data && res.data[0] && res.data[0].artifact;
  } catch (err) {
    if (err instanceof SignInNeeded) throw err;
    showError(media, err);
    return;
  }
  if (!a) { showError(media, new Error(`There is no artifact ${id}.`)); return; }
  const tags = (a.tags && a.tags.values) || [];
  const rows = [['Type', a.mime_type], ['Size', `${a.size} bytes`], ['Creator', a.creator], ['Made', when(a.created_at)],
    ['Tags', tags.join(', ') || '—'], ['Content hash', a.hash]];
  if (a.variation_set) rows.push(['Variation', `${a.variation_set} #${a.variation_index || 0}`]);
  for (const [k, v] of rows) meta.append(el('dt', {}, k), el('dd', {}, v));
  const contentURL = `/artifacts/${a.id}/content`;
  actions.append(downloadLink(contentURL, a.id));
  renderMedia(a, media, actions, contentURL);
  drawLineage(a);
  const notes = (a.annotations && a.annotations.items) || [];
  if (notes.length === 0) $('#annotations').append(el('li', { class: 'note' }, 'No annotations yet.'));
  for (const n of notes) {
    $('#annotations').append(el('li', {}, n.message, n.vibe ? el('span', { class: 'tag' }, n.vibe) : null,
      el('span', { class: 'note' }, ` — ${n.source || 'someone'}, ${when(n.created_at)}`)));
  }
  $('#annotate').dataset.id = a.id;
}

function renderMedia(a, media, actions, contentURL) {
  const type = (a.mime_type || '').split(';')[0];
  const children = (a.children && a.children.items) || [];
  if (type.startsWith('audio/') && type !== 'audio/midi') {
    showMedia(media, 'audio', contentURL, type, { controls: '', preload: 'metadata' });
  } else if (type.startsWith('image/')) {
    // SVG too: a score drawn by <img> is a picture, and never runs the script it may carry.
    showMedia(media, 'img', contentURL, type, { alt: type === 'image/svg+xml' ? `Score ${a.id}` : `Image ${a.id}` });
  } else if (type.startsWith('text/')) {
    fetchContent(contentURL).then((r) => r.text()).then((t) => media.append(el('pre', {}, t.slice(0, 100000))), (err) => failed(media, err));
  }
  if (type === 'audio/midi') {
    const render = children.find((c) => (c.mime_type || '').startsWith('audio/') && c.mime_type !== 'audio/midi');
    if (render) {
      media.append(el('p', { class: 'note' }, 'Rendered audio: ', el('a', { href: `#/artifact/${render.id}` }, render.id)));
      showMedia(media, 'audio', `/artifacts/${render.id}/content`, (render.mime_type || '').split(';')[0], { controls: '', preload: 'metadata' });
    } else {
      media.append(el('p', { class: 'note' }, tools.has('midi_render')
        ? 'No audio rendering of this MIDI yet.'
        : 'No audio rendering of this MIDI, and no worker offers midi_render to make one.'));
    }
    offer(actions, media, 'midi_render', 'Render audio', { artifact_id: a.id });
    offer(actions, media, 'midi_piano_roll', 'Piano roll', { artifact_id: a.id });
  }
  if (type === 'text/vnd.abc') {
    offer(actions, media, 'abc_render', 'Show the score', { artifact_id: a.id });
    offer(actions, media, 'abc_to_midi', 'Convert to MIDI', { artifact_id: a.id });
  }
}

// offer adds a button that calls tool, when a live worker offers it, and shows what it made.
function offer(actions, media, tool, label, args) {
  if (!tools.has(tool)) return;
  const b = el('button', { type: 'button' }, label);
  b.addEventListener('click', async () => {
    b.disabled = true;
    const note = el('p', { class: 'note', role: 'status' }, `${label}…`);
    media.append(note);
    try {
      let res = await call(tool, args);
      let out = res.structuredContent || {};
      if (out.job_id) {
        const job = await awaitJob(out.job_id, (j) => { note.textContent = `${label}: ${j.message || j.status.toLowerCase()}`; });
        if (job.status !== 'JOB_STATUS_SUCCEEDED') throw new Error(job.message || job.status);
        out = job.result || {};
      }
      note.remove();
      showMade(media, res, out);
    } catch (err) {
      note.remove();
      failed(media, err);
    } finally {
      b.disabled = false;
    }
  });
  actions.append(b);
}

// showMade shows the images of a result and links (with players for audio) to the artifacts
// it names.
function showMade(media, res, out) {
  for (const c of res.content || []) {
    if (c.type === 'image') media.append(el('img', { src: `data:${c.mimeType};base64,${c.data}`, alt: 'Picture made by the tool' }));
  }
  const seen = new Set();
  const walk = (v) => {
    if (Array.isArray(v)) { v.forEach(walk); return; }
    if (!v || typeof v !== 'object') return;
    if (typeof v.id === 'string' && v.id.startsWith('art_') && !seen.has(v.id)) {
      seen.add(v.id);
      const type = (v.mime_type || '').split(';')[0];
      const link = el('p', {}, 'Made ', el('a', { href: `#/artifact/${v.id}` }, v.id), ` (${shortType(type)})`);
      media.append(link);
      if (type.startsWith('audio/') && type !== 'audio/midi') showMedia(media, 'audio', `/artifacts/${v.id}/content`, type, { controls: '' });
      if (type.startsWith('image/') && !(res.content || []).some((c) => c.type === 'image')) showMedia(media, 'img', `/artifacts/${v.id}/content`, type, { alt: `Image ${v.id}` });
    }
    Object.values(v).forEach(walk);
  };
  walk(out);
}

// drawLineage draws two generations up and down as layered boxes joined by lines.
function drawLineage(a) {
  const items = (x, k) => (x && x[k] && x[k].items) || [];
  const layers = new Map(); // depth -> nodes
  const edges = [];
  const put = (depth, n) => {
    if (!layers.has(depth)) layers.set(depth, []);
    const row = layers.get(depth);
    let found = row.find((m) => m.id === n.id);
    if (!found) { found = { ...n, depth }; row.push(found); }
    return found;
  };
  const self = put(0, a);
  for (const p of items(a, 'parents')) {
    const pn = put(-1, p); edges.push([pn, self]);
    for (const g of items(p, 'parents')) edges.push([put(-2, g), pn]);
  }
  for (const c of items(a, 'children')) {
    const cn = put(1, c); edges.push([self, cn]);
    for (const g of items(c, 'children')) edges.push([cn, put(2, g)]);
  }
  const W = 210, H = 44, GX = 24, GY = 40;
  const depths = [...layers.keys()].sort((x, y) => x - y);
  const widest = Math.max(...depths.map((d) => layers.get(d).length));
  const width = widest * (W + GX) + GX, height = depths.length * (H + GY) + GY;
  depths.forEach((d, row) => {
    const nodes = layers.get(d);
    const offset = (width - nodes.length * (W + GX) + GX) / 2;
    nodes.forEach((n, i) => { n.x = offset + i * (W + GX); n.y = GY / 2 + row * (H + GY); });
  });
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', width);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `Lineage of ${a.id}: ${items(a, 'parents').length} parents, ${items(a, 'children').length} children`);
  const mk = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  for (const [from, to] of edges) {
    svg.append(mk('line', { x1: from.x + W / 2, y1: from.y + H, x2: to.x + W / 2, y2: to.y }));
  }
  for (const d of depths) {
    for (const n of layers.get(d)) {
      const g = mk('a', { href: `#/artifact/${n.id}`, class: n === self ? 'self' : '' });
      g.append(mk('rect', { x: n.x, y: n.y, width: W, height: H, rx: 4 }),
        mk('text', { x: n.x + 8, y: n.y + 18 }, n.id),
        mk('text', { x: n.x + 8, y: n.y + 35, class: 'sub' }, `${shortType(n.mime_type)} · ${n.creator || ''}`));
      svg.append(g);
    }
  }
  $('#lineage').append(svg);
  if (edges.length === 0) $('#lineage').append(el('p', { class: 'note' }, 'No parents and no children.'));
}

// ---- jobs ---------------------------------------------------------------------------------

let jobsTimer;

async function showJobs() {
  clearTimeout(jobsTimer);
  if (location.hash !== '#/jobs') return;
  const body = $('#jobs tbody');
  try {
    const res = (await call('job_list', { limit: 30 })).structuredContent;
    body.innerHTML = '';
    const jobs = res.jobs || [];
    if (jobs.length === 0) body.append(el('tr', {}, el('td', { colspan: 6, class: 'note' }, 'No jobs yet.')));
    for (const j of jobs) {
      const status = j.status.replace('JOB_STATUS_', '').toLowerCase();
      const running = status === 'running' || status === 'pending';
      const bar = j.total > 0 ? el('progress', { max: j.total, value: j.progress || 0 }, `${Math.round(100 * (j.progress || 0) / j.total)}%`) : '';
      const cancel = running ? el('button', { type: 'button', onclick: async () => { await call('job_cancel', { id: j.id }).catch(() => {}); showJobs(); } }, 'Cancel') : '';
      body.append(el('tr', {}, el('td', { class: 'id' }, j.id), el('td', {}, j.tool), el('td', {}, status), el('td', {}, bar), el('td', {}, j.message || ''), el('td', {}, cancel)));
    }
  } catch (err) {
    if (err instanceof SignInNeeded) { showSignIn(err.message); return; }
    body.innerHTML = '';
    body.append(el('tr', {}, el('td', { colspan: 6, class: 'error' }, String(err.message || err))));
  }
  jobsTimer = setTimeout(showJobs, 1000);
}

// ---- trees ----------------------------------------------------------------------------------

const ROLES = { TURN_ROLE_SYSTEM: 'System', TURN_ROLE_USER: 'User', TURN_ROLE_ASSISTANT: 'Assistant', TURN_ROLE_TOOL: 'Tool' };

// nodeLabel writes a node as tree_render does: Role: text, cut at 60 characters with line
// breaks shown as ↵ and other control characters as spaces, or [source:identifier] for a handle to something kept elsewhere.
function nodeLabel(n, full = false) {
  if (n.external) return `[${n.external.source}:${n.external.identifier}]`;
  const t = n.text || {};
  let text = t.text || '';
  if (!full) {
    text = text.replace(/\r\n?|\n/g, '↵').replace(/[\p{Cc}\u2028\u2029]/gu, ' ');
    const chars = Array.from(text);
    if (chars.length > 60) text = chars.slice(0, 60).join('') + '…';
  }
  return `${ROLES[t.role] || 'Unknown'}: ${text}`;
}

let treesCursor = '';

// showTrees lists the caller's trees newest first, a page of 50 at a time: with more, the page
// after the last one shown (tree_list's next_cursor), under those already listed.
async function showTrees(more = false) {
  const list = $('#trees');
  const button = $('#trees-more');
  const args = { limit: 50 };
  if (more && treesCursor) args.cursor = treesCursor;
  try {
    const res = (await call('tree_list', args)).structuredContent;
    if (!more) list.innerHTML = '';
    const trees = res.trees || [];
    if (trees.length === 0 && !more) list.append(el('li', { class: 'note' }, 'No trees yet.'));
    for (const t of trees) {
      list.append(el('li', {}, el('a', { href: `#/tree/${t.id}` }, t.id), ` ${t.node_count || 0} nodes, ${when(t.created_at)}`));
    }
    treesCursor = res.next_cursor || '';
    button.hidden = !treesCursor;
    const n = list.querySelectorAll('a').length;
    $('#trees-note').textContent = n === 0 ? '' : `${n} tree${n === 1 ? '' : 's'}, newest first` + (treesCursor ? '; older ones follow.' : '.');
  } catch (err) {
    if (!more) list.innerHTML = '';
    button.hidden = true;
    failed(list, err);
  }
}

let selectedNode = '';

// showTree draws a tree from its typed nodes (each before its children) as nested lists.
async function showTree(id, select) {
  $('#tree-title').textContent = `Tree ${id}`;
  const drawing = $('#tree-drawing');
  const form = $('#tree-continue');
  form.dataset.tree = id;
  try {
    const res = (await call('tree_render', { tree_id: id, format: 'RENDER_FORMAT_NODES' })).structuredContent;
    drawing.innerHTML = '';
    const lists = new Map();
    for (const n of res.nodes || []) {
      const item = el('li', { role: 'treeitem' },
        el('button', { type: 'button', 'data-node': n.id, onclick: () => selectNode(id, n.id) }, nodeLabel(n)));
      (lists.get(n.parent_id) || drawing).append(item);
      const sub = el('ul', { role: 'group' });
      item.append(sub);
      lists.set(n.id, sub);
    }
    $('#tree-note').textContent = res.truncated ? 'Some nodes are left out of this drawing.' : '';
    const nodes = res.nodes || [];
    const pick = select || (lists.has(selectedNode) ? selectedNode : (nodes[0] && nodes[0].id));
    if (pick) await selectNode(id, pick);
  } catch (err) {
    drawing.innerHTML = '';
    failed(drawing, err);
  }
}

// selectNode shows a node's path from the root and the artifacts its path's nodes name.
async function selectNode(treeID, nodeID) {
  selectedNode = nodeID;
  $('#tree-continue').dataset.parent = nodeID;
  for (const b of document.querySelectorAll('#tree-drawing button')) {
    if (b.dataset.node === nodeID) b.setAttribute('aria-current', 'true'); else b.removeAttribute('aria-current');
  }
  const path = $('#tree-path');
  const arts = $('#tree-artifacts');
  path.innerHTML = '';
  arts.innerHTML = '';
  try {
    const res = (await call('tree_path', { tree_id: treeID, node_id: nodeID })).structuredContent;
    for (const n of res.nodes || []) {
      path.append(el('li', { 'data-node': n.id }, nodeLabel(n, true)));
      if (n.external && n.external.source === 'artifact' && /^art_[0-9a-z]{26}$/.test(n.external.identifier)) {
        arts.append(el('li', {}, el('a', { href: `#/artifact/${n.external.identifier}` }, n.external.identifier)));
      }
    }
    if (!arts.childElementCount) arts.append(el('li', { class: 'note' }, 'None on this path.'));
    document.body.dataset.path = nodeID;
  } catch (err) {
    failed(path, err);
  }
}

// ---- routing ------------------------------------------------------------------------------

async function route() {
  try {
    await show();
  } catch (err) {
    if (!(err instanceof SignInNeeded)) throw err;
    await showSignIn(err.message);
  }
}

async function show() {
  const hash = location.hash || '#/';
  for (const v of ['#view-list', '#view-artifact', '#view-jobs', '#view-trees', '#view-tree', '#view-signin']) $(v).hidden = true;
  $('#signout').hidden = !token();
  $('#nav-artifacts').removeAttribute('aria-current');
  $('#nav-jobs').removeAttribute('aria-current');
  $('#nav-trees').removeAttribute('aria-current');
  const live = await checkHealth();
  if (live) {
    await listTools().catch((err) => { if (err instanceof SignInNeeded) throw err; });
  }
  let m;
  if ((m = hash.match(/^#\/artifact\/(art_[0-9a-z]{26})$/))) {
    $('#view-artifact').hidden = false;
    await showArtifact(m[1]);
  } else if ((m = hash.match(/^#\/tree\/(tree_[0-9a-z]{26})$/))) {
    $('#view-tree').hidden = false;
    $('#nav-trees').setAttribute('aria-current', 'page');
    await showTree(m[1]);
  } else if (hash === '#/trees') {
    $('#view-trees').hidden = false;
    $('#nav-trees').setAttribute('aria-current', 'page');
    if (live) await showTrees();
  } else if (hash === '#/jobs') {
    $('#view-jobs').hidden = false;
    $('#nav-jobs').setAttribute('aria-current', 'page');
    showJobs();
  } else {
    $('#view-list').hidden = false;
    $('#nav-artifacts').setAttribute('aria-current', 'page');
    if (live) await showList();
  }
  document.body.dataset.ready = hash;
}

$('#search').addEventListener('submit', (e) => { e.preventDefault(); showList(); });
$('#more').addEventListener('click', () => showList(true));
$('#trees-more').addEventListener('click', () => showTrees(true));
$('#annotate').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = e.target;
  try {
    await call('artifact_annotate', { artifact_id: f.dataset.id, message: f.message.value, vibe: f.vibe.value, source: 'studio' });
    f.reset();
    showArtifact(f.dataset.id);
  } catch (err) {
    failed(f, err);
  }
});
$('#tree-new').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = e.target;
  try {
    const res = (await call('tree_create', { role: 'TURN_ROLE_SYSTEM', text: f.text.value })).structuredContent;
    f.reset();
    location.hash = `#/tree/${res.tree.id}`;
  } catch (err) {
    failed(f, err);
  }
});
$('#tree-continue').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = e.target;
  const tree = f.dataset.tree;
  for (const p of f.querySelectorAll('.error')) p.remove();
  if (f.user.value === '' && f.assistant.value === '') {
    showError(f, 'Type a user turn, an assistant turn, or both.');
    return;
  }
  try {
    // Each turn is added once: after the user's turn is in, the box points at it, so that a
    // failed assistant turn keeps its text and a second try adds only the answer.
    if (f.user.value !== '') {
      const user = (await call('tree_add_node', { tree_id: tree, parent_id: f.dataset.parent, role: 'TURN_ROLE_USER', text: f.user.value })).structuredContent.node;
      f.user.value = '';
      f.dataset.parent = user.id;
      selectedNode = user.id;
    }
    if (f.assistant.value !== '') {
      const answer = (await call('tree_add_node', { tree_id: tree, parent_id: f.dataset.parent, role: 'TURN_ROLE_ASSISTANT', text: f.assistant.value })).structuredContent.node;
      f.assistant.value = '';
      selectedNode = answer.id;
    }
    await showTree(tree, selectedNode);
  } catch (err) {
    await showTree(tree, selectedNode);
    failed(f, err);
  }
});
window.addEventListener('hashchange', () => { route(); $('#main').focus(); });
setInterval(checkHealth, 5000);
route();
