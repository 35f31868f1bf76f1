/**
 * Scripts that run inside every sandbox context, as source text. A bare V8 context has none of
 * the web or Node APIs generated code reaches for, so these provide small, dependency-free
 * stand-ins: `console` (captured, capped), timers on a virtual clock, `URL`, `URLSearchParams`
 * (the WHATWG parser and serializer for the forms programs write), `FormData`, `Blob`,
 * `TextEncoder`/`TextDecoder` (UTF-8 as the Encoding standard decodes it), `btoa`/`atob`, a
 * `process` stub, and each program's own `require` for `axios`, `form-data`, `url` and
 * `querystring` (with `module`, `exports`, `__filename`, `__dirname`: see program.ts). The other
 * Node 20 globals are in globals.ts. They are written here rather than taken from core-js because
 * every context loads them afresh: a full WHATWG polyfill would cost more than the whole
 * snippet's run (the budget is ~1 ms per context).
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
  const test = bind(RegExp.prototype.test), objectCreate = Object.create;

  // Program-visible objects whose contents the capture reads keep them here, out of the program's reach.
  const searchState = new WeakMap(), formState = new WeakMap(), blobState = new WeakMap();

  /** A record to the host; for a request, the host's answer (JSON text) where it answers from stubs. */
  function send(kind, payload) { return host(kind, payload); }

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
  /** A timer on the virtual clock; an unref'd one (AbortSignal.timeout's) fires only while a ref'd one is pending, as it keeps no Node process alive. */
  function schedule(fn, delay, args, interval, unref) {
    if (typeof fn !== 'function' || timers.length >= limits.timers) return 0;
    const id = nextId++;
    push(timers, { id: id, at: now + delay, fn: fn, args: args, interval: interval ? delay : 0, unref: !!unref });
    return id;
  }
  function anyRef() { for (let i = 0; i < timers.length; i++) if (!timers[i].unref) return true; return false; }
  // performance.now(): the virtual clock plus the time the program has really run, so it moves on across a timer and within a busy loop.
  const dateNow = Date.now, startedAt = dateNow();
  function performanceNow() { return now + (dateNow() - startedAt); }
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
    if (!anyRef() || fired >= limits.timers) return false;
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

  // ---- UTF-8 and percent-encoding, as the WHATWG Encoding and URL standards define them ----
  // Written here because a bare context has neither, and no installed implementation runs without
  // Node's internals; each is a few lines of the standard's own algorithm.
  /** A string's UTF-8 bytes; a lone surrogate becomes U+FFFD, as TextEncoder and URL write it. */
  function utf8Bytes(str) {
    const s = S(str), out = [];
    for (let i = 0; i < s.length; i++) {
      let c = charCodeAt(s, i);
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < s.length ? charCodeAt(s, i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; } else c = 0xfffd;
      }
      if (c < 0x80) push(out, c);
      else if (c < 0x800) push(out, 0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) push(out, 0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else push(out, 0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }
  /** The UTF-8 decoder of the Encoding standard: each maximal invalid subpart is one U+FFFD (or, fatal, a TypeError). */
  function utf8Text(a, fatal) {
    let out = '', units = [], needed = 0, seen = 0, cp = 0, lower = 0x80, upper = 0xbf, i = 0;
    const n = a.length;
    function emit(c) {
      if (c > 0xffff) { c -= 0x10000; push(units, 0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff)); } else push(units, c);
      if (units.length >= 4096) { out += apply(fromCharCode, undefined, units); units = []; }
    }
    function bad() { if (fatal) { const e = new TypeError('The encoded data was not valid for encoding utf-8'); e.code = 'ERR_ENCODING_INVALID_ENCODED_DATA'; throw e; } emit(0xfffd); }
    while (i < n) {
      const b = a[i];
      if (needed === 0) {
        i++;
        if (b <= 0x7f) emit(b);
        else if (b >= 0xc2 && b <= 0xdf) { needed = 1; cp = b & 0x1f; }
        else if (b >= 0xe0 && b <= 0xef) { if (b === 0xe0) lower = 0xa0; if (b === 0xed) upper = 0x9f; needed = 2; cp = b & 0xf; }
        else if (b >= 0xf0 && b <= 0xf4) { if (b === 0xf0) lower = 0x90; if (b === 0xf4) upper = 0x8f; needed = 3; cp = b & 0x7; }
        else bad();
        continue;
      }
      if (b < lower || b > upper) { needed = seen = cp = 0; lower = 0x80; upper = 0xbf; bad(); continue; }
      lower = 0x80; upper = 0xbf; cp = (cp << 6) | (b & 0x3f); seen++; i++;
      if (seen === needed) { emit(cp); needed = seen = cp = 0; }
    }
    if (needed !== 0) bad();
    return out + apply(fromCharCode, undefined, units);
  }
  /** The bytes of an ArrayBuffer, a typed array or a DataView, as a Uint8Array over the same memory; undefined for anything else. */
  function bytesOf(v) {
    if (v === null || typeof v !== 'object') return undefined;
    try { return new U8(v, 0, bufferByteLength(v)); } catch (e) { /* not an ArrayBuffer */ }
    if (!isView(v)) return undefined;
    try { return new U8(viewBuffer(v), viewOffset(v), viewLength(v)); } catch (e) { /* a DataView */ }
    try { return new U8(dvBuffer(v), v.byteOffset, v.byteLength); } catch (e) { return undefined; }
  }
  const HEXD = '0123456789ABCDEF';
  /** Percent-encodes a string's UTF-8 bytes where keep(byte) is false; a space is '+' when plus is set (forms). */
  function percentEncode(str, keep, plus) {
    const b = utf8Bytes(str);
    let out = '';
    for (let i = 0; i < b.length; i++) {
      const x = b[i];
      if (plus && x === 0x20) out += '+';
      else if (x < 0x80 && keep(x)) out += fromCharCode(x);
      else out += '%' + HEXD[x >> 4] + HEXD[x & 15];
    }
    return out;
  }
  /** Percent-decodes (a '%' not followed by two hex digits stays), then reads the bytes as UTF-8. */
  function percentDecode(s) {
    const bytes = [];
    for (let i = 0; i < s.length; i++) {
      const c = charCodeAt(s, i);
      if (c === 0x25 && i + 2 < s.length && test(/^[0-9a-fA-F]{2}$/, slice(s, i + 1, i + 3))) { push(bytes, parseInt(slice(s, i + 1, i + 3), 16)); i += 2; }
      else if (c < 0x80) push(bytes, c);
      else { const u = utf8Bytes(fromCharCode(c) + (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? fromCharCode(charCodeAt(s, ++i)) : '')); for (let k = 0; k < u.length; k++) push(bytes, u[k]); }
    }
    return utf8Text(bytes, false);
  }
  const isAlnum = function (x) { return (x >= 0x30 && x <= 0x39) || (x >= 0x41 && x <= 0x5a) || (x >= 0x61 && x <= 0x7a); };
  /** application/x-www-form-urlencoded: only alphanumerics and *-._ stay as they are. */
  function encode(s) { return percentEncode(s, function (x) { return isAlnum(x) || x === 0x2a || x === 0x2d || x === 0x2e || x === 0x5f; }, true); }
  function decode(s) { return percentDecode(replace(s, /\+/g, ' ')); }
  function serializeSearch(list) { let out = ''; for (let i = 0; i < list.length; i++) out += (i ? '&' : '') + encode(list[i][0]) + '=' + encode(list[i][1]); return out; }
  function parseSearch(s, list) {
    const parts = split(s, '&');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!part) continue;
      const eq = indexOf(part, '=');
      push(list, eq < 0 ? [decode(part), ''] : [decode(slice(part, 0, eq)), decode(slice(part, eq + 1))]);
    }
  }

  // A URL's searchParams writes its changes back into the URL's query.
  const searchOwner = new WeakMap(), urlState = new WeakMap();
  function touched(params) {
    const url = wmGet(searchOwner, params);
    if (url === undefined) return;
    const q = serializeSearch(wmGet(searchState, params));
    wmGet(urlState, url).query = q === '' ? null : q;
  }
  class URLSearchParams {
    constructor(init) {
      const list = [];
      wmSet(searchState, this, list);
      if (init == null) return;
      if (typeof init === 'object' || typeof init === 'function') {
        if (wmHas(searchState, init)) {
          const other = wmGet(searchState, init);
          for (let i = 0; i < other.length; i++) push(list, [other[i][0], other[i][1]]);
        } else if (typeof init[Symbol.iterator] === 'function') {
          for (const pair of init) {
            const kv = [];
            for (const x of pair) push(kv, x);
            if (kv.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
            push(list, [S(kv[0]), S(kv[1])]);
          }
        } else {
          const keys = objectKeys(init);
          for (let i = 0; i < keys.length; i++) push(list, [keys[i], S(init[keys[i]])]);
        }
        return;
      }
      const s = S(init);
      parseSearch(charCodeAt(s, 0) === 0x3f ? slice(s, 1) : s, list);
    }
    get _list() { return wmGet(searchState, this); }
    append(k, v) { push(this._list, [S(k), S(v)]); touched(this); }
    set(k, v) {
      const key = S(k), value = S(v), list = this._list;
      let at = -1;
      for (let i = 0; i < list.length; i++) if (list[i][0] === key) { if (at < 0) { at = i; list[i][1] = value; } else { spliceA(list, i, 1); i--; } }
      if (at < 0) push(list, [key, value]);
      touched(this);
    }
    get(k) { const key = S(k), list = this._list; for (let i = 0; i < list.length; i++) if (list[i][0] === key) return list[i][1]; return null; }
    getAll(k) { const key = S(k), list = this._list, out = []; for (let i = 0; i < list.length; i++) if (list[i][0] === key) push(out, list[i][1]); return out; }
    has(k, v) { const key = S(k), list = this._list; for (let i = 0; i < list.length; i++) if (list[i][0] === key && (v === undefined || list[i][1] === S(v))) return true; return false; }
    delete(k, v) { const key = S(k), list = this._list; for (let i = list.length - 1; i >= 0; i--) if (list[i][0] === key && (v === undefined || list[i][1] === S(v))) spliceA(list, i, 1); touched(this); }
    forEach(fn, self) { const list = this._list; for (let i = 0; i < list.length; i++) fn.call(self, list[i][1], list[i][0], this); }
    keys() { return this._list.map(function (p) { return p[0]; })[Symbol.iterator](); }
    values() { return this._list.map(function (p) { return p[1]; })[Symbol.iterator](); }
    entries() { return this._list.map(function (p) { return [p[0], p[1]]; })[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    get size() { return this._list.length; }
    sort() {
      // Stable, by UTF-16 code units, as the standard says.
      const list = this._list, sorted = list.map(function (p, i) { return [p, i]; }).sort(function (a, b) { return a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]; });
      for (let i = 0; i < sorted.length; i++) list[i] = sorted[i][0];
      touched(this);
    }
    toString() { return serializeSearch(this._list); }
    get [Symbol.toStringTag]() { return 'URLSearchParams'; }
  }

  // ---- URL: the WHATWG URL parser for the forms programs write (special schemes with a host, relative references) ----
  const SPECIAL = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21', 'file:': '' };
  const isSpecial = function (protocol) { return Object.prototype.hasOwnProperty.call(SPECIAL, protocol); };
  const C0 = function (x) { return x > 0x20 && x < 0x7f; };
  const FRAGMENT_KEEP = function (x) { return C0(x) && x !== 0x22 && x !== 0x3c && x !== 0x3e && x !== 0x60; };
  const QUERY_KEEP = function (x) { return C0(x) && x !== 0x22 && x !== 0x23 && x !== 0x3c && x !== 0x3e; };
  const SPECIAL_QUERY_KEEP = function (x) { return QUERY_KEEP(x) && x !== 0x27; };
  const PATH_KEEP = function (x) { return QUERY_KEEP(x) && x !== 0x3f && x !== 0x60 && x !== 0x7b && x !== 0x7d; };
  const USERINFO_KEEP = function (x) { return PATH_KEEP(x) && x !== 0x2f && x !== 0x3a && x !== 0x3b && x !== 0x3d && x !== 0x40 && !(x >= 0x5b && x <= 0x5e) && x !== 0x7c; };
  const FORBIDDEN_HOST = /[\x00\t\n\r #\/:<>?@[\\\]^|%]/;
  function invalidURL(input) { const e = new TypeError('Invalid URL'); e.code = 'ERR_INVALID_URL'; e.input = input; return e; }
  function pathSegments(path, special) {
    const parts = split(special ? replace(path, /\\/g, '/') : path, '/'), out = [];
    for (let i = 0; i < parts.length; i++) {
      const seg = parts[i], low = seg.toLowerCase(), last = i === parts.length - 1;
      if (low === '..' || low === '.%2e' || low === '%2e.' || low === '%2e%2e') { if (out.length) out.pop(); if (last) push(out, ''); }
      else if (low === '.' || low === '%2e') { if (last) push(out, ''); }
      else push(out, percentEncode(seg, function (x) { return PATH_KEEP(x) || x === 0x25; }, false));
    }
    return out;
  }
  function parseHost(raw, special, input) {
    let host = special ? percentDecode(raw).toLowerCase() : raw;
    if (special && host === '') throw invalidURL(input);
    if (test(FORBIDDEN_HOST, charCodeAt(host, 0) === 0x5b ? '' : host)) throw invalidURL(input);
    return host;
  }
  /** Parses input against an optional base record into { protocol, username, password, hostname, port, path (array, or a string when opaque), query, fragment }. */
  function parseURL(input, base) {
    let s = replace(replace(S(input), /^[\x00-\x20]+|[\x00-\x20]+$/g, ''), /[\t\n\r]/g, '');
    const r = { protocol: '', username: '', password: '', hostname: '', port: '', path: [], query: null, fragment: null };
    const hash = indexOf(s, '#');
    if (hash >= 0) { r.fragment = percentEncode(slice(s, hash + 1), function (x) { return FRAGMENT_KEEP(x) || x === 0x25; }, false); s = slice(s, 0, hash); }
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s);
    let rest;
    if (scheme) {
      r.protocol = scheme[1].toLowerCase() + ':';
      rest = slice(s, scheme[0].length);
      if (!isSpecial(r.protocol) && !/^\/\//.test(rest)) {
        const q = indexOf(rest, '?');
        if (q >= 0) { r.query = percentEncode(slice(rest, q + 1), function (x) { return QUERY_KEEP(x) || x === 0x25; }, false); rest = slice(rest, 0, q); }
        r.path = percentEncode(rest, function (x) { return x >= 0x20 && x < 0x7f; }, false);
        return r;
      }
      if (isSpecial(r.protocol)) {
        if (base && base.protocol === r.protocol && !/^[\/\\]/.test(rest)) return relative(rest, base, r, input);
        rest = '//' + replace(rest, /^[\/\\]*/, '');
      }
    } else {
      if (!base || typeof base.path === 'string') throw invalidURL(input);
      r.protocol = base.protocol;
      return relative(s, base, r, input);
    }
    return authority(rest, r, input);
  }
  function authority(rest, r, input) {
    const special = isSpecial(r.protocol);
    let body = slice(rest, 2);
    const end = body.search(special ? /[\/\\?]/ : /[\/?]/);
    let auth = end < 0 ? body : slice(body, 0, end);
    body = end < 0 ? '' : slice(body, end);
    const at = auth.lastIndexOf('@');
    if (at >= 0) {
      const info = slice(auth, 0, at), colon = indexOf(info, ':');
      const keep = function (x) { return USERINFO_KEEP(x) || x === 0x25; };
      r.username = percentEncode(colon < 0 ? info : slice(info, 0, colon), keep, false);
      r.password = colon < 0 ? '' : percentEncode(slice(info, colon + 1), keep, false);
      auth = slice(auth, at + 1);
    }
    const port = /:(\d*)$/.exec(auth);
    if (port) {
      auth = slice(auth, 0, port.index);
      if (port[1] !== '') {
        const n = +port[1];
        if (n > 65535) throw invalidURL(input);
        r.port = SPECIAL[r.protocol] === S(n) ? '' : S(n);
      }
    }
    if (r.protocol === 'file:') r.hostname = auth.toLowerCase();
    else r.hostname = parseHost(auth, special, input);
    return pathAndQuery(body, r);
  }
  function pathAndQuery(body, r) {
    const special = isSpecial(r.protocol);
    const q = indexOf(body, '?');
    if (q >= 0) { r.query = percentEncode(slice(body, q + 1), function (x) { return (special ? SPECIAL_QUERY_KEEP(x) : QUERY_KEEP(x)) || x === 0x25; }, false); body = slice(body, 0, q); }
    const segments = pathSegments(body, special);
    if (segments.length && segments[0] === '') segments.shift();
    r.path = special && segments.length === 0 ? [''] : segments;
    return r;
  }
  function relative(s, base, r, input) {
    const special = isSpecial(r.protocol);
    if (special ? /^[\/\\]{2}/.test(s) : /^\/\//.test(s)) return authority(s, r, input);
    r.username = base.username; r.password = base.password; r.hostname = base.hostname; r.port = base.port;
    if (s === '') { r.path = base.path.slice(); r.query = base.query; return r; }
    if (charCodeAt(s, 0) === 0x3f) { const path = base.path.slice(); pathAndQuery(s, r); r.path = path; return r; }
    if (special ? /^[\/\\]/.test(s) : /^\//.test(s)) return pathAndQuery(s, r);
    const dir = base.path.slice(0, -1);
    return pathAndQuery('/' + (dir.length ? dir.join('/') + '/' : '') + s, r);
  }
  function pathText(r) { return typeof r.path === 'string' ? r.path : '/' + r.path.join('/'); }
  function hostText(r) { return r.hostname + (r.port ? ':' + r.port : ''); }
  function hrefOf(r) {
    const special = isSpecial(r.protocol);
    let out = r.protocol;
    if (typeof r.path !== 'string') out += '//' + (r.username || r.password ? r.username + (r.password ? ':' + r.password : '') + '@' : '') + hostText(r);
    if (!special && typeof r.path !== 'string' && r.path.length === 0) { /* no path */ } else out += pathText(r);
    return out + (r.query !== null ? '?' + r.query : '') + (r.fragment !== null ? '#' + r.fragment : '');
  }
  function linkSearch(url, r) {
    const params = new URLSearchParams(r.query === null ? '' : r.query);
    wmSet(searchOwner, params, url);
    r.searchParams = params;
  }
  function stateOf(url) { const r = wmGet(urlState, url); if (r === undefined) throw new TypeError('Value of "this" must be of type URL'); return r; }
  class URL {
    constructor(href, base) {
      if (arguments.length === 0) throw new TypeError('The "url" argument must be specified');
      const b = base === undefined ? undefined : parseURL(base);
      const r = parseURL(href, b);
      wmSet(urlState, this, r);
      linkSearch(this, r);
    }
    static canParse(href, base) { try { parseURL(href, base === undefined ? undefined : parseURL(base)); return true; } catch (e) { return false; } }
    get href() { return hrefOf(stateOf(this)); }
    set href(v) { const r = parseURL(v); wmSet(urlState, this, r); linkSearch(this, r); }
    get origin() { const r = stateOf(this); return isSpecial(r.protocol) && r.protocol !== 'file:' ? r.protocol + '//' + hostText(r) : 'null'; }
    get protocol() { return stateOf(this).protocol; }
    set protocol(v) { const r = stateOf(this), p = replace(S(v), /:.*$/, '').toLowerCase() + ':'; if (/^[a-z][a-z0-9+.-]*:$/.test(p) && isSpecial(p) === isSpecial(r.protocol)) { r.protocol = p; if (SPECIAL[p] === r.port) r.port = ''; } }
    get username() { return stateOf(this).username; }
    set username(v) { stateOf(this).username = percentEncode(S(v), USERINFO_KEEP, false); }
    get password() { return stateOf(this).password; }
    set password(v) { stateOf(this).password = percentEncode(S(v), USERINFO_KEEP, false); }
    get host() { return hostText(stateOf(this)); }
    set host(v) { const r = stateOf(this); try { const t = parseURL(r.protocol + '//' + S(v)); r.hostname = t.hostname; r.port = t.port; } catch (e) { /* an invalid host is ignored */ } }
    get hostname() { return stateOf(this).hostname; }
    set hostname(v) { const r = stateOf(this); try { r.hostname = parseURL(r.protocol + '//' + S(v)).hostname; } catch (e) { /* ignored */ } }
    get port() { return stateOf(this).port; }
    set port(v) { const r = stateOf(this), m = /^\d*/.exec(S(v))[0]; if (m === '') { if (S(v) === '') r.port = ''; return; } const n = +m; if (n <= 65535) r.port = SPECIAL[r.protocol] === S(n) ? '' : S(n); }
    get pathname() { return pathText(stateOf(this)); }
    set pathname(v) { const r = stateOf(this); if (typeof r.path === 'string') return; const segs = pathSegments(S(v), isSpecial(r.protocol)); if (segs.length && segs[0] === '') segs.shift(); r.path = segs.length ? segs : ['']; }
    get search() { const q = stateOf(this).query; return q === null || q === '' ? '' : '?' + q; }
    set search(v) { const r = stateOf(this); let s = S(v); if (charCodeAt(s, 0) === 0x3f) s = slice(s, 1); r.query = s === '' ? null : percentEncode(s, function (x) { return (isSpecial(r.protocol) ? SPECIAL_QUERY_KEEP(x) : QUERY_KEEP(x)) || x === 0x25; }, false); const list = wmGet(searchState, r.searchParams); spliceA(list, 0, list.length); parseSearch(s, list); }
    get searchParams() { return stateOf(this).searchParams; }
    get hash() { const f = stateOf(this).fragment; return f === null || f === '' ? '' : '#' + f; }
    set hash(v) { const r = stateOf(this); let s = S(v); if (charCodeAt(s, 0) === 0x23) s = slice(s, 1); r.fragment = s === '' ? null : percentEncode(s, function (x) { return FRAGMENT_KEEP(x) || x === 0x25; }, false); }
    toString() { return this.href; }
    toJSON() { return this.href; }
    get [Symbol.toStringTag]() { return 'URL'; }
  }

  // ---- Blob: the bytes of its parts; the capture reads its text (a part's bytes as UTF-8) ----
  function blobText(p) { return typeof p === 'string' ? p : wmHas(blobState, p) ? wmGet(blobState, p).text : S(p); }
  function blobOf(bytes, type) {
    const blob = objectCreate(Blob.prototype);
    wmSet(blobState, blob, { bytes: bytes, text: utf8Text(bytes, false), type: type });
    return blob;
  }
  function blobType(t) { const s = t === undefined ? '' : S(t); return /^[\x20-\x7e]*$/.test(s) ? s.toLowerCase() : ''; }
  class Blob {
    constructor(parts, options) {
      const bytes = [];
      if (parts !== undefined) {
        if (parts === null || typeof parts !== 'object' || typeof parts[Symbol.iterator] !== 'function') throw new TypeError('The "sources" argument must be a sequence.');
        for (const p of parts) {
          const b = wmHas(blobState, p) ? wmGet(blobState, p).bytes : bytesOf(p) || utf8Bytes(S(p));
          for (let i = 0; i < b.length; i++) push(bytes, b[i]);
        }
      }
      wmSet(blobState, this, { bytes: new U8(bytes), text: utf8Text(bytes, false), type: blobType(options && options.type) });
    }
    get size() { return wmGet(blobState, this).bytes.length; }
    get type() { return wmGet(blobState, this).type; }
    text() { return promiseResolve(wmGet(blobState, this).text); }
    arrayBuffer() { return promiseResolve(new U8(wmGet(blobState, this).bytes).buffer); }
    bytes() { return promiseResolve(new U8(wmGet(blobState, this).bytes)); }
    slice(start, end, type) {
      const b = wmGet(blobState, this).bytes, n = b.length;
      const at = function (v, d) { if (v === undefined) return d; const x = trunc(+v) || 0; return x < 0 ? Math.max(n + x, 0) : Math.min(x, n); };
      const from = at(start, 0), to = at(end, n);
      return blobOf(new U8(b.subarray(from, Math.max(from, to))), blobType(type));
    }
    stream() {
      const bytes = new U8(wmGet(blobState, this).bytes);
      return new (internal.loadStreams().ReadableStream)({ start: function (c) { if (bytes.length) c.enqueue(bytes); c.close(); } });
    }
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

  const ENCODING_LABELS = ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'];
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(s) { return new U8(utf8Bytes(s === undefined ? '' : s)); }
    encodeInto(s, dest) {
      const str = S(s);
      let read = 0, written = 0;
      for (let i = 0; i < str.length; i++) {
        const c = charCodeAt(str, i), pair = c >= 0xd800 && c <= 0xdbff && i + 1 < str.length && charCodeAt(str, i + 1) >= 0xdc00 && charCodeAt(str, i + 1) <= 0xdfff;
        const b = utf8Bytes(pair ? slice(str, i, i + 2) : fromCharCode(c));
        if (written + b.length > dest.length) break;
        for (let k = 0; k < b.length; k++) dest[written++] = b[k];
        read += pair ? 2 : 1;
        if (pair) i++;
      }
      return { read: read, written: written };
    }
    get [Symbol.toStringTag]() { return 'TextEncoder'; }
  }
  const decoderState = new WeakMap();
  class TextDecoder {
    constructor(label, options) {
      const l = label === undefined ? 'utf-8' : S(label).trim().toLowerCase();
      if (ENCODING_LABELS.indexOf(l) < 0) { const e = new RangeError('The "' + S(label) + '" encoding is not supported'); e.code = 'ERR_ENCODING_NOT_SUPPORTED'; throw e; }
      wmSet(decoderState, this, { fatal: !!(options && options.fatal), ignoreBOM: !!(options && options.ignoreBOM) });
    }
    get encoding() { return 'utf-8'; }
    get fatal() { return wmGet(decoderState, this).fatal; }
    get ignoreBOM() { return wmGet(decoderState, this).ignoreBOM; }
    decode(input) {
      const s = wmGet(decoderState, this);
      let bytes = input === undefined ? new U8(0) : bytesOf(input);
      if (bytes === undefined) throw new TypeError('The "input" argument must be an instance of ArrayBuffer or ArrayBufferView.');
      if (!s.ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      return utf8Text(bytes, s.fatal);
    }
    get [Symbol.toStringTag]() { return 'TextDecoder'; }
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

  const internal = {
    send: send, fail: fail, describe: describe, tick: tick, drainTicks: drainTicks, state: state, exitSignal: exitSignal, writer: writer, Limit: Limit,
    searchState: searchState, stringTag: stringTag, S: S, stringify: stringify, promiseThen: promiseThen, SyntaxError: SyntaxError_,
    Error: Error_, Promise: Promise_, wmHas: wmHas, wmGet: wmGet, wmSet: wmSet, push: push, rest: rest, Blob: Blob,
    schedule: schedule, nodeDelay: nodeDelay, performanceNow: performanceNow, blobState: blobState,
    platformObject: function (v) { return wmHas(searchState, v) || wmHas(formState, v); },
  };
  defineProperty(g, '__wapiiInternal', { configurable: true, value: internal });
})();
`;

/**
 * Runs after Axios: the capturing adapter and the modules a program's `require` offers. Its
 * completion value is the control object the host keeps a reference to (`run`, `tick`); nothing
 * of it stays on the global.
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
    return I.send('request', json);
  }
  // Taken before the program runs: it may replace JSON.parse or Promise, not what answers it.
  const parseJson = JSON.parse, AxiosError = axios.AxiosError, resolved = Promise.resolve.bind(Promise), rejectedWith = Promise.reject.bind(Promise);
  /** The host's answer from a multi-step sample's stubs ({status, headers, body}), or undefined: then every request gets 200 and an empty object. */
  function answerOf(reply) {
    if (typeof reply !== 'string') return undefined;
    const a = parseJson(reply);
    let data = {};
    try { data = a.body === '' ? '' : parseJson(a.body); } catch (e) { data = a.body; }
    return { status: a.status, headers: a.headers, text: a.body, data: data };
  }
  axios.defaults.adapter = function wapiiCapture(config) {
    const answer = answerOf(capture(config));
    if (answer === undefined) return resolved({ data: {}, status: 200, statusText: 'OK', headers: {}, config: config, request: {} });
    const response = { data: answer.data, status: answer.status, statusText: answer.status === 404 ? 'Not Found' : 'OK', headers: answer.headers, config: config, request: {} };
    // As Axios's settle: a status outside 2xx rejects with an AxiosError carrying the response.
    if (answer.status >= 200 && answer.status < 300) return resolved(response);
    return rejectedWith(new AxiosError('Request failed with status code ' + answer.status, answer.status >= 500 ? 'ERR_BAD_RESPONSE' : 'ERR_BAD_REQUEST', config, {}, response));
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
    const answer = answerOf(I.send('request', json));
    if (failure !== undefined) return promiseReject(failure instanceof Limit ? new TypeError_(S(failure.message)) : failure);
    const response = answer === undefined ? new Response('{}', { headers: { 'content-type': 'application/json' } }) : new Response(answer.text, { status: answer.status, statusText: answer.status === 404 ? 'Not Found' : 'OK', headers: answer.headers });
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
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty), apply = Reflect.apply;
  const FILENAME = '/snippet.js', DIRNAME = '/';
  /**
   * The program's module scope, as Node's CommonJS wrapper gives it: its own require (with
   * require.main === module), module and exports, passed as the module function's parameters,
   * so a program that replaces a global require replaces nothing the program reads.
   */
  function moduleScope() {
    const module = { id: '.', path: DIRNAME, filename: FILENAME, loaded: false, children: [], paths: [], exports: {} };
    const require = function (name) {
      if (typeof name === 'string' && hasOwn(modules, name)) return modules[name];
      throw new Error("Cannot find module '" + S(name) + "' (the sandbox offers axios, node-fetch, form-data, url and querystring; fetch is global)");
    };
    require.main = module; require.cache = {};
    require.resolve = function (name) { if (typeof name === 'string' && hasOwn(modules, name)) return name; return require(name); };
    module.require = require;
    return { module: module, require: require };
  }

  const indirectEval = g.eval;
  const rejected = function (e) { I.fail(e); };
  /** Runs the wrapped program; whatever it throws or rejects with is recorded here, as text. Then its ticks, before any promise job (Node's order). */
  function run(source, mode) {
    reference = mode === 'reference';
    let result;
    try {
      const main = indirectEval(source);
      // Not a function only when the program broke out of its wrapper: what it ran has run.
      if (typeof main === 'function') {
        const scope = moduleScope();
        result = apply(main, scope.module.exports, [scope.module.exports, scope.require, scope.module, FILENAME, DIRNAME]);
      }
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
