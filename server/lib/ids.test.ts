import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { digestId, newId, randomBase62 } from './ids';

describe('ids', () => {
  it('randomBase62 gives the asked length in the base62 alphabet, also across refills of the random pool', () => {
    const seen = new Set<string>();
    // 2,000 × 22 characters draw more than ten times the 4 KiB pool.
    for (let i = 0; i < 2000; i++) {
      const value = randomBase62(22);
      expect(value).toMatch(/^[0-9A-Za-z]{22}$/);
      seen.add(value);
    }
    expect(seen.size).toBe(2000);
  });

  it('uses every base62 character about equally (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const text = Array.from({ length: 2000 }, () => randomBase62(31)).join('');
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = text.length / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.25);
  });

  it('newId starts with the time (fixed width, sortable) and ends with 10 random characters', () => {
    const a = newId(1_000);
    const b = newId(2_000_000_000_000);
    expect(a).toMatch(/^0{7}rs[0-9A-Za-z]{10}$/);
    expect(a < b).toBe(true);
    expect(newId(5)).not.toBe(newId(5));
  });

  it('digestId gives the ids it always gave: SHA-256 of the seed, the same in Node and in a browser', () => {
    // The reference is Node's own SHA-256, as digestId was computed before it ran in browsers too;
    // recurring occurrences and inbox drafts already stored carry these ids.
    const reference = (prefix: string, seed: string) => {
      let n = BigInt(`0x${createHash('sha256').update(seed).digest().subarray(0, 17).toString('hex')}`);
      let out = '';
      for (let i = 0; i < 22; i++) {
        out += '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.charAt(Number(n % 62n));
        n /= 62n;
      }
      return prefix + out;
    };
    const seeds = ['', 'a', 'plan-1|2026-11-29', '午餐 €12.50 🍜', 'x'.repeat(1000)];
    for (let i = 0; i < 300; i++) seeds.push(`seed-${i}-${String.fromCodePoint(0x4e00 + i)}`);
    for (const seed of seeds) expect(digestId('occ_', seed)).toBe(reference('occ_', seed));
    expect(digestId('occ_', 'same')).toMatch(/^occ_[0-9A-Za-z]{22}$/);
  });
});
