import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { seededRandom } from '../../test/support/random.js';
import { allowedTokens, hasVocabBundle, vocabFile } from '../../test/support/vocab.js';
import { automatonLimits, ConstraintMatcher, decodeTokens, hasBit, preparedTokenIndex, readAhead, restoreTokenIndex, serializeTokenIndex, TokenConstraint, tokenBytes, tokenIndex, vocabularyFromGguf, type Vocabulary } from './index.js';

// A spec object of its own per constraint: each compiles to its own language, with its own automaton.
async function harbor(): Promise<ApiSpec> {
  const loaded = await loadSpec(fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8'), 'harbor.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

const STARTER = "const axios = require('axios');\nconst token = process.env.HARBOR_TOKEN, id = 'shp_1';\n";

describe.runIf(hasVocabBundle)('the token masks\' automaton', () => {
  it('starts over past its limit, and its masks stay those of one that never does', async () => {
    const vocabulary = vocabularyFromGguf(fs.readFileSync(vocabFile('qwen2')));
    const saved = { ...automatonLimits };
    // A drop renumbers the language's stacks: a memoised mask must still be found only for its own state.
    Object.assign(automatonLimits, { max: 100 });
    const small = new TokenConstraint(vocabulary, ConstraintMatcher.create(await harbor(), ['axios', 'token', 'id']));
    Object.assign(automatonLimits, saved);
    const reference = new TokenConstraint(vocabulary, ConstraintMatcher.create(await harbor(), ['axios', 'token', 'id']));
    const rand = seededRandom(5);
    let masks = 0;
    let drops = 0;
    let mostHeld = 0;
    for (let walk = 0; walk < 60; walk++) {
      small.reset();
      reference.reset();
      small.state.feed(STARTER + 'axios.');
      reference.state.feed(STARTER + 'axios.');
      for (let step = 0; step < 40 && !small.state.isComplete(); step++) {
        const before = small.statesHeld;
        const mask = small.mask();
        if (small.statesHeld < before) drops++;
        mostHeld = Math.max(mostHeld, small.statesHeld);
        // Compared word by word: a deep equal of 4,748 words per step took most of the test's time.
        const expected = reference.mask();
        const differs = mask.findIndex((word, w) => word !== expected[w]);
        expect(differs, `walk ${walk}, step ${step}`).toBe(-1);
        masks++;
        const allowed = allowedTokens(mask);
        const token = allowed[Math.floor(rand() * allowed.length)]!;
        expect(small.advance(token)).toBe(true);
        expect(reference.advance(token)).toBe(true);
      }
    }
    expect(masks).toBeGreaterThan(1000);
    expect(drops).toBeGreaterThan(8);
    // Dropped between walks only: one walk may take it past the limit, not far.
    expect(mostHeld).toBeLessThan(300);
  });

  it('walks runs of whitespace without a state per count, and their masks are what check says', async () => {
    const vocabulary = vocabularyFromGguf(fs.readFileSync(vocabFile('qwen2')));
    const spec = await harbor();
    const tokens = new TokenConstraint(vocabulary, ConstraintMatcher.create(spec, ['axios', 'token', 'id']));
    // Whitespace may come before the URL; `\r` waits for its `\n`; a run stops at 16 spaces.
    const places = ['axios.get(', 'axios.get(\n', `axios.get(${' '.repeat(16)}`, 'axios.get( \r', 'axios.get( \r\n\t'];
    for (const [i, place] of places.entries()) {
      tokens.reset();
      expect(tokens.state.feed(STARTER + place).ok).toBe(true);
      const mask = tokens.mask();
      // A run counts up to 16 spaces or tabs before a line break and 16 after: a state per count would be 34 at least.
      if (i === 0) expect(tokens.statesHeld).toBeLessThan(34);
      const wrong = vocabulary.text.map((_, id) => id).filter((id) => tokens.check(id) !== hasBit(mask, id));
      expect(wrong.map((id) => vocabulary.text[id]), JSON.stringify(place)).toEqual([]);
      expect(allowedTokens(mask).length, JSON.stringify(place)).toBeGreaterThan(0);
    }
  });
});

const BASE = 'https://api.harbor.example/v2';

/** Each byte's token of its own (byte-level and byte-fallback vocabularies have all 256). */
function byteTokens(vocabulary: Vocabulary): number[] {
  const tokens: number[] = [];
  vocabulary.text.forEach((_, id) => {
    const bytes = tokenBytes(vocabulary, id);
    if (bytes.length === 1 && tokens[bytes[0]!] === undefined) tokens[bytes[0]!] = id;
  });
  return tokens;
}

/** The first code point of [from, to] that no token's text holds: the vocabulary writes it only in bytes. */
function spelledInBytes(vocabulary: Vocabulary, from: number, to: number): string {
  const held = new Set<number>();
  for (const text of vocabulary.text) if (text) for (const ch of text) held.add(ch.codePointAt(0)!);
  for (let cp = from; cp <= to; cp++) if (!held.has(cp)) return String.fromCodePoint(cp);
  throw new Error(`every code point of ${from.toString(16)}-${to.toString(16)} is in a token`);
}

describe.runIf(hasVocabBundle)('characters a vocabulary spells only in bytes', () => {
  it.each(['qwen2', 'llama-spm'] as const)('%s: a string takes them byte by byte, where a character can still come; nothing else does', async (name) => {
    const vocabulary = vocabularyFromGguf(fs.readFileSync(vocabFile(name)));
    const bytes = byteTokens(vocabulary);
    // A rare CJK character and an emoji (four bytes) that no token holds.
    const value = spelledInBytes(vocabulary, 0x9c00, 0x9fff) + spelledInBytes(vocabulary, 0x1f300, 0x1faff);
    const spelled = [...new TextEncoder().encode(value)].map((b) => bytes[b]!);
    expect(spelled.every((id) => id !== undefined && vocabulary.text[id] === null)).toBe(true);
    const tokens = new TokenConstraint(vocabulary, ConstraintMatcher.create(await harbor(), ['axios', 'token', 'id']));
    /** The mask says what check says, token by token. */
    const agrees = (where: string): void => {
      const mask = tokens.mask();
      const wrong = vocabulary.text.map((_, id) => id).filter((id) => tokens.check(id) !== hasBit(mask, id));
      expect(wrong.slice(0, 5), where).toEqual([]);
    };
    const at = (text: string): void => {
      tokens.reset();
      expect(tokens.state.feed(STARTER + text).ok, text).toBe(true);
    };

    // A plain string's contents: the value byte by byte, its characters held until finished.
    const start = `axios.get('${BASE}/shipments', { params: { carrier: 'a`;
    at(start);
    agrees('a string');
    for (const [i, id] of spelled.entries()) {
      expect(hasBit(tokens.mask(), id), `byte ${i}`).toBe(true);
      expect(tokens.advance(id), `byte ${i}`).toBe(true);
      const finished = i === 2 || i === spelled.length - 1;
      expect(tokens.pendingBytes.length > 0, `byte ${i}`).toBe(!finished);
      if (i === 0 || i === 3 || i === 4) agrees(`after byte ${i}`);
    }
    const written = [...spelled];
    // Then the string closes and the call goes on, a character's token at a time.
    const rest = "' } });";
    for (const ch of rest) {
      const id = vocabulary.text.indexOf(ch);
      expect(tokens.advance(id), ch).toBe(true);
      written.push(id);
    }
    expect(tokens.state.isComplete()).toBe(true);
    // What the tokens decode to is what the matcher read.
    expect(decodeTokens(vocabulary, written)).toBe(value + rest);

    // A character begun takes only its own continuation bytes: no end, no text, no other lead byte, no byte it cannot take.
    at(start);
    expect(tokens.advance(bytes[0xf0]!)).toBe(true);
    expect(tokens.check(bytes[0x80]!)).toBe(false); // F0 80 would be an overlong form
    expect(tokens.check(bytes[0x9f]!)).toBe(true);
    for (const refused of [vocabulary.eos[0]!, vocabulary.text.indexOf("'"), bytes[0x41]!, bytes[0xe9]!]) expect(tokens.check(refused)).toBe(false);
    agrees('F0 held');

    // Bytes that begin no character are refused in a string, and so is a lone continuation byte.
    at(start);
    for (const b of [0x80, 0xbf, 0xc0, 0xc1, 0xf5, 0xff]) expect(tokens.check(bytes[b]!), `0x${b.toString(16)}`).toBe(false);

    // A header value takes what Node sends: U+0080-U+00FF (lead bytes C2, C3), nothing past it.
    at(`axios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer `);
    agrees('a header value');
    expect(tokens.check(bytes[0xc3]!)).toBe(true);
    for (const b of [0xc4, 0xdf, 0xe9, 0xf0]) expect(tokens.check(bytes[b]!), `0x${b.toString(16)}`).toBe(false);
    expect(tokens.advance(bytes[0xc3]!)).toBe(true);
    agrees('C3 held in a header value');
    expect(tokens.advance(bytes[0xa9]!)).toBe(true);
    expect(tokens.pendingBytes.length).toBe(0);
    expect(tokens.state.feed("' } });").ok).toBe(true);

    // Outside a string no character can come that they could begin: a key, a value's start, a URL.
    for (const place of [`axios.post('${BASE}/warehouses', { `, `axios.post('${BASE}/warehouses', { name: `, `axios.post('${BASE}/ware`]) {
      at(place);
      const mask = tokens.mask();
      for (const b of [0xc3, 0xe9, 0xf0]) expect(hasBit(mask, bytes[b]!), `${place} 0x${b.toString(16)}`).toBe(false);
    }
    // Free text before the call takes any bytes, as before.
    at('');
    for (const b of [0x80, 0xc3, 0xe9, 0xff]) expect(tokens.check(bytes[b]!)).toBe(true);
  });
});

describe.runIf(hasVocabBundle)('advance after check', () => {
  it('takes the checked state only for the same token from the same state, else checks again', async () => {
    const vocabulary = vocabularyFromGguf(fs.readFileSync(vocabFile('qwen2')));
    const spec = await harbor();
    const tokens = new TokenConstraint(vocabulary, ConstraintMatcher.create(spec, ['axios', 'token', 'id']));
    const id = (text: string): number => vocabulary.text.indexOf(text);
    const [get, open, quote] = [id('get'), id('('), id("'")];
    expect(Math.min(get, open, quote)).toBeGreaterThanOrEqual(0);
    const keyOf = (text: string): string | number => {
      const plain = ConstraintMatcher.create(spec, ['axios', 'token', 'id']);
      expect(plain.feed(text).ok).toBe(true);
      return plain.stateKey();
    };

    tokens.state.feed(STARTER + 'axios.');
    expect(tokens.check(get)).toBe(true);
    expect(tokens.advance(get)).toBe(true);
    expect(tokens.state.stateKey()).toBe(keyOf(STARTER + 'axios.get'));
    // Checked '(' then advanced by another token: that one is checked and fed, not the checked state taken.
    expect(tokens.check(open)).toBe(true);
    expect(tokens.advance(quote)).toBe(false);
    expect(tokens.state.stateKey()).toBe(keyOf(STARTER + 'axios.get'));
    // Checked, then the state fed from outside: the checked state is stale.
    expect(tokens.check(open)).toBe(true);
    tokens.state.feed('(');
    // '((' is refused: taking the state checked before the feed would accept it.
    expect(tokens.advance(open)).toBe(false);
    expect(tokens.advance(quote)).toBe(true);
    expect(tokens.state.stateKey()).toBe(keyOf(STARTER + "axios.get('"));
    expect(tokens.check(open)).toBe(false);
    // A reset forgets the check.
    expect(tokens.check(id('https'))).toBe(true);
    tokens.reset();
    tokens.state.feed(STARTER + 'axios.');
    expect(tokens.advance(get)).toBe(true);
    expect(tokens.state.stateKey()).toBe(keyOf(STARTER + 'axios.get'));
  });
});

/** Eight seeded random walks of harbor's language on two vocabularies' indexes: the masks agree at every step. */
async function expectSameMasks(x: Vocabulary, y: Vocabulary): Promise<void> {
  const a = new TokenConstraint(x, ConstraintMatcher.create(await harbor(), ['axios', 'token', 'id']));
  const b = new TokenConstraint(y, ConstraintMatcher.create(await harbor(), ['axios', 'token', 'id']));
  const rand = seededRandom(11);
  for (let walk = 0; walk < 8; walk++) {
    a.reset();
    b.reset();
    a.state.feed(STARTER + 'axios.');
    b.state.feed(STARTER + 'axios.');
    for (let step = 0; step < 30 && !a.state.isComplete(); step++) {
      const [ma, mb] = [a.mask(), b.mask()];
      expect(mb.findIndex((word, w) => word !== ma[w]), `walk ${walk}, step ${step}`).toBe(-1);
      const allowed = allowedTokens(ma);
      const token = allowed[Math.floor(rand() * allowed.length)]!;
      expect(a.advance(token)).toBe(true);
      expect(b.advance(token)).toBe(true);
    }
  }
}

describe.runIf(hasVocabBundle)('a prepared token index kept on disk', () => {
  it('reads back as the index built, gives the same masks, and is refused for another vocabulary or when damaged', async () => {
    const qwen2 = fs.readFileSync(vocabFile('qwen2'));
    const built = vocabularyFromGguf(qwen2);
    const bytes = serializeTokenIndex(tokenIndex(built));
    const read = vocabularyFromGguf(qwen2);
    const restored = restoreTokenIndex(read, bytes);
    if ('error' in restored) expect.fail(restored.error);
    // Written again from what was read: every array in its place, byte for byte.
    expect(Buffer.compare(Buffer.from(serializeTokenIndex(restored)), Buffer.from(bytes))).toBe(0);
    expect(tokenIndex(read)).toBe(restored);

    await expectSameMasks(built, read);

    const other = restoreTokenIndex(vocabularyFromGguf(fs.readFileSync(vocabFile('llama-spm'))), bytes);
    expect('error' in other && other.error).toMatch(/another vocabulary/);
    const cut = restoreTokenIndex(vocabularyFromGguf(qwen2), bytes.subarray(0, bytes.length - 4096));
    expect('error' in cut && cut.error).toMatch(/truncated/);
  });

  it('is kept in a folder by the first process and read back by the next; a damaged file is prepared again', () => {
    const qwen2 = fs.readFileSync(vocabFile('qwen2'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-token-index-'));
    try {
      const first = preparedTokenIndex(vocabularyFromGguf(qwen2), dir);
      expect([first.from, first.note]).toEqual(['built', undefined]);
      const [file] = fs.readdirSync(dir);
      const second = preparedTokenIndex(vocabularyFromGguf(qwen2), dir);
      expect([second.from, second.note]).toEqual(['cache', undefined]);
      fs.writeFileSync(path.join(dir, file!), 'not an index');
      const third = preparedTokenIndex(vocabularyFromGguf(qwen2), dir);
      expect(third.from).toBe('built');
      expect(third.note).toMatch(/not a prepared token index/);
      // Kept again, whole.
      expect(preparedTokenIndex(vocabularyFromGguf(qwen2), dir).from).toBe('cache');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the tries at once, and the texts and each class table on first use or read ahead, from the file it opened, or makes them when that file was cut', async () => {
    const qwen2 = fs.readFileSync(vocabFile('qwen2'));
    const bytes = serializeTokenIndex(tokenIndex(vocabularyFromGguf(qwen2)));
    // What a restore reads before any mask: the tries, not the class tables.
    let read = 0;
    const counted = vocabularyFromGguf(qwen2);
    const restored = restoreTokenIndex(counted, {
      size: bytes.length,
      read: (offset, length) => {
        read += length;
        return bytes.slice(offset, offset + length);
      },
    });
    if ('error' in restored) expect.fail(restored.error);
    expect(read / bytes.length).toBeLessThan(0.5);
    await expectSameMasks(vocabularyFromGguf(qwen2), counted);
    expect(read).toBeGreaterThan(0.5 * bytes.length);
    // Read ahead (as preparedTokenIndex does in the background): every table once, then nothing more.
    while (readAhead(restored));
    expect(read).toBeGreaterThan(0.99 * bytes.length);
    expect(read).toBeLessThanOrEqual(bytes.length);

    // A source that stops answering once the tries are read: the texts and the class tables are made from the vocabulary and the tries.
    let answering = true;
    const unanswered = vocabularyFromGguf(qwen2);
    const gone = restoreTokenIndex(unanswered, { size: bytes.length, read: (offset, length) => (answering ? bytes.slice(offset, offset + length) : undefined) });
    if ('error' in gone) expect.fail(gone.error);
    answering = false;
    await expectSameMasks(vocabularyFromGguf(qwen2), unanswered);
    expect(Buffer.compare(Buffer.from(serializeTokenIndex(gone)), Buffer.from(bytes))).toBe(0);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-token-index-'));
    try {
      const fresh = preparedTokenIndex(vocabularyFromGguf(qwen2), dir);
      expect(fresh.from).toBe('built');
      const [file] = fs.readdirSync(dir);
      const where = path.join(dir, file!);
      // Replaced by a rename (another process keeping its own): the open file is read on.
      const replaced = vocabularyFromGguf(qwen2);
      expect(preparedTokenIndex(replaced, dir).from).toBe('cache');
      fs.writeFileSync(`${where}.tmp`, 'not an index');
      fs.renameSync(`${where}.tmp`, where);
      await expectSameMasks(vocabularyFromGguf(qwen2), replaced);
      // Cut short in place, after the tries: the class tables are built from them instead.
      fs.writeFileSync(where, bytes);
      const cut = vocabularyFromGguf(qwen2);
      expect(preparedTokenIndex(cut, dir).from).toBe('cache');
      fs.truncateSync(where, Math.floor(bytes.length * 0.6));
      await expectSameMasks(vocabularyFromGguf(qwen2), cut);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
