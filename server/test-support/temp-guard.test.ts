import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolateTempDir } from './temp-guard';

describe('a test run has its own temporary folder, which must be empty at the end', () => {
  it('points TMPDIR at a new folder, puts it back, and fails naming what was left', () => {
    const before = os.tmpdir();
    const finish = isolateTempDir('guard-check');
    const run = os.tmpdir();
    expect(run).not.toBe(before);
    expect(path.basename(run)).toMatch(/^pennypost-guard-check-run-/);
    mkdirSync(path.join(run, 'pennypost-leaky-abc123'));
    writeFileSync(path.join(run, 'stray.txt'), 'x');
    mkdirSync(path.join(run, 'tsx-0')); // tsx's own cache, kept on purpose
    mkdirSync(path.join(run, 'jiti')); // jiti's (Vite's and ESLint's config loader) cache, kept on purpose
    expect(() => finish()).toThrow('The tests left 2 temporary entries behind (each test removes what it creates): pennypost-leaky-abc123, stray.txt');
    expect(os.tmpdir()).toBe(before);
    expect(existsSync(run)).toBe(false);
  });

  it('passes when everything was cleaned up', () => {
    const finish = isolateTempDir('guard-check');
    expect(() => finish()).not.toThrow();
  });
});
