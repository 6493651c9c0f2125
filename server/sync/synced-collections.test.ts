import { describe, expect, it } from 'vitest';
import { allDomains } from '../domains';
import type { SyncedCollection } from './synced-collections';

/**
 * The type SyncedCollection names exactly the collections whose definition is marked `sync`. Each
 * name appears once below; the type checker refuses a missing or an extra one (`satisfies`), and
 * the test compares them with the definitions.
 */
const TYPED = {
  assets: true,
  records: true,
  categories: true,
  rates: true,
  goals: true,
  trades: true,
  achievements: true,
  links: true,
  files: true,
  plans: true,
} as const satisfies Record<SyncedCollection, true>;

describe('synced collections', () => {
  it('the SyncedCollection type names exactly the definitions marked sync', () => {
    const flagged = allDomains()
      .flatMap((domain) => domain.collections ?? [])
      .filter((def) => def.sync)
      .map((def) => def.name);
    expect([...flagged].sort()).toEqual(Object.keys(TYPED).sort());
  });
});
