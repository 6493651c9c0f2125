import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allDomains } from '../domains';
import { actionsOf } from '../domain';
import { LAN_ROUTES } from '../http/network-policy';

const SECURITY = readFileSync(path.join(__dirname, '..', '..', 'docs', 'security.md'), 'utf8');
const section = (title: string) => {
  const start = SECURITY.indexOf(`## ${title}`);
  expect(start, title).toBeGreaterThanOrEqual(0);
  const end = SECURITY.indexOf('\n## ', start + 3);
  return SECURITY.slice(start, end < 0 ? undefined : end);
};

describe('docs/security.md stays true to the code', () => {
  it('the roles table names every owner and admin action', () => {
    const roles = section('Roles: who may change what');
    const restricted = actionsOf(allDomains())
      .filter((a) => a.auth === 'admin' || a.auth === 'owner')
      .map((a) => a.name);
    expect(restricted.filter((name) => !roles.includes(`\`${name}\``))).toEqual([]);
  });

  it('the LAN route table lists every route of LAN_ROUTES with its lanApi need, and nothing more', () => {
    const table = section('What the network can reach');
    const rows = table.split('\n').filter((line) => /^\| [^-m]/.test(line) && line.includes('`/'));
    const documented = rows.map((row) => {
      const cells = row.split('|').map((c) => c.trim());
      return `${cells.at(2)!.replace(/`/g, '')} ${cells.at(3)!}`;
    });
    expect(documented.sort()).toEqual(LAN_ROUTES.map((r) => `${r.shape} ${r.needsLanApi ? 'yes' : 'no'}`).sort());
  });
});
