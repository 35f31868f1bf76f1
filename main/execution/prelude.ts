/**
 * Scripts that run inside every sandbox context, as source text. A bare V8 context has none of
 * the web or Node APIs generated code reaches for, so these provide small, dependency-free
 * stand-ins: `console` (captured, capped), timers on a virtual clock, `URL`, `URLSearchParams`,
 * `FormData`, `Blob`, `TextEncoder`/`TextDecoder`, `btoa`/`atob`, a `process` stub, and
 * `require` for `axios`, `form-data`, `url` and `querystring`. They are written here rather than
 * taken from core-js because every context loads them afresh: a full WHATWG polyfill would cost
 * more than the whole snippet's run (the budget is ~1 ms per context).
 *
 * Nothing here can reach the host: the context holds no references into Node.
 */

/** Runs before Axios loads, because Axios reads `FormData`, `Blob` and `URLSearchParams` at load time. */
export const SHIMS = String.raw`
(function () {
  'use strict';
  const g = globalThis;
  const limits = { consoleChars: 65536, lineChars: 2000, timers: 1000 };
  const pushTo = Function.prototype.call.bind(Array.prototype.push);
  const out = { console: [], consoleChars: 0, truncated: false, requests: [], errors: [], exited: false };
  Object.defineProperty(g, '__wapii', { value: out, enumerable: false });

  function show(v) {
    if (typeof v === 'string') return v;
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
  }
  function log(level) {
    return function () {
      if (out.consoleChars >= limits.consoleChars) { out.truncated = true; return; }
      let line = level + ': ' + Array.prototype.map.call(arguments, show).join(' ');
      if (line.length > limits.lineChars) line = line.slice(0, limits.lineChars) + '…';
      out.consoleChars += line.length;
      pushTo(out.console, line);
    };
  }
  g.console = { log: log('log'), info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug'), trace: log('trace'), dir: log('log'), table: log('log') };

  // Timers on a virtual clock: the host fires them one by one after the main program, up to a cap.
  let now = 0, nextId = 1, fired = 0;
  const timers = [];
  function schedule(fn, ms, args, interval) {
    if (typeof fn !== 'function') return 0;
    const id = nextId++;
    const delay = Math.max(0, Number(ms) || 0);
    timers.push({ id: id, at: now + delay, fn: fn, args: args, interval: interval ? Math.max(1, delay) : 0 });
    return id;
  }
  function cancel(id) { const i = timers.findIndex(function (t) { return t.id === id; }); if (i >= 0) timers.splice(i, 1); }
  g.setTimeout = function (fn, ms) { return schedule(fn, ms, Array.prototype.slice.call(arguments, 2), false); };
  g.setInterval = function (fn, ms) { return schedule(fn, ms, Array.prototype.slice.call(arguments, 2), true); };
  g.setImmediate = function (fn) { return schedule(fn, 0, Array.prototype.slice.call(arguments, 1), false); };
  g.clearTimeout = g.clearInterval = g.clearImmediate = cancel;
  g.queueMicrotask = function (fn) { Promise.resolve().then(fn); };
  Object.defineProperty(g, '__wapiiTick', { value: function () {
    if (out.exited || timers.length === 0 || fired >= limits.timers) return false;
    timers.sort(function (a, b) { return a.at - b.at || a.id - b.id; });
    const t = timers.shift();
    now = t.at; fired++;
    if (t.interval) { t.at = now + t.interval; timers.push(t); }
    t.fn.apply(undefined, t.args);
    return true;
  } });

  if (typeof Atomics !== 'undefined') Atomics.wait = function () { throw new TypeError('Atomics.wait is not available in the sandbox'); };

  function encode(s) { return encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()~]/g, function (c) { return '%' + c.charCodeAt(0).toString(16).toUpperCase(); }); }
  function decode(s) { try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch (e) { return s; } }

  class URLSearchParams {
    constructor(init) {
      this._list = [];
      if (init == null) return;
      if (typeof init === 'string') {
        const s = init.charAt(0) === '?' ? init.slice(1) : init;
        for (const part of s.split('&')) {
          if (!part) continue;
          const i = part.indexOf('=');
          this._list.push(i < 0 ? [decode(part), ''] : [decode(part.slice(0, i)), decode(part.slice(i + 1))]);
        }
      } else if (typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) this._list.push([String(pair[0]), String(pair[1])]);
      } else {
        for (const k of Object.keys(init)) this._list.push([k, String(init[k])]);
      }
    }
    append(k, v) { this._list.push([String(k), String(v)]); }
    set(k, v) { const key = String(k); const i = this._list.findIndex(function (p) { return p[0] === key; }); this.delete(key); if (i < 0) this._list.push([key, String(v)]); else this._list.splice(i, 0, [key, String(v)]); }
    get(k) { const p = this._list.find(function (p) { return p[0] === String(k); }); return p ? p[1] : null; }
    getAll(k) { return this._list.filter(function (p) { return p[0] === String(k); }).map(function (p) { return p[1]; }); }
    has(k) { return this._list.some(function (p) { return p[0] === String(k); }); }
    delete(k) { this._list = this._list.filter(function (p) { return p[0] !== String(k); }); }
    forEach(fn, self) { for (const p of this._list) fn.call(self, p[1], p[0], this); }
    keys() { return this._list.map(function (p) { return p[0]; })[Symbol.iterator](); }
    values() { return this._list.map(function (p) { return p[1]; })[Symbol.iterator](); }
    entries() { return this._list.map(function (p) { return [p[0], p[1]]; })[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    get size() { return this._list.length; }
    sort() { this._list.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; }); }
    toString() { return this._list.map(function (p) { return encode(p[0]) + '=' + encode(p[1]); }).join('&'); }
    get [Symbol.toStringTag]() { return 'URLSearchParams'; }
  }

  const URL_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*:)\/\/(?:([^:@\/]*)(?::([^@\/]*))?@)?([^:\/?#]*)(?::(\d+))?([^?#]*)(\?[^#]*)?(#.*)?$/;
  class URL {
    constructor(href, base) {
      let s = String(href);
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s)) {
        if (base === undefined) throw new TypeError('Invalid URL: ' + s);
        const b = new URL(base);
        s = s.charAt(0) === '/' ? b.origin + s : b.origin + b.pathname.replace(/[^\/]*$/, '') + s;
      }
      const m = URL_RE.exec(s);
      if (!m) throw new TypeError('Invalid URL: ' + s);
      this.protocol = m[1].toLowerCase(); this.username = m[2] || ''; this.password = m[3] || '';
      this.hostname = m[4].toLowerCase(); this.port = m[5] || ''; this.pathname = m[6] || '/';
      this.searchParams = new URLSearchParams(m[7] || ''); this.hash = m[8] || '';
    }
    get host() { return this.hostname + (this.port ? ':' + this.port : ''); }
    get origin() { return this.protocol + '//' + this.host; }
    get search() { const s = this.searchParams.toString(); return s ? '?' + s : ''; }
    set search(v) { this.searchParams = new URLSearchParams(String(v)); }
    get href() { return this.origin + this.pathname + this.search + this.hash; }
    toString() { return this.href; }
    toJSON() { return this.href; }
  }

  class Blob {
    constructor(parts, options) { this._text = (parts || []).map(function (p) { return typeof p === 'string' ? p : p instanceof Blob ? p._text : String(p); }).join(''); this.type = (options && options.type) || ''; }
    get size() { return this._text.length; }
    text() { return Promise.resolve(this._text); }
    get [Symbol.toStringTag]() { return 'Blob'; }
  }

  class FormData {
    constructor() { this._entries = []; this._boundary = '----wapiiFormBoundary' + Math.random().toString(16).slice(2); }
    append(k, v) { this._entries.push([String(k), v instanceof Blob ? v : String(v)]); }
    set(k, v) { this.delete(k); this.append(k, v); }
    get(k) { const e = this._entries.find(function (e) { return e[0] === String(k); }); return e ? e[1] : null; }
    getAll(k) { return this._entries.filter(function (e) { return e[0] === String(k); }).map(function (e) { return e[1]; }); }
    has(k) { return this._entries.some(function (e) { return e[0] === String(k); }); }
    delete(k) { this._entries = this._entries.filter(function (e) { return e[0] !== String(k); }); }
    entries() { return this._entries.slice()[Symbol.iterator](); }
    forEach(fn, self) { for (const e of this._entries) fn.call(self, e[1], e[0], this); }
    [Symbol.iterator]() { return this.entries(); }
    // The form-data package's API, which Node-flavoured code calls.
    getHeaders() { return { 'content-type': 'multipart/form-data; boundary=' + this._boundary }; }
    getBoundary() { return this._boundary; }
    get [Symbol.toStringTag]() { return 'FormData'; }
  }

  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(s) {
      const bytes = [];
      const str = unescape(encodeURIComponent(String(s === undefined ? '' : s)));
      for (let i = 0; i < str.length; i++) bytes.push(str.charCodeAt(i));
      return new Uint8Array(bytes);
    }
  }
  class TextDecoder {
    get encoding() { return 'utf-8'; }
    decode(b) { let s = ''; const a = b ? new Uint8Array(b.buffer || b) : []; for (let i = 0; i < a.length; i++) s += String.fromCharCode(a[i]); try { return decodeURIComponent(escape(s)); } catch (e) { return s; } }
  }

  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  g.btoa = function (input) {
    const s = String(input); let r = '';
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) throw new Error('btoa: the string has characters outside Latin1');
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      r += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < s.length ? B64[n & 63] : '=');
    }
    return r;
  };
  g.atob = function (input) {
    const s = String(input).replace(/[\s=]+/g, ''); let r = '', bits = 0, acc = 0;
    for (let i = 0; i < s.length; i++) {
      const v = B64.indexOf(s[i]); if (v < 0) throw new Error('atob: invalid character');
      acc = (acc << 6) | v; bits += 6;
      if (bits >= 8) { bits -= 8; r += String.fromCharCode((acc >> bits) & 255); }
    }
    return r;
  };

  g.URL = URL; g.URLSearchParams = URLSearchParams; g.Blob = Blob; g.FormData = FormData;
  g.TextEncoder = TextEncoder; g.TextDecoder = TextDecoder;

  const exitSignal = { wapiiExit: true };
  Object.defineProperty(g, '__wapiiExit', { value: exitSignal });
  g.process = {
    env: {}, argv: ['node', 'snippet.js'], platform: 'sandbox', version: 'v0.0.0', versions: {},
    exit: function () { out.exited = true; throw exitSignal; },
    nextTick: function (fn) { const args = Array.prototype.slice.call(arguments, 1); Promise.resolve().then(function () { fn.apply(undefined, args); }); },
    cwd: function () { return '/'; },
    on: function () { return g.process; },
  };
})();
`;

/** Runs after Axios: the capturing adapter and `require`. */
export const CAPTURE = String.raw`
(function () {
  'use strict';
  const g = globalThis;
  const out = g.__wapii;
  const axios = g.axios;
  // Intrinsics the host's read-out relies on, taken before the program can replace them.
  const stringify = JSON.stringify, parse = JSON.parse, fromEntries = Object.fromEntries;
  const push = Function.prototype.call.bind(Array.prototype.push);
  const map = Function.prototype.call.bind(Array.prototype.map);
  const ABSOLUTE = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;
  function plain(v) {
    try { const s = stringify(v, function (k, x) { return typeof x === 'bigint' ? String(x) : x; }); return s === undefined ? null : parse(s); } catch (e) { return String(v); }
  }
  function snapshot(config) {
    const headers = config.headers && typeof config.headers.toJSON === 'function' ? config.headers.toJSON() : Object.assign({}, config.headers);
    let url = config.url == null ? '' : String(config.url);
    if (config.baseURL && !ABSOLUTE.test(url)) url = String(config.baseURL).replace(/\/+$/, '') + (url ? '/' + url.replace(/^\/+/, '') : '');
    let params = config.params;
    if (params instanceof g.URLSearchParams) params = fromEntries(params.entries());
    const data = config.data;
    let body;
    if (data === undefined) body = { kind: 'none' };
    else if (typeof data === 'string') body = { kind: 'text', value: data };
    else if (data instanceof g.URLSearchParams) body = { kind: 'text', value: data.toString() };
    else if (data instanceof g.FormData) body = { kind: 'form', entries: map(data._entries, function (e) { return [e[0], typeof e[1] === 'string' ? e[1] : e[1]._text]; }) };
    else if (data instanceof g.Blob) body = { kind: 'text', value: data._text };
    else body = { kind: 'json', value: plain(data) };
    return { method: String(config.method || 'get').toLowerCase(), url: url, headers: plain(headers), params: params == null ? null : plain(params), body: body };
  }
  axios.defaults.adapter = function wapiiCapture(config) {
    push(out.requests, snapshot(config));
    return Promise.resolve({ data: {}, status: 200, statusText: 'OK', headers: {}, config: config, request: {} });
  };
  const modules = {
    axios: axios,
    'form-data': g.FormData,
    url: { URL: g.URL, URLSearchParams: g.URLSearchParams },
    querystring: {
      stringify: function (o) { return new g.URLSearchParams(o).toString(); },
      parse: function (s) { return Object.fromEntries(new g.URLSearchParams(s).entries()); },
    },
  };
  modules['node:url'] = modules.url; modules['node:querystring'] = modules.querystring;
  g.require = function (name) {
    if (Object.prototype.hasOwnProperty.call(modules, name)) return modules[name];
    throw new Error("Cannot find module '" + name + "' (the sandbox offers axios, form-data, url and querystring)");
  };
  // CommonJS names for code that assigns module.exports; defined after Axios, whose UMD header would use them.
  g.module = { exports: {} }; g.exports = g.module.exports;
  Object.defineProperty(g, '__wapiiResult', { value: function () {
    return stringify({ requests: out.requests, console: out.console, truncated: out.truncated, errors: out.errors, exited: out.exited });
  } });
  Object.defineProperty(g, '__wapiiFail', { value: function (e) {
    if (e === g.__wapiiExit) return;
    push(out.errors, e && e.stack ? String(e.stack).split('\n').slice(0, 3).join('\n') : String(e));
  } });
})();
`;
