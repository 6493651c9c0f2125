/**
 * The layer rules of PennyPost (docs/architecture.md). `npm test` runs them through `npm run lint:layers`;
 * one violation fails the build.
 *
 *   ground   server/lib            domain-neutral helpers: errors, money, clock, ids, logger
 *            server/config, db     paths, settings, secrets; the database and its storage
 *   frame    server/api, http,     the wrappers every domain is mounted in (actions, router, routes,
 *            app-context, domain,  rate limits, network policy, the vocabulary of arrival checks)
 *            arrival-checks
 *   domains  server/<domain>/      every other folder of server/ (read from the disk below, so a new
 *                                  folder is a domain at once): each owns its schemas, actions and
 *                                  service, and shows other domains only its index.ts and public.ts
 *   top      server/server.ts, domains.ts, cli*.ts, data-tools/, test-support/, bench/, electron/
 *
 * An import may only run down (or sideways inside one floor). Tests sit above everything.
 */
const { readdirSync } = require('node:fs');
const path = require('node:path');

/** Folders of server/ that are not domains: the ground, the frame and the top. Every other folder is a domain. */
const NOT_DOMAINS = new Set(['lib', 'config', 'db', 'api', 'http', 'data-tools', 'test-support', 'reliability']);
const DOMAIN_NAMES = readdirSync(path.join(__dirname, 'server'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !NOT_DOMAINS.has(entry.name))
  .map((entry) => entry.name)
  .sort();
const DOMAINS = `(${DOMAIN_NAMES.join('|')})`;
const TEST = '\\.test\\.tsx?$|(^|/)tests/';
const GROUND_LIB = '^server/lib/';
const GROUND_STORE = '^server/(config|db)/';
const FRAME = '^server/(api|http)/|^server/(app-context|domain|arrival-checks)\\.ts$';
const DOMAIN = `^server/${DOMAINS}/`;
const TOP = '^server/(server|domains|cli|cli-options|work-thread)\\.ts$|^server/(data-tools|test-support|reliability)/|^bench/|^electron/|^scripts/';

module.exports = {
  forbidden: [
    {
      name: 'lib-imports-nothing-of-the-server',
      comment: 'server/lib is the ground floor: domain-neutral code that imports no other part of the server.',
      severity: 'error',
      from: { path: GROUND_LIB, pathNot: TEST },
      to: { path: '^server/', pathNot: GROUND_LIB },
    },
    {
      name: 'config-and-db-stay-on-the-ground',
      comment: 'config/ and db/ may use lib/ and each other, never the frame, a domain or the top.',
      severity: 'error',
      from: { path: GROUND_STORE, pathNot: TEST },
      to: { path: `${FRAME}|${DOMAIN}|${TOP}` },
    },
    {
      name: 'frame-knows-no-domain',
      comment: 'The wrappers (api/, http/) serve every domain and name none of them.',
      severity: 'error',
      from: { path: FRAME, pathNot: TEST },
      to: { path: `${DOMAIN}|${TOP}` },
    },
    {
      name: 'http-below-api',
      comment: 'http/ holds the request wrappers that /api and the other routes share; api/ is built on it, not the other way round.',
      severity: 'error',
      from: { path: '^server/http/', pathNot: TEST },
      to: { path: '^server/api/' },
    },
    {
      name: 'domains-meet-at-their-public-surface',
      comment:
        'A domain uses another domain only through what that domain publishes: its index.ts (the domain and the services it puts in app.services) and its public.ts (the types, errors and helpers other domains may use). Everything else in a domain folder is its own.',
      severity: 'error',
      from: { path: `^server/${DOMAINS}/`, pathNot: TEST },
      to: { path: `^server/${DOMAINS}/`, pathNot: ['^server/$1/', `^server/${DOMAINS}/(index|public)\\.ts$`] },
    },
    {
      name: 'domains-do-not-reach-up',
      comment: 'A domain uses the ground, the frame and other domains’ services; never the server, the CLI, benchmarks or test helpers.',
      severity: 'error',
      from: { path: DOMAIN, pathNot: TEST },
      to: { path: TOP },
    },
    {
      name: 'production-code-never-imports-tests',
      comment: 'Only tests and benchmarks may use test-support/ and bench/.',
      severity: 'error',
      from: { path: '^(server|electron|renderer)/', pathNot: `${TEST}|^server/test-support/|^server/reliability/|^bench/` },
      to: { path: '^server/test-support/|^bench/' },
    },
    {
      name: 'renderer-talks-to-the-server-only-through-types',
      comment: 'The UI is a client of /api: it may take the action types from server/, nothing that runs.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^(server|electron)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      comment: 'Files that import each other in a loop cannot be read or tested one at a time.',
      severity: 'error',
      from: { path: '^(server|electron|renderer|scripts|bin|bench)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^(dist|test-results)/)|(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
