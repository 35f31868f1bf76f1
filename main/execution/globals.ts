/**
 * Node 20's web globals that programs reach for and a bare V8 context lacks (issue 36 item 19):
 * `Event`, `EventTarget`, `DOMException`, `AbortController`/`AbortSignal` (`timeout`, `abort`,
 * `any`), `structuredClone`, `performance`, `crypto` (`randomUUID`, `getRandomValues`) and the
 * WHATWG streams. Runs after Axios (whose load reads `globalThis.ReadableStream`, which would
 * load the streams for every program) and before CAPTURE, which takes the prelude's internals
 * off the global.
 *
 * The streams are web-streams-polyfill's ponyfill (MIT, maintained by the streams standard's
 * editor), pinned in package.json. The rest is written here, small, because no maintained
 * implementation of them is installed that runs in a bare context without Node's internals.
 * Every global is an accessor that builds its group the first time a program reads it, as Node
 * defines them lazily too, so a program that uses none of them pays a few property definitions
 * (about 0.1 ms a program, measured), not their building. Everything is built inside the isolate
 * from its own intrinsics: no host object is handed in.
 */
export function nodeGlobals(streamsSource: string): string {
  return String.raw`
(function () {
  'use strict';
  const g = globalThis;
  const I = g.__wapiiInternal;
  const defineProperty = Object.defineProperty, apply = Reflect.apply, S = String, random = Math.random, floor = Math.floor;
  const push = Function.prototype.call.bind(Array.prototype.push), splice = Function.prototype.call.bind(Array.prototype.splice);
  const wmGet = Function.prototype.call.bind(WeakMap.prototype.get), wmSet = Function.prototype.call.bind(WeakMap.prototype.set), wmHas = Function.prototype.call.bind(WeakMap.prototype.has);
  const startedAt = Date.now();
  /** A global as Node defines its web globals: writable, configurable, not enumerable. */
  function expose(name, value) { defineProperty(g, name, { value: value, writable: true, configurable: true, enumerable: false }); }

  /** Builds the web globals of one context, the first time a program reads one of them. */
  let web;
  function buildWeb() {
    if (web !== undefined) return web;
    const DOM_CODES = { IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5, NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11, SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15, TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21, QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25 };
    class DOMException extends Error {
      constructor(message, options) {
        super(message === undefined ? '' : S(message));
        const name = options !== null && typeof options === 'object' ? (options.name === undefined ? 'Error' : S(options.name)) : options === undefined ? 'Error' : S(options);
        defineProperty(this, 'name', { value: name, writable: true, configurable: true, enumerable: false });
        if (options !== null && typeof options === 'object' && 'cause' in options) defineProperty(this, 'cause', { value: options.cause, writable: true, configurable: true, enumerable: false });
      }
      get code() { return DOM_CODES[this.name] || 0; }
    }
    for (const name of Object.keys(DOM_CODES)) {
      const constant = name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase().replace(/_ERROR$/, '_ERR');
      defineProperty(DOMException, constant, { value: DOM_CODES[name], enumerable: true });
    }

    // ---- Event and EventTarget, as far as AbortSignal and programs use them ----
    const eventState = new WeakMap(), listenerState = new WeakMap();
    class Event {
      constructor(type, init) {
        if (arguments.length === 0) throw new TypeError('The "type" argument must be specified');
        wmSet(eventState, this, { type: S(type), bubbles: !!(init && init.bubbles), cancelable: !!(init && init.cancelable), defaultPrevented: false, target: null, timeStamp: I.performanceNow() });
      }
      get type() { return wmGet(eventState, this).type; }
      get bubbles() { return wmGet(eventState, this).bubbles; }
      get cancelable() { return wmGet(eventState, this).cancelable; }
      get defaultPrevented() { return wmGet(eventState, this).defaultPrevented; }
      get target() { return wmGet(eventState, this).target; }
      get currentTarget() { return wmGet(eventState, this).target; }
      get srcElement() { return wmGet(eventState, this).target; }
      get timeStamp() { return wmGet(eventState, this).timeStamp; }
      get isTrusted() { return false; }
      preventDefault() { const s = wmGet(eventState, this); if (s.cancelable) s.defaultPrevented = true; }
      stopPropagation() {}
      stopImmediatePropagation() { wmGet(eventState, this).stopped = true; }
      composedPath() { const t = wmGet(eventState, this).target; return t ? [t] : []; }
      get [Symbol.toStringTag]() { return 'Event'; }
    }
    function listenersOf(target) { let l = wmGet(listenerState, target); if (!l) { l = []; wmSet(listenerState, target, l); } return l; }
    class EventTarget {
      constructor() { listenersOf(this); }
      addEventListener(type, listener, options) {
        if (listener === null || listener === undefined) return;
        const once = !!(options !== null && typeof options === 'object' && options.once);
        const list = listenersOf(this), t = S(type);
        for (let i = 0; i < list.length; i++) if (list[i].type === t && list[i].listener === listener) return;
        const entry = { type: t, listener: listener, once: once };
        push(list, entry);
        const signal = options !== null && typeof options === 'object' ? options.signal : undefined;
        if (signal !== undefined && signal !== null) {
          const self = this;
          if (signal.aborted) this.removeEventListener(t, listener);
          else signal.addEventListener('abort', function () { self.removeEventListener(t, listener); }, { once: true });
        }
      }
      removeEventListener(type, listener) {
        const list = listenersOf(this), t = S(type);
        for (let i = 0; i < list.length; i++) if (list[i].type === t && list[i].listener === listener) { splice(list, i, 1); return; }
      }
      dispatchEvent(event) {
        if (!wmHas(eventState, event)) throw new TypeError('The "event" argument must be an instance of Event');
        const s = wmGet(eventState, event);
        s.target = this;
        const list = listenersOf(this).slice();
        for (let i = 0; i < list.length && !s.stopped; i++) {
          if (list[i].once) this.removeEventListener(list[i].type, list[i].listener);
          if (list[i].type === s.type) dispatchTo(this, list[i].listener, event);
        }
        return !s.defaultPrevented;
      }
      get [Symbol.toStringTag]() { return 'EventTarget'; }
    }
    /** A listener that throws does not stop the others: Node reports it as an uncaught exception. */
    function dispatchTo(target, listener, event) {
      try {
        if (typeof listener === 'function') apply(listener, target, [event]);
        else if (listener !== null && typeof listener === 'object' && typeof listener.handleEvent === 'function') listener.handleEvent(event);
      } catch (e) { I.fail(e); }
    }

    // ---- AbortController and AbortSignal ----
    const signalState = new WeakMap();
    let constructing = false;
    class AbortSignal extends EventTarget {
      constructor() {
        if (!constructing) throw new TypeError('Illegal constructor');
        super();
        wmSet(signalState, this, { aborted: false, reason: undefined, handler: null, listener: undefined });
      }
      get onabort() { return wmGet(signalState, this).handler; }
      /** An event handler attribute, as Node's: its listener takes its place among the others when first set. */
      set onabort(value) {
        const s = wmGet(signalState, this);
        const handler = typeof value === 'function' ? value : null;
        if (handler && !s.listener) { s.listener = function (event) { if (typeof s.handler === 'function') return apply(s.handler, this, [event]); }; this.addEventListener('abort', s.listener); }
        else if (!handler && s.listener) { this.removeEventListener('abort', s.listener); s.listener = undefined; }
        s.handler = handler;
      }
      get aborted() { return wmGet(signalState, this).aborted; }
      get reason() { return wmGet(signalState, this).reason; }
      throwIfAborted() { const s = wmGet(signalState, this); if (s.aborted) throw s.reason; }
      static abort(reason) { const signal = newSignal(); abortSignal(signal, reason); return signal; }
      static timeout(ms) {
        const delay = +ms;
        if (!(delay >= 0 && delay <= 4294967295) || floor(delay) !== delay) throw new RangeError('The value of "delay" is out of range. It must be >= 0 && <= 4294967295. Received ' + S(ms));
        const signal = newSignal();
        // Node's timer for it does not keep the process alive (it is unref'd): the virtual clock fires it only while other timers are pending.
        I.schedule(function () { abortSignal(signal, new DOMException('The operation was aborted due to timeout', 'TimeoutError')); }, I.nodeDelay(delay), [], false, true);
        return signal;
      }
      static any(signals) {
        const signal = newSignal();
        const list = [];
        for (const s of signals) push(list, s);
        for (let i = 0; i < list.length; i++) if (list[i].aborted) { abortSignal(signal, list[i].reason); return signal; }
        for (let i = 0; i < list.length; i++) {
          const source = list[i];
          source.addEventListener('abort', function () { abortSignal(signal, source.reason); }, { once: true });
        }
        return signal;
      }
      get [Symbol.toStringTag]() { return 'AbortSignal'; }
    }
    function newSignal() { constructing = true; try { return new AbortSignal(); } finally { constructing = false; } }
    function abortSignal(signal, reason) {
      const s = wmGet(signalState, signal);
      if (s.aborted) return;
      s.aborted = true;
      s.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
      signal.dispatchEvent(new Event('abort'));
    }
    const controllerSignal = new WeakMap();
    class AbortController {
      constructor() { wmSet(controllerSignal, this, newSignal()); }
      get signal() { return wmGet(controllerSignal, this); }
      abort(reason) { abortSignal(wmGet(controllerSignal, this), reason); }
      get [Symbol.toStringTag]() { return 'AbortController'; }
    }

    // ---- structuredClone: the HTML structured clone algorithm over the types a program can hold ----
    const typedArrays = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array];
    const errorTypes = { Error: Error, EvalError: EvalError, RangeError: RangeError, ReferenceError: ReferenceError, SyntaxError: SyntaxError, TypeError: TypeError, URIError: URIError };
    const tagOf = Function.prototype.call.bind(Object.prototype.toString);
    const objectKeys = Object.keys;
    const UNCLONEABLE = new Set(['[object Promise]', '[object WeakMap]', '[object WeakSet]', '[object WeakRef]', '[object FinalizationRegistry]', '[object Generator]', '[object AsyncGenerator]', '[object Arguments]']);
    function uncloneable(v) { return new DOMException((typeof v === 'function' ? S(v).slice(0, 60) : typeof v === 'symbol' ? 'Symbol()' : tagOf(v)) + ' could not be cloned.', 'DataCloneError'); }
    function structuredClone(value) {
      if (arguments.length === 0) throw new TypeError('The "value" argument must be specified');
      const seen = new Map();
      function clone(v) {
        if (typeof v === 'function' || typeof v === 'symbol') throw uncloneable(v);
        if (v === null || typeof v !== 'object') return v;
        if (seen.has(v)) return seen.get(v);
        const tag = tagOf(v);
        let out;
        switch (tag) {
          case '[object Date]': out = new Date(v.getTime()); seen.set(v, out); return out;
          case '[object RegExp]': out = new RegExp(v.source, v.flags); seen.set(v, out); return out;
          case '[object Boolean]': out = Object(Boolean.prototype.valueOf.call(v)); seen.set(v, out); return out;
          case '[object Number]': out = Object(Number.prototype.valueOf.call(v)); seen.set(v, out); return out;
          case '[object String]': out = Object(String.prototype.valueOf.call(v)); seen.set(v, out); return out;
          case '[object BigInt]': out = Object(BigInt.prototype.valueOf.call(v)); seen.set(v, out); return out;
          case '[object ArrayBuffer]': out = v.slice(0); seen.set(v, out); return out;
          case '[object DataView]': { const b = clone(v.buffer); out = new DataView(b, v.byteOffset, v.byteLength); seen.set(v, out); return out; }
          case '[object Map]': out = new Map(); seen.set(v, out); for (const [k, x] of v) out.set(clone(k), clone(x)); return out;
          case '[object Set]': out = new Set(); seen.set(v, out); for (const x of v) out.add(clone(x)); return out;
          case '[object Error]': {
            let name = v.name;
            const Ctor = typeof name === 'string' && Object.prototype.hasOwnProperty.call(errorTypes, name) ? errorTypes[name] : Error;
            out = new Ctor(v.message === undefined ? undefined : S(v.message));
            seen.set(v, out);
            const stack = v.stack;
            if (stack !== undefined) defineProperty(out, 'stack', { value: S(stack), writable: true, configurable: true, enumerable: false });
            if ('cause' in v) defineProperty(out, 'cause', { value: clone(v.cause), writable: true, configurable: true, enumerable: false });
            return out;
          }
          case '[object Array]': out = new Array(v.length); seen.set(v, out); break;
          case '[object Object]':
            if (wmHas(I.blobState, v)) { out = new I.Blob([wmGet(I.blobState, v).bytes], { type: v.type }); seen.set(v, out); return out; }
            out = {}; seen.set(v, out); break;
          default:
            for (let i = 0; i < typedArrays.length; i++) {
              if (v instanceof typedArrays[i]) { const b = clone(v.buffer); out = new typedArrays[i](b, v.byteOffset, v.length); seen.set(v, out); return out; }
            }
            if (wmHas(I.blobState, v)) { out = new I.Blob([wmGet(I.blobState, v).bytes], { type: v.type }); seen.set(v, out); return out; }
            // The platform's own objects cannot be cloned; any other object (a class instance) is copied as a plain object of its own enumerable keys.
            if (UNCLONEABLE.has(tag) || I.platformObject(v) || wmHas(listenerState, v) || wmHas(eventState, v) || wmHas(controllerSignal, v)) throw uncloneable(v);
            out = {}; seen.set(v, out);
        }
        const keys = objectKeys(v);
        for (let i = 0; i < keys.length; i++) out[keys[i]] = clone(v[keys[i]]);
        return out;
      }
      return clone(value);
    }

    // ---- performance: the virtual clock the timers run on plus the time the program has really run ----
    const performance = {
      timeOrigin: startedAt,
      now: function () { return I.performanceNow(); },
      mark: function (name) { const e = { name: S(name), entryType: 'mark', startTime: I.performanceNow(), duration: 0, detail: null }; push(entries, e); return e; },
      measure: function (name, start, end) {
        const at = function (m, fallback) { if (m === undefined) return fallback; for (let i = entries.length - 1; i >= 0; i--) if (entries[i].name === m) return entries[i].startTime; throw new DOMException("The \"" + S(m) + "\" performance mark has not been set", 'SyntaxError'); };
        const from = at(start, 0), to = at(end, I.performanceNow());
        const e = { name: S(name), entryType: 'measure', startTime: from, duration: to - from, detail: null };
        push(entries, e);
        return e;
      },
      getEntries: function () { return entries.slice(); },
      getEntriesByName: function (name, type) { return entries.filter(function (e) { return e.name === S(name) && (type === undefined || e.entryType === type); }); },
      getEntriesByType: function (type) { return entries.filter(function (e) { return e.entryType === type; }); },
      clearMarks: function (name) { for (let i = entries.length - 1; i >= 0; i--) if (entries[i].entryType === 'mark' && (name === undefined || entries[i].name === name)) splice(entries, i, 1); },
      clearMeasures: function (name) { for (let i = entries.length - 1; i >= 0; i--) if (entries[i].entryType === 'measure' && (name === undefined || entries[i].name === name)) splice(entries, i, 1); },
      toJSON: function () { return { timeOrigin: startedAt }; },
    };
    const entries = [];

    // ---- crypto: the context has no source of entropy, and none may be handed in from the host
    // (it would be a host reference), so the values come from Math.random. A scored program needs
    // their shape (a v4 UUID, filled bytes), never their unpredictability. ----
    const integerArrays = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
    function getRandomValues(array) {
      let integer = false;
      for (let i = 0; i < integerArrays.length; i++) if (array instanceof integerArrays[i]) integer = true;
      if (!integer) throw new DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
      if (array.byteLength > 65536) throw new DOMException('The ArrayBufferView\'s byte length (' + array.byteLength + ') exceeds the number of bytes of entropy available via this API (65536)', 'QuotaExceededError');
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = floor(random() * 256);
      return array;
    }
    const HEX = '0123456789abcdef';
    function randomUUID() {
      const b = getRandomValues(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      let s = '';
      for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[b[i] >> 4] + HEX[b[i] & 15];
      return s;
    }
    const crypto = { getRandomValues: getRandomValues, randomUUID: randomUUID };
    defineProperty(crypto, Symbol.toStringTag, { value: 'Crypto' });
    web = { DOMException: DOMException, Event: Event, EventTarget: EventTarget, AbortController: AbortController, AbortSignal: AbortSignal, structuredClone: structuredClone, performance: performance, crypto: crypto };
    return web;
  }
  /**
   * Each global is an accessor until first read, as Node defines these lazily too: a program that
   * uses none of them pays one property definition each, not the building of them all.
   */
  function lazy(names, build) {
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      defineProperty(g, name, {
        configurable: true, enumerable: false,
        get: function () { const value = build()[name]; expose(name, value); return value; },
        set: function (value) { expose(name, value); },
      });
    }
  }
  lazy(['DOMException', 'Event', 'EventTarget', 'AbortController', 'AbortSignal', 'structuredClone', 'performance', 'crypto'], buildWeb);

  // ---- The WHATWG streams, loaded the first time a program reads one of them ----
  const streamNames = ['ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamBYOBReader', 'ReadableStreamBYOBRequest', 'ReadableByteStreamController', 'ReadableStreamDefaultController', 'WritableStream', 'WritableStreamDefaultWriter', 'WritableStreamDefaultController', 'TransformStream', 'TransformStreamDefaultController', 'ByteLengthQueuingStrategy', 'CountQueuingStrategy'];
  let streams;
  function loadStreams() {
    if (streams === undefined) {
      streams = {};
      (function (exports, module, define) {
${streamsSource}
      })(streams, {}, undefined);
    }
    return streams;
  }
  lazy(streamNames, loadStreams);
  I.loadStreams = loadStreams;
})();
`;
}
