// derive.mjs — deterministic documents derived from fetched ones.
//
// Two kinds of JSON text are missing from the npm packages the benchmark uses:
// text written with \uXXXX escapes (as Python's json.dumps and many APIs write
// non-ASCII) and very deep nesting (depth 50+: comment threads, linked lists,
// nested arrays). Each derived document is a pure function of one fetched
// document and a few integers, so the manifest can pin its sha256 like any other.
//
// derive(op, args, src) -> string   (src: the source document's text)
//   escape          every non-ASCII character of src becomes \uXXXX (UTF-16,
//                   surrogate pairs for astral code points); formatting kept.
//   thread:D        a comment thread D replies deep; bodies are the source's
//                   string values in order.
//   list:D          a linked list {"value":...,"next":{...}} of D cells.
//   arrays:D        D nested arrays, each level holding one source value.
//   mixed:D         objects and arrays alternating for D levels, pretty-printed.

function collectStrings(v, out) {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) collectStrings(x, out);
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) {
    out.push(k);
    collectStrings(v[k], out);
  }
  return out;
}

function escapeNonAscii(text) {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    if (cp < 0x80) { out += ch; continue; }
    for (let i = 0; i < ch.length; i++)
      out += '\\u' + ch.charCodeAt(i).toString(16).padStart(4, '0');
  }
  return out;
}

// Builds the value innermost-first so that depth is not limited by JS recursion.
function thread(strs, depth) {
  let node = null;
  for (let i = depth - 1; i >= 0; i--) {
    const s = strs[i % strs.length];
    node = { id: 1000 + i, author: 'user' + (i * 7919 % 1000), body: s, score: (i * 31) % 97 - 20,
             replies: node ? [node] : [] };
  }
  return node;
}

function list(strs, depth) {
  let cell = null;
  for (let i = depth - 1; i >= 0; i--) cell = { value: strs[i % strs.length], next: cell };
  return cell;
}

function arrays(strs, depth) {
  let a = [];
  for (let i = depth - 1; i >= 0; i--) a = i % 3 === 0 ? [strs[i % strs.length], a] : [i, a];
  return a;
}

function mixed(strs, depth) {
  let v = strs[0];
  for (let i = depth - 1; i >= 0; i--) v = i % 2 ? [i * 0.5, v] : { [strs[i % strs.length]]: v, n: i };
  return v;
}

// JSON.stringify recurses; deep values are serialized iteratively by hand.
function stringifyDeep(v, indent) {
  const parts = [];
  const stack = [{ v, depth: 0 }];
  const pad = (d) => (indent ? '\n' + ' '.repeat(indent * d) : '');
  while (stack.length) {
    const top = stack.pop();
    if (typeof top === 'string' && top.startsWith('\0')) { parts.push(top.slice(1)); continue; }
    const { v: x, depth: d } = top;
    if (x === null || typeof x !== 'object') { parts.push(JSON.stringify(x)); continue; }
    const isArr = Array.isArray(x);
    const keys = isArr ? x.map((_, i) => i) : Object.keys(x);
    if (keys.length === 0) { parts.push(isArr ? '[]' : '{}'); continue; }
    parts.push(isArr ? '[' : '{');
    const todo = [];
    keys.forEach((k, i) => {
      todo.push('\0' + (i ? ',' : '') + pad(d + 1) + (isArr ? '' : JSON.stringify(k) + (indent ? ': ' : ':')));
      todo.push({ v: x[k], depth: d + 1 });
    });
    todo.push('\0' + pad(d) + (isArr ? ']' : '}'));
    for (let i = todo.length - 1; i >= 0; i--) stack.push(todo[i]);
  }
  return parts.join('');
}

const builders = { thread: [thread, 0], list: [list, 0], arrays: [arrays, 0], mixed: [mixed, 1] };

export function derive(op, src) {
  if (op === 'escape') return escapeNonAscii(src);
  const [name, d] = op.split(':');
  const depth = Number(d);
  const b = builders[name];
  if (!b || !(depth > 0 && depth <= 100000)) throw new Error(`unknown derivation '${op}'`);
  const strs = collectStrings(JSON.parse(src), []).filter((s) => s.length > 0 && s.length < 200);
  if (strs.length === 0) throw new Error(`derivation '${op}': source has no short strings`);
  return stringifyDeep(b[0](strs, depth), b[1]) + '\n';
}

// Nesting depth of a JSON text, counted on the text (no recursion, no parse).
export function jsonDepth(text) {
  let depth = 0, max = 0, inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return max;
}

// RFC 8259 JSON text in UTF-8: valid UTF-8, no BOM, JSON.parse accepts it.
// Returns null when valid, else the reason.
export function checkJson(bytes) {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'starts with a BOM';
  let text;
  try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return 'not valid UTF-8'; }
  try { JSON.parse(text); } catch (e) { return 'not JSON: ' + e.message; }
  return null;
}
