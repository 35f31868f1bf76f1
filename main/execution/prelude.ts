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
  const dateGetTime = bind(Date.prototype.getTime);
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
  // Delays follow Node's timers: ToNumber, then anything not in [1, 2^31 - 1] (0, negative, NaN,
  // Infinity, 2^31 and more) becomes 1 ms, and fractions are truncated. setImmediate runs before them.
  const TIMEOUT_MAX = 2147483647, trunc = Math.trunc;
  let now = 0, nextId = 1, fired = 0;
  const timers = [];
  function nodeDelay(ms) {
    let after = 1;
    try { after = +ms; } catch (e) { after = 1; }
    if (!(after >= 1 && after <= TIMEOUT_MAX)) after = 1;
    return trunc(after);
  }
  function schedule(fn, delay, args, interval) {
    if (typeof fn !== 'function' || timers.length >= limits.timers) return 0;
    const id = nextId++;
    push(timers, { id: id, at: now + delay, fn: fn, args: args, interval: interval ? delay : 0 });
    return id;
  }
  function cancel(id) { for (let i = 0; i < timers.length; i++) if (timers[i].id === id) { spliceA(timers, i, 1); return; } }
  function rest(args, from) { const r = []; for (let i = from; i < args.length; i++) push(r, args[i]); return r; }
  g.setTimeout = function (fn, ms) { return schedule(fn, nodeDelay(ms), rest(arguments, 2), false); };
  g.setInterval = function (fn, ms) { return schedule(fn, nodeDelay(ms), rest(arguments, 2), true); };
  g.setImmediate = function (fn) { return schedule(fn, 0, rest(arguments, 1), false); };
  g.clearTimeout = g.clearInterval = g.clearImmediate = cancel;
  g.queueMicrotask = function (fn) { promiseThen(promiseResolve(), fn); };

  // process.nextTick as Node orders it: its queue runs before promise jobs, after the main program,
  // after each timer, and again whenever promise jobs have queued more ticks.
  const ticks = [];
  let tickHead = 0;
  function nextTick(fn) {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
    push(ticks, { fn: fn, args: rest(arguments, 1) });
  }
  /** Runs every queued tick (and the ticks they queue), in order. Never throws. */
  function drainTicks() {
    while (tickHead < ticks.length && !state.exited) {
      const t = ticks[tickHead];
      ticks[tickHead++] = undefined;
      try { apply(t.fn, undefined, t.args); } catch (e) { fail(e); }
      if (tickHead > 4096) { spliceA(ticks, 0, tickHead); tickHead = 0; }
    }
    spliceA(ticks, 0, ticks.length); tickHead = 0;
  }
  /** Ticks queued by promise jobs first (they ran before any timer in Node), then the earliest timer and its ticks; false once nothing is left (or the cap is reached). Never throws. */
  function tick() {
    if (state.exited) return false;
    if (tickHead < ticks.length) { drainTicks(); return true; }
    if (timers.length === 0 || fired >= limits.timers) return false;
    let best = 0;
    for (let i = 1; i < timers.length; i++) if (timers[i].at < timers[best].at || (timers[i].at === timers[best].at && timers[i].id < timers[best].id)) best = i;
    const t = timers[best];
    spliceA(timers, best, 1);
    now = t.at; fired++;
    if (t.interval) { t.at = now + t.interval; push(timers, t); }
    try { apply(t.fn, undefined, t.args); } catch (e) { fail(e); }
    drainTicks();
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
    nextTick: nextTick,
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
      // A date is sent as its toISOString() answers, the program's own if it replaced it (Axios's params and JSON.stringify both call it); an invalid one as JSON writes it.
      if (time !== undefined) return time === time ? str(S(v.toISOString())) : 'null';
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
    /**
     * A fetch body as undici extracts it: its JSON record and the Content-Type it implies (none for
     * bytes or a typeless Blob). A URLSearchParams is sent as its toString() answers; anything that
     * is not a string, form, Blob or bytes as String() writes it (a plain object is "[object Object]").
     */
    function fetchBody(data) {
      if (data === undefined || data === null) return { json: '{"kind":"none"}', type: undefined };
      if (typeof data === 'string') return { json: body(data), type: 'text/plain;charset=UTF-8' };
      if (wmHas(searchState, data)) return { json: body(S(data.toString())), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
      if (wmHas(formState, data)) return { json: body(data), type: 'multipart/form-data; boundary=----wapiiFormBoundary' };
      if (wmHas(blobState, data)) { const t = S(data.type); return { json: body(data), type: t === '' ? undefined : t }; }
      if (typeof data === 'object') {
        let bytes = isView(data);
        if (!bytes) { try { bufferByteLength(data); bytes = true; } catch (e) { bytes = false; } }
        if (bytes) return { json: body(data), type: undefined };
      }
      return { json: body(S(data)), type: 'text/plain;charset=UTF-8' };
    }
    return { value: value, str: str, pairs: pairs, body: body, fetchBody: fetchBody };
  }

  defineProperty(g, '__wapiiInternal', { configurable: true, value: {
    send: send, fail: fail, describe: describe, tick: tick, drainTicks: drainTicks, state: state, exitSignal: exitSignal, writer: writer, Limit: Limit,
    searchState: searchState, stringTag: stringTag, S: S, stringify: stringify, promiseThen: promiseThen, SyntaxError: SyntaxError_,
    Error: Error_, Promise: Promise_, wmHas: wmHas, wmGet: wmGet, wmSet: wmSet, push: push, rest: rest, Blob: Blob,
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
  /** Set per program by run(): capture as the reference's mock did (--compat reference). */
  let reference = false;

  function text(v) { const s = S(v); if (s.length > MAX_URL) throw new Limit('the URL is longer than ' + MAX_URL + ' characters'); return s; }
  function customSerializer(ps) {
    return ps != null && (typeof ps === 'function' || typeof ps.serialize === 'function' || typeof ps.encode === 'function');
  }
  /**
   * One JSON record of what reached the adapter. Every field of the config is read exactly once,
   * here, in the order Axios's http adapter reads them, and everything after works on those
   * values: a getter or interceptor that answers differently on each read is scored by the answer
   * the request was built from. In reference mode the mock's view: a custom paramsSerializer is
   * never called (its mock never builds the URL).
   */
  function record(config) {
    const w = I.writer();
    const data = config.data;
    const method = config.method;
    if (typeof method !== 'string') throw new Limit('the request method is not a string');
    const rawBase = config.baseURL, rawUrl = config.url, allowAbsoluteUrls = config.allowAbsoluteUrls;
    const headersValue = config.headers, auth = config.auth, params = config.params, paramsSerializer = config.paramsSerializer;
    const url = rawUrl == null ? '' : text(rawUrl);
    const baseURL = rawBase ? text(rawBase) : rawBase;
    // How the reference composed the URL (kept for --compat reference).
    let refUrl = url;
    if (baseURL && !test(ABSOLUTE, url)) refUrl = replace(baseURL, /\/+$/, '') + (url ? '/' + replace(url, /^\/+/, '') : '');
    // Where Axios really sends it: its own buildFullPath and buildURL, through Axios.prototype.getUri.
    const target = { url: url, baseURL: baseURL, allowAbsoluteUrls: allowAbsoluteUrls };
    const fullPath = text(getUri({ defaults: {} }, target));
    const serializer = !reference && customSerializer(paramsSerializer);
    const sentUrl = serializer ? text(getUri({ defaults: {} }, assign({}, target, { params: params, paramsSerializer: paramsSerializer }))) : undefined;
    // Axios's buildURL sends a URLSearchParams (by its toStringTag, as Axios tests it) as its toString() answers, replaced or not.
    const paramsText = !reference && !serializer && params && I.stringTag(params) === '[object URLSearchParams]' ? S(params.toString()) : undefined;
    // Node's http adapter: Basic credentials from the auth option, concatenated as Axios does; they replace any Authorization header.
    const credentials = !reference && auth ? S((auth.username || '') + ':' + (auth.password || '')) : undefined;
    let headers = headersValue;
    if (headers && typeof headers.toJSON === 'function') headers = headers.toJSON();
    const pairs = paramsText === undefined && params != null && I.wmHas(I.searchState, params) ? w.pairs(I.wmGet(I.searchState, params)) : undefined;
    let out = '{"method":' + w.str(method) + ',"url":' + w.str(refUrl) + ',"fullPath":' + w.str(fullPath);
    if (sentUrl !== undefined) out += ',"sentUrl":' + w.str(sentUrl);
    if (credentials !== undefined) out += ',"auth":' + w.str(credentials);
    const h = w.value(headers, 1);
    out += ',"headers":' + (h === undefined ? 'null' : h);
    if (paramsText !== undefined) out += ',"paramsText":' + w.str(paramsText);
    else if (pairs !== undefined) out += ',"paramPairs":' + pairs;
    else { const p = w.value(params, 1); out += ',"params":' + (p === undefined ? 'null' : p); }
    return out + ',"body":' + w.body(data) + '}';
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
  // ---- The global fetch, as Node's (undici) builds and sends a request ----
  // Headers, Request and Response as far as programs use them; the request is recorded when fetch
  // is called, from values read once. What undici refuses (a header name that is not a token, a
  // value with NUL, CR or LF or a character past U+00FF, a GET or HEAD with a body, a forbidden
  // method) rejects the call with a TypeError and is recorded as refused: it was the program's
  // first request, and nothing was sent.
  const wmHas = I.wmHas, wmGet = I.wmGet, wmSet = I.wmSet, push = I.push, rest = I.rest;
  const charCodeAt = Function.prototype.call.bind(String.prototype.charCodeAt), toLowerCase = Function.prototype.call.bind(String.prototype.toLowerCase), toUpperCase = Function.prototype.call.bind(String.prototype.toUpperCase);
  const sort = Function.prototype.call.bind(Array.prototype.sort), objectKeys = Object.keys, objectCreate = Object.create, TypeError_ = TypeError;
  const promiseResolve = Promise.resolve.bind(Promise), promiseReject = Promise.reject.bind(Promise);
  const HTTP_TOKEN = /^[!#$%&'*+\-.^_\`|~0-9A-Za-z]+$/;
  const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
  const FORBIDDEN_IN_VALUE = /[\0\r\n]/;
  const NORMALIZED_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
  const headerState = new WeakMap(), requestState = new WeakMap();

  function byteString(v, what) {
    const s = S(v);
    for (let i = 0; i < s.length; i++) if (charCodeAt(s, i) > 255) throw new TypeError_(what + ' has a character past U+00FF at index ' + i + ', which is not a ByteString');
    return s;
  }
  function headerName(name) {
    const n = byteString(name, 'a header name');
    if (!test(HTTP_TOKEN, n)) throw new TypeError_('"' + n + '" is an invalid header name');
    return toLowerCase(n);
  }
  function headerValue(name, value) {
    const v = replace(byteString(value, 'the value of header "' + name + '"'), HTTP_WHITESPACE, '');
    if (test(FORBIDDEN_IN_VALUE, v)) throw new TypeError_('the value of header "' + name + '" has a NUL, CR or LF');
    return v;
  }
  function listOf(h) { return wmGet(headerState, h); }
  function appendTo(list, name, value) { const n = headerName(name); push(list, [n, headerValue(n, value)]); }
  function fill(list, init) {
    if (init === undefined || init === null) return;
    if (wmHas(headerState, init)) { const other = listOf(init); for (let i = 0; i < other.length; i++) push(list, [other[i][0], other[i][1]]); return; }
    if (typeof init !== 'object' && typeof init !== 'function') throw new TypeError_('headers must be an object, an array of pairs or a Headers');
    if (typeof init[Symbol.iterator] === 'function') {
      for (const pair of init) {
        const kv = [];
        for (const x of pair) push(kv, x);
        if (kv.length !== 2) throw new TypeError_('a header pair must have a name and a value');
        appendTo(list, kv[0], kv[1]);
      }
      return;
    }
    const keys = objectKeys(init);
    for (let i = 0; i < keys.length; i++) appendTo(list, keys[i], init[keys[i]]);
  }
  /** The header list as sent: names lowercased, a name given more than once one value joined by ", ", sorted by name. */
  function combined(list) {
    const names = [], values = objectCreate(null);
    for (let i = 0; i < list.length; i++) {
      const n = list[i][0];
      if (n in values) values[n] += ', ' + list[i][1];
      else { push(names, n); values[n] = list[i][1]; }
    }
    sort(names);
    const out = [];
    for (let i = 0; i < names.length; i++) push(out, [names[i], values[names[i]]]);
    return out;
  }
  function has(list, name) { for (let i = 0; i < list.length; i++) if (list[i][0] === name) return true; return false; }
  class Headers {
    constructor(init) { const list = []; wmSet(headerState, this, list); fill(list, init); }
    append(name, value) { appendTo(listOf(this), name, value); }
    set(name, value) { const n = headerName(name); const v = headerValue(n, value); this.delete(n); push(listOf(this), [n, v]); }
    get(name) { const n = headerName(name); const c = combined(listOf(this)); for (let i = 0; i < c.length; i++) if (c[i][0] === n) return c[i][1]; return null; }
    has(name) { return has(listOf(this), headerName(name)); }
    delete(name) { const n = headerName(name); const list = listOf(this); for (let i = list.length - 1; i >= 0; i--) if (list[i][0] === n) list.splice(i, 1); }
    forEach(fn, self) { const c = combined(listOf(this)); for (let i = 0; i < c.length; i++) fn.call(self, c[i][1], c[i][0], this); }
    entries() { return combined(listOf(this))[Symbol.iterator](); }
    keys() { return combined(listOf(this)).map(function (p) { return p[0]; })[Symbol.iterator](); }
    values() { return combined(listOf(this)).map(function (p) { return p[1]; })[Symbol.iterator](); }
    getSetCookie() { return []; }
    [Symbol.iterator]() { return this.entries(); }
    get [Symbol.toStringTag]() { return 'Headers'; }
  }

  /** A request as undici's Request constructor builds it from (input, init): each init member read once. */
  function build(input, init) {
    const from = input !== null && typeof input === 'object' && wmHas(requestState, input) ? wmGet(requestState, input) : undefined;
    const url = from ? from.url : text(input);
    let method = from ? from.method : 'GET';
    const list = [];
    let body = from ? from.body : undefined;
    if (init !== undefined && init !== null) {
      const m = init.method, h = init.headers, b = init.body;
      if (m !== undefined) {
        const given = byteString(m, 'the method');
        if (!test(HTTP_TOKEN, given)) throw new TypeError_("'" + given + "' is not a valid HTTP method");
        const upper = toUpperCase(given);
        if (upper === 'CONNECT' || upper === 'TRACE' || upper === 'TRACK') throw new TypeError_("'" + given + "' HTTP method is unsupported");
        method = NORMALIZED_METHODS.indexOf(upper) >= 0 ? upper : given;
      }
      if (h !== undefined) fill(list, h);
      else if (from) fill(list, from.headers);
      if (b !== undefined) body = b;
    } else if (from) fill(list, from.headers);
    if (body !== undefined && body !== null && (method === 'GET' || method === 'HEAD')) throw new TypeError_('Request with GET/HEAD method cannot have body.');
    return { url: url, method: method, headers: list, body: body };
  }
  class Request {
    constructor(input, init) {
      const r = build(input, init);
      wmSet(requestState, this, r);
      const headers = new Headers(); wmSet(headerState, headers, r.headers);
      this.url = r.url; this.method = r.method; this.headers = headers;
    }
    clone() { return this; }
    get [Symbol.toStringTag]() { return 'Request'; }
  }
  class Response {
    constructor(body, init) {
      this.status = init && init.status !== undefined ? init.status : 200; this.ok = this.status >= 200 && this.status < 300;
      this.statusText = init && init.statusText !== undefined ? init.statusText : 'OK'; this.headers = new Headers(init && init.headers);
      this.url = ''; this.redirected = false; this.type = 'basic'; this.body = null; this.bodyUsed = false;
      this._text = body === undefined || body === null ? '' : S(body);
    }
    json() { const t = this._text; return promiseResolve(t === '' ? {} : JSON.parse(t)); }
    text() { return promiseResolve(this._text); }
    blob() { return promiseResolve(new I.Blob([this._text], { type: 'application/json' })); }
    arrayBuffer() { return promiseResolve(new g.TextEncoder().encode(this._text).buffer); }
    formData() { return promiseResolve(new g.FormData()); }
    clone() { return this; }
    get [Symbol.toStringTag]() { return 'Response'; }
  }
  /** One JSON record of what undici sends: the implicit Accept and the body's Content-Type where the program set none. */
  function fetchRecord(r) {
    const w = I.writer();
    const extracted = w.fetchBody(r.body);
    const list = [];
    for (let i = 0; i < r.headers.length; i++) push(list, r.headers[i]);
    if (extracted.type !== undefined && !has(list, 'content-type')) push(list, ['content-type', extracted.type]);
    if (!has(list, 'accept')) push(list, ['accept', '*/*']);
    const sent = combined(list);
    let headers = '{';
    for (let i = 0; i < sent.length; i++) headers += (i ? ',' : '') + w.str(sent[i][0]) + ':' + w.str(sent[i][1]);
    return '{"client":"fetch","method":' + w.str(r.method) + ',"url":' + w.str(r.url) + ',"fullPath":' + w.str(r.url) + ',"headers":' + headers + '},"params":null,"body":' + extracted.json + '}';
  }
  function fetch(input, init) {
    let json, failure;
    try {
      json = fetchRecord(build(input, init));
    } catch (e) {
      failure = e;
      json = '{"refused":' + stringify(e instanceof Limit ? S(e.message) : 'fetch refused the request: ' + I.describe(e)) + '}';
    }
    I.send('request', json);
    if (failure !== undefined) return promiseReject(failure instanceof Limit ? new TypeError_(S(failure.message)) : failure);
    const response = new Response('{}', { headers: { 'content-type': 'application/json' } });
    response.url = typeof input === 'string' ? input : '';
    return promiseResolve(response);
  }
  g.fetch = fetch; g.Headers = Headers; g.Request = Request; g.Response = Response;
  const nodeFetch = function (input, init) { return fetch(input, init); };
  nodeFetch.default = nodeFetch; nodeFetch.Headers = Headers; nodeFetch.Request = Request; nodeFetch.Response = Response;

  const modules = {
    axios: axios,
    'node-fetch': nodeFetch,
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
    throw new Error("Cannot find module '" + name + "' (the sandbox offers axios, node-fetch, form-data, url and querystring; fetch is global)");
  };
  // CommonJS names for code that assigns module.exports; defined after Axios, whose UMD header would use them.
  g.module = { exports: {} }; g.exports = g.module.exports;

  const indirectEval = g.eval;
  const rejected = function (e) { I.fail(e); };
  /** Runs the wrapped program; whatever it throws or rejects with is recorded here, as text. Then its ticks, before any promise job (Node's order). */
  function run(source, mode) {
    reference = mode === 'reference';
    let result;
    try {
      result = indirectEval(source);
    } catch (e) {
      let syntax = false;
      try { syntax = e instanceof I.SyntaxError; } catch (x) { syntax = false; }
      I.fail(e, syntax ? 'syntax' : 'error');
      I.drainTicks();
      return;
    }
    try { I.promiseThen(result, undefined, rejected); } catch (e) { /* the completion value is not a promise: the wrapper was broken out of */ }
    I.drainTicks();
  }
  return { run: run, tick: I.tick };
})();
`;
