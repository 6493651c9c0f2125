import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { collectLicenses, summarize, uiImports } from './licenses';
import { AppInfoService, PACKAGE_ROOT } from './service';
import { appInfoDomain } from './index';
import { usersDomain } from '../users';
import { appInfoErrors } from './errors';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

let t: TestServer;
let token: string;
beforeAll(async () => {
  t = await startTestServer({ domains: [usersDomain(), appInfoDomain()] });
  token = (await registerUser(t)).token;
});
afterAll(() => t.close());

describe('app.info', () => {
  it('answers version, runtime, data folder and key mode to a signed-in user', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    const answer = await t.api('app.info', {}, token);
    expect(answer.code).toBe(200);
    expect(answer.data).toMatchObject({
      name: 'PennyPost',
      version: pkg.version,
      mode: 'headless',
      versions: { node: process.versions.node, electron: null, chrome: null },
      platform: process.platform,
      dataDir: t.dataDir,
      keys: 'file',
    });
    expect(answer.data.licences.total).toBeGreaterThan(50);
    expect(answer.data.licences.byLicense[0]).toEqual({ license: 'MIT', count: expect.any(Number) });
  });

  it('is not shown without signing in (it reveals the data folder path)', async () => {
    expectRefusal(await t.api('app.info', {}), commonErrors.rows.unauthorized);
  });
});

describe('app.licenses', () => {
  it('lists every shipped package: server dependencies, UI bundle, Electron runtime', async () => {
    const answer = await t.api('app.licenses', {});
    expect(answer.code).toBe(200);
    const names = (scope: string) => answer.data.packages.filter((p: { scope: string }) => p.scope === scope).map((p: { name: string }) => p.name);
    for (const name of ['express', 'rxdb', 'classic-level', 'helmet', 'jsonwebtoken']) expect(names('server')).toContain(name);
    for (const name of ['react', 'react-dom', '@mantine/core', 'echarts', 'i18next']) expect(names('ui')).toContain(name);
    expect(names('runtime')).toEqual(['chromium', 'electron']);
    // Build and test tools are not shipped.
    for (const name of ['vitest', 'typescript', 'electron-builder', 'esbuild', 'tsx']) {
      expect(answer.data.packages.some((p: { name: string }) => p.name === name)).toBe(false);
    }
    expect(answer.data.total).toBe(answer.data.packages.length);
    expect(answer.data.packages.every((p: { text?: string }) => p.text === undefined)).toBe(true);
  });

  it('gives one package with its licence text, and 404 for an unknown name', async () => {
    const service = new AppInfoService(t.server.app);
    const withTexts = collectLicenses(PACKAGE_ROOT, { texts: true });
    expect(withTexts.find((p) => p.name === 'express')!.text).toMatch(/MIT|Permission is hereby granted/);
    expect(service.licences().length).toBeGreaterThan(0);
    const one = await t.api('app.licenses', { name: 'express' });
    expect(one.code).toBe(200);
    expect(one.data.packages[0]).toMatchObject({ name: 'express', license: 'MIT', scope: 'server' });
    const missing = await t.api('app.licenses', { name: 'left-pad-of-doom' });
    expectRefusal(missing, appInfoErrors.rows.packageNotFound);
    expect(missing.message).toContain('left-pad-of-doom');
  });

  it('prefers the list written at build time (dist/licenses.json) when present', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'pp-licences-'));
    try {
      mkdirSync(path.join(root, 'dist'));
      writeFileSync(path.join(root, 'package.json'), JSON.stringify({ version: '9.9.9' }));
      writeFileSync(path.join(root, 'dist', 'licenses.json'), JSON.stringify({ packages: [{ name: 'x', version: '1.0.0', license: 'MIT', scope: 'server' }] }));
      const service = new AppInfoService(t.server.app, root);
      expect(service.version()).toBe('9.9.9');
      expect(service.info().licences).toEqual({ total: 1, byLicense: [{ license: 'MIT', count: 1 }] });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('licence collection', () => {
  it('finds the UI packages from the renderer sources, ignoring type-only and relative imports', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pp-ui-src-'));
    try {
      writeFileSync(
        path.join(dir, 'a.tsx'),
        "import React from 'react';\nimport type { X } from 'only-types';\nimport './local.css';\nimport '@mantine/core/styles.css';\nexport { y } from '@scope/pkg/deep/path';\nimport { z } from 'node:path';\n",
      );
      expect(uiImports(dir)).toEqual(['@mantine/core', '@scope/pkg', 'react']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('summarises by licence, most common first', () => {
    expect(
      summarize([
        { name: 'a', version: '1', license: 'ISC', scope: 'server' },
        { name: 'b', version: '1', license: 'MIT', scope: 'server' },
        { name: 'c', version: '1', license: 'MIT', scope: 'ui' },
      ]),
    ).toEqual({
      total: 3,
      byLicense: [
        { license: 'MIT', count: 2 },
        { license: 'ISC', count: 1 },
      ],
    });
  });
});
