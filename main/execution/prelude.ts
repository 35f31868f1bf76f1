/**
 * Scripts that run inside every sandbox context, as source text. A bare V8 context has none of
 * the web or Node APIs generated code reaches for, so these provide small, dependency-free
 * stand-ins: `console` (captured, capped), timers on a virtual clock, `URL`, `URLSearchParams`,
 * `FormData`, `Blob`, `TextEncoder`/`TextDecoder`, `btoa`/`atob`, a `process` stub, and
 * `require` for `axios`, `form-data`, `url` and `querystring`. They are written here rather than
 * taken from core-js because every context loads them afresh: a full WHATWG polyfill would cost
 * more than the whole snippet's run (the budget is ~1 ms per context).
 *
 * Tamper-proofing (scoring.md §3): everything the host learns comes through one host callback
 * (`__wapiiHost`, taken off the global before the program exists) as plain strings built here from
 * intrinsics captured before the program runs. The program can change globals and prototypes,
 * but not what was already recorded, nor the channel, nor the functions that build a record.
 * Every read of a program value happens inside the isolate, under its time limit; the host never
 * touches a program object. WebAssembly, SharedArrayBuffer and Atomics are removed: their memory
 * is not counted by the heap limit, and `Atomics.waitAsync` aborts the process.
 */

/** Runs before Axios loads, because Axios reads `FormData`, `Blob` and `URLSearchParams` at load time. */
export const SHIMS = String.raw`
(function () {
  'use strict';
  const g = globalThis;
  const host = g.__wapiiHost;
  delete g.__wapiiHost;
  delete g.WebAssembly; delete g.SharedArrayBuffer; delete g.Atomics;
  const limits = { consoleChars: 65536, lineChars: 2000, timers: 1000, errors: 10 };
  const call = Function.prototype.call;
  const bind = (f) => call.bind(f);
  const apply = Reflect.apply;
  const S = String, stringify = JSON.stringify, isArray = Array.isArray, objectKeys = Object.keys;
  const defineProperty = Object.defineProperty, freeze = Object.freeze;
  const slice = bind(String.prototype.slice), indexOf = bind(String.prototype.indexOf), charCodeAt = bind(String.prototype.charCodeAt);
  const fromCharCode = String.fromCharCode, encodeURIComponent_ = encodeURIComponent, decodeURIComponent_ = decodeURIComponent;
  const replace = bind(String.prototype.replace), split = bind(String.prototype.split);
  const push = bind(Array.prototype.push), spliceA = bind(Array.prototype.splice);
  const wmGet = bind(WeakMap.prototype.get), wmSet = bind(WeakMap.prototype.set), wmHas = bind(WeakMap.prototype.has);
  const dateToISO = bind(Date.prototype.toISOString), dateGetTime = bind(Date.prototype.getTime);
  const bufferByteLength = bind(Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get);
  const isView = ArrayBuffer.isView;
  const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
  const viewBuffer = bind(Object.getOwnPropertyDescriptor(typedArrayProto, 'buffer').get);
  const viewOffset = bind(Object.getOwnPropertyDescriptor(typedArrayProto, 'byteOffset').get);
  const viewLength = bind(Object.getOwnPropertyDescriptor(typedArrayProto, 'byteLength').get);
  const dvBuffer = bind(Object.getOwnPropertyDescriptor(DataView.prototype, 'buffer').get);
  const U8 = Uint8Array, SyntaxError_ = SyntaxError, Error_ = Error, Promise_ = Promise;
  const promiseThen = bind(Promise.prototype.then), promiseResolve = Promise.resolve.bind(Promise);
  const stringTag = bind(Object.prototype.toString);

  // Program-visible objects whose contents the capture reads keep them here, out of the program's reach.
  const searchState = new WeakMap(), formState = new WeakMap(), blobState = new WeakMap();

  function send(kind, payload) { host(kind, payload); }

  /** Text for a thrown value, read under the time limit; never throws. */
  function describe(e) {
    try {
      if (e === null || (typeof e !== 'object' && typeof e !== 'function')) return slice(S(e), 0, limits.lineChars);
      let name = 'Error', message = '';
      try { name = S(e.name); } catch (x) { /* unreadable */ }
      try { message = S(e.message); } catch (x) { /* unreadable */ }
      return slice(name + ': ' + message, 0, limits.lineChars);
    } catch (x) {
      return 'an exception that cannot be read';
    }
  }
  const state = { consoleChars: 0, errors: 0, exited: false };
  const exitSignal = freeze({ wapiiExit: true });
  function fail(e, kind) {
    if (e === exitSignal) return;
    if (state.errors++ >= limits.errors) return;
    send(kind || 'error', describe(e));
  }

  function show(v) {
    if (typeof v === 'string') return v;
    try { const s = stringify(v); return s === undefined ? S(v) : s; } catch (e) { try { return S(v); } catch (x) { return '[unprintable]'; } }
  }
  function log(level) {
    return function () {
      try {
        if (state.consoleChars >= limits.consoleChars) return;
        let line = level + ':';
        for (let i = 0; i < arguments.length && line.length <= limits.lineChars; i++) line += ' ' + show(arguments[i]);
        if (line.length > limits.lineChars) line = slice(line, 0, limits.lineChars) + '…';
        state.consoleChars += line.length;
        send('console', line);
      } catch (e) { /* a value that cannot be printed is not printed */ }
    };
  }
  g.console = { log: log('log'), info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug'), trace: log('trace'), dir: log('log'), table: log('log') };

  // Timers on a virtual clock: the host fires them one by one after the main program, up to a cap.
  let now = 0, nextId = 1, fired = 0;
  const timers = [];
  function schedule(fn, ms, args, interval) {
    if (typeof fn !== 'function' || timers.length >= limits.timers) return 0;
    const id = nextId++;
    let delay = 0;
    try { delay = +ms; } catch (e) { delay = 0; }
    if (!(delay > 0)) delay = 0;
    push(timers, { id: id, at: now + delay, fn: fn, args: args, interval: interval ? (delay > 1 ? delay : 1) : 0 });
    return id;
  }
  function cancel(id) { for (let i = 0; i < timers.length; i++) if (timers[i].id === id) { spliceA(timers, i, 1); return; } }
  function rest(args, from) { const r = []; for (let i = from; i < args.length; i++) push(r, args[i]); return r; }
  g.setTimeout = function (fn, ms) { return schedule(fn, ms, rest(arguments, 2), false); };
  g.setInterval = function (fn, ms) { return schedule(fn, ms, rest(arguments, 2), true); };
  g.setImmediate = function (fn) { return schedule(fn, 0, rest(arguments, 1), false); };
  g.clearTimeout = g.clearInterval = g.clearImmediate = cancel;
  g.queueMicrotask = function (fn) { promiseThen(promiseResolve(), fn); };
  /** Fires the earliest timer; false once none is left (or the cap is reached). Never throws. */
  function tick() {
    if (state.exited || timers.length === 0 || fired >= limits.timers) return false;
    let best = 0;
    for (let i = 1; i < timers.length; i++) if (timers[i].at < timers[best].at || (timers[i].at === timers[best].at && timers[i].id < timers[best].id)) best = i;
    const t = timers[best];
    spliceA(timers, best, 1);
    now = t.at; fired++;
    if (t.interval) { t.at = now + t.interval; push(timers, t); }
    try { apply(t.fn, undefined, t.args); } catch (e) { fail(e); }
    return true;
  }

  function encode(s) { return replace(replace(encodeURIComponent_(s), /%20/g, '+'), /[!'()~]/g, function (c) { return '%' + charCodeAt(c, 0).toString(16).toUpperCase(); }); }
  function decode(s) { try { return decodeURIComponent_(replace(s, /\+/g, ' ')); } catch (e) { return s; } }
  function serializeSearch(list) { let out = ''; for (let i = 0; i < list.length; i++) out += (i ? '&' : '') + encode(list[i][0]) + '=' + encode(list[i][1]); return out; }

  class URLSearchParams {
    constructor(init) {
      const list = [];
      wmSet(searchState, this, list);
      if (init == null) return;
      if (typeof init === 'string') {
        const s = init.charAt(0) === '?' ? init.slice(1) : init;
        for (const part of s.split('&')) {
          if (!part) continue;
          const i = part.indexOf('=');
          push(list, i < 0 ? [decode(part), ''] : [decode(part.slice(0, i)), decode(part.slice(i + 1))]);
        }
      } else if (wmHas(searchState, init)) {
        const other = wmGet(searchState, init);
        for (let i = 0; i < other.length; i++) push(list, [other[i][0], other[i][1]]);
      } else if (typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) push(list, [S(pair[0]), S(pair[1])]);
      } else {
        for (const k of objectKeys(init)) push(list, [k, S(init[k])]);
      }
    }
    get _list() { return wmGet(searchState, this); }
    append(k, v) { push(this._list, [S(k), S(v)]); }
    set(k, v) { const key = S(k); const list = this._list; const i = list.findIndex(function (p) { return p[0] === key; }); this.delete(key); if (i < 0) push(list, [key, S(v)]); else spliceA(list, i, 0, [key, S(v)]); }
    get(k) { const p = this._list.find(function (p) { return p[0] === S(k); }); return p ? p[1] : null; }
    getAll(k) { return this._list.filter(function (p) { return p[0] === S(k); }).map(function (p) { return p[1]; }); }
    has(k) { return this._list.some(function (p) { return p[0] === S(k); }); }
    delete(k) { const list = this._list; for (let i = list.length - 1; i >= 0; i--) if (list[i][0] === S(k)) spliceA(list, i, 1); }
    forEach(fn, self) { for (const p of this._list.slice()) fn.call(self, p[1], p[0], this); }
    keys() { return this._list.map(function (p) { return p[0]; })[Symbol.iterator](); }
    values() { return this._list.map(function (p) { return p[1]; })[Symbol.iterator](); }
    entries() { return this._list.map(function (p) { return [p[0], p[1]]; })[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    get size() { return this._list.length; }
    sort() { this._list.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; }); }
    toString() { return serializeSearch(this._list); }
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

  function blobText(p) { return typeof p === 'string' ? p : wmHas(blobState, p) ? wmGet(blobState, p).text : S(p); }
  class Blob {
    constructor(parts, options) {
      let text = '';
      if (parts != null) for (let i = 0; i < parts.length; i++) text += blobText(parts[i]);
      wmSet(blobState, this, { text: text });
      this.type = (options && options.type) || '';
    }
    get _text() { return wmGet(blobState, this).text; }
    get size() { return this._text.length; }
    text() { return Promise.resolve(this._text); }
    get [Symbol.toStringTag]() { return 'Blob'; }
  }

  class FormData {
    constructor() { wmSet(formState, this, []); this._boundary = '----wapiiFormBoundary' + Math.random().toString(16).slice(2); }
    get _entries() { return wmGet(formState, this); }
    append(k, v) { push(this._entries, [S(k), wmHas(blobState, v) ? v : S(v)]); }
    set(k, v) { this.delete(k); this.append(k, v); }
    get(k) { const e = this._entries.find(function (e) { return e[0] === S(k); }); return e ? e[1] : null; }
    getAll(k) { return this._entries.filter(function (e) { return e[0] === S(k); }).map(function (e) { return e[1]; }); }
    has(k) { return this._entries.some(function (e) { return e[0] === S(k); }); }
    delete(k) { const list = this._entries; for (let i = list.length - 1; i >= 0; i--) if (list[i][0] === S(k)) spliceA(list, i, 1); }
    entries() { return this._entries.slice()[Symbol.iterator](); }
    forEach(fn, self) { for (const e of this._entries.slice()) fn.call(self, e[1], e[0], this); }
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

  g.process = {
    env: {}, argv: ['node', 'snippet.js'], platform: 'sandbox', version: 'v0.0.0', versions: {},
    exit: function () { if (!state.exited) { state.exited = true; send('exit', ''); } throw exitSignal; },
    nextTick: function (fn) { const args = rest(arguments, 1); promiseThen(promiseResolve(), function () { apply(fn, undefined, args); }); },
    cwd: function () { return '/'; },
    on: function () { return g.process; },
  };

  // ---- The capture's JSON writer: program values in, JSON text out, with limits; never calls toJSON. ----
  const LIMITS = { depth: 64, nodes: 100000, chars: 1048576 };
  function Limit(message) { this.message = message; }
  function writer() {
    let nodes = 0, chars = 0;
    function str(s) {
      chars += s.length;
      if (chars > LIMITS.chars) throw new Limit('the request is larger than 1 MB');
      return stringify(s);
    }
    function bytesText(buffer, offset, length) {
      if (length > LIMITS.chars) throw new Limit('the request body is larger than 1 MB');
      const a = new U8(buffer, offset, length);
      let s = '';
      for (let i = 0; i < length; i++) s += fromCharCode(a[i]);
      try { return decodeURIComponent_(escape(s)); } catch (e) { return s; }
    }
    function value(v, depth) {
      if (v === null) return 'null';
      switch (typeof v) {
        case 'string': return str(v);
        case 'number': return v === v && v !== Infinity && v !== -Infinity ? '' + v : 'null';
        case 'boolean': return v ? 'true' : 'false';
        case 'bigint': return str('' + v);
        case 'undefined': case 'function': case 'symbol': return undefined;
      }
      if (++nodes > LIMITS.nodes) throw new Limit('the request holds more than ' + LIMITS.nodes + ' values');
      if (depth >= LIMITS.depth) throw new Limit('the request is nested deeper than ' + LIMITS.depth + ' levels (or refers to itself)');
      let time;
      try { time = dateGetTime(v); } catch (e) { time = undefined; }
      if (time !== undefined) return time === time ? str(dateToISO(v)) : 'null';
      if (wmHas(searchState, v)) return str(serializeSearch(wmGet(searchState, v)));
      if (isArray(v)) {
        const n = v.length;
        if (!(n <= LIMITS.nodes)) throw new Limit('the request holds more than ' + LIMITS.nodes + ' values');
        let out = '[';
        for (let i = 0; i < n; i++) { const x = value(v[i], depth + 1); out += (i ? ',' : '') + (x === undefined ? 'null' : x); }
        return out + ']';
      }
      const keys = objectKeys(v);
      let out = '{', first = true;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        const x = value(v[k], depth + 1);
        if (x === undefined) continue;
        out += (first ? '' : ',') + str(k) + ':' + x;
        first = false;
      }
      return out + '}';
    }
    function pairs(list) {
      let out = '[';
      for (let i = 0; i < list.length; i++) out += (i ? ',' : '') + '[' + str(list[i][0]) + ',' + str(list[i][1]) + ']';
      return out + ']';
    }
    /** The body as the transport would send it: text, form fields, or an object it would refuse. */
    function body(data) {
      if (data === undefined) return '{"kind":"none"}';
      if (data === null) return '{"kind":"object","value":null}';
      if (typeof data === 'string') return '{"kind":"text","value":' + str(data) + '}';
      if (wmHas(searchState, data)) return '{"kind":"text","value":' + str(serializeSearch(wmGet(searchState, data))) + '}';
      if (wmHas(blobState, data)) return '{"kind":"text","value":' + str(wmGet(blobState, data).text) + '}';
      if (wmHas(formState, data)) {
        const list = wmGet(formState, data), fields = [];
        for (let i = 0; i < list.length; i++) push(fields, [list[i][0], blobText(list[i][1])]);
        return '{"kind":"form","entries":' + pairs(fields) + '}';
      }
      if (typeof data === 'object') {
        let length;
        try { length = bufferByteLength(data); } catch (e) { length = undefined; }
        if (length !== undefined) return '{"kind":"text","value":' + str(bytesText(data, 0, length)) + '}';
        if (isView(data)) {
          let buffer;
          try { buffer = viewBuffer(data); return '{"kind":"text","value":' + str(bytesText(buffer, viewOffset(data), viewLength(data))) + '}'; } catch (e) { /* a DataView */ }
          try { buffer = dvBuffer(data); return '{"kind":"text","value":' + str(bytesText(buffer, 0, bufferByteLength(buffer))) + '}'; } catch (e) { /* not readable */ }
        }
      }
      const v = value(data, 1);
      return '{"kind":"object","value":' + (v === undefined ? 'null' : v) + '}';
    }
    return { value: value, str: str, pairs: pairs, body: body };
  }

  defineProperty(g, '__wapiiInternal', { configurable: true, value: {
    send: send, fail: fail, describe: describe, tick: tick, state: state, exitSignal: exitSignal, writer: writer, Limit: Limit,
    searchState: searchState, stringTag: stringTag, S: S, stringify: stringify, promiseThen: promiseThen, SyntaxError: SyntaxError_,
    Error: Error_, Promise: Promise_, wmHas: wmHas, wmGet: wmGet,
  } });
})();
`;

/**
 * Runs after Axios: the capturing adapter and `require`. Its completion value is the control
 * object the host keeps a reference to (`run`, `tick`); nothing of it stays on the global.
 */
export const CAPTURE = String.raw`
(function () {
  'use strict';
  const g = globalThis;
  const I = g.__wapiiInternal;
  delete g.__wapiiInternal;
  const axios = g.axios;
  const S = I.S, stringify = I.stringify, Limit = I.Limit;
  const getUri = Function.prototype.call.bind(axios.Axios.prototype.getUri);
  const assign = Object.assign, isArray = Array.isArray;
  const test = Function.prototype.call.bind(RegExp.prototype.test);
  const replace = Function.prototype.call.bind(String.prototype.replace);
  const ABSOLUTE = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;
  const MAX_URL = 65536;

  function text(v) { const s = S(v); if (s.length > MAX_URL) throw new Limit('the URL is longer than ' + MAX_URL + ' characters'); return s; }
  function customSerializer(ps) {
    return ps != null && (typeof ps === 'function' || typeof ps.serialize === 'function' || typeof ps.encode === 'function');
  }
  /** One JSON record of what reached the adapter, built from values read now. */
  function record(config) {
    const w = I.writer();
    const method = config.method;
    if (typeof method !== 'string') throw new Limit('the request method is not a string');
    // How the reference composed the URL (kept for --compat reference).
    let url = config.url == null ? '' : text(config.url);
    const baseURL = config.baseURL;
    if (baseURL && !test(ABSOLUTE, url)) url = replace(text(baseURL), /\/+$/, '') + (url ? '/' + replace(url, /^\/+/, '') : '');
    // Where Axios really sends it: its own buildFullPath and buildURL, through Axios.prototype.getUri.
    const fullPath = text(getUri({ defaults: {} }, assign({}, config, { params: undefined })));
    const serializer = customSerializer(config.paramsSerializer);
    const sentUrl = serializer ? text(getUri({ defaults: {} }, config)) : undefined;
    let headers = config.headers;
    if (headers && typeof headers.toJSON === 'function') headers = headers.toJSON();
    const params = config.params;
    const pairs = params != null && I.wmHas(I.searchState, params) ? w.pairs(I.wmGet(I.searchState, params)) : undefined;
    let out = '{"method":' + w.str(method) + ',"url":' + w.str(url) + ',"fullPath":' + w.str(fullPath);
    if (sentUrl !== undefined) out += ',"sentUrl":' + w.str(sentUrl);
    const h = w.value(headers, 1);
    out += ',"headers":' + (h === undefined ? 'null' : h);
    if (pairs !== undefined) out += ',"paramPairs":' + pairs;
    else { const p = w.value(params, 1); out += ',"params":' + (p === undefined ? 'null' : p); }
    return out + ',"body":' + w.body(config.data) + '}';
  }
  function capture(config) {
    let json;
    try {
      json = record(config);
    } catch (e) {
      json = '{"refused":' + stringify(e instanceof Limit ? S(e.message) : 'reading the request failed: ' + I.describe(e)) + '}';
    }
    I.send('request', json);
  }
  axios.defaults.adapter = function wapiiCapture(config) {
    capture(config);
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

  const indirectEval = g.eval;
  const rejected = function (e) { I.fail(e); };
  /** Runs the wrapped program; whatever it throws or rejects with is recorded here, as text. */
  function run(source) {
    let result;
    try {
      result = indirectEval(source);
    } catch (e) {
      let syntax = false;
      try { syntax = e instanceof I.SyntaxError; } catch (x) { syntax = false; }
      I.fail(e, syntax ? 'syntax' : 'error');
      return;
    }
    try { I.promiseThen(result, undefined, rejected); } catch (e) { /* the completion value is not a promise: the wrapper was broken out of */ }
  }
  return { run: run, tick: I.tick };
})();
`;
