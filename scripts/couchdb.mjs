#!/usr/bin/env node
// A real Apache CouchDB 3.4.3 for the sync tests and `npm run bench:sync`, built from the source
// tarball in vendor/couchdb/ (Apache-2.0; LICENSE and NOTICE inside). Nothing is downloaded: Erlang,
// rebar3 and ICU come from the system (Debian: see docs/sync.md › Testing against CouchDB).
//
//   node scripts/couchdb.mjs build               build the release once (about 75 s on 2 cores), cached
//   node scripts/couchdb.mjs start PORT DIR      start a single-node server on 127.0.0.1:PORT, data in DIR,
//                                                admin:admin; prints its URL when it answers
//   node scripts/couchdb.mjs stop DIR            stop the server started with DIR
//
// The build lives in $PENNYPOST_COUCHDB_HOME, default ~/.cache/pennypost/couchdb.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const COUCHDB_VERSION = '3.4.3';
const TARBALL = path.join(ROOT, 'vendor', 'couchdb', `couchdb-${COUCHDB_VERSION}-with-deps.tar.gz`);
const HOME = process.env.PENNYPOST_COUCHDB_HOME || path.join(os.homedir(), '.cache', 'pennypost', 'couchdb');
const SOURCE = path.join(HOME, `couchdb-${COUCHDB_VERSION}`);
const RELEASE = path.join(SOURCE, 'rel', 'couchdb');
export const COUCHDB_BIN = path.join(RELEASE, 'bin', 'couchdb');
/** The Debian packages the build needs (installed by .ci/run). */
export const BUILD_PACKAGES = ['erlang-nox', 'erlang-dev', 'erlang-reltool', 'erlang-src', 'rebar3', 'pkg-config', 'libicu-dev', 'build-essential', 'libssl-dev'];

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export function isBuilt() {
  return existsSync(COUCHDB_BIN);
}

export function build({ quiet = false } = {}) {
  if (isBuilt()) {
    if (!quiet) console.log(`couchdb: built in ${RELEASE}`);
    return;
  }
  const missing = ['erl', 'rebar3', 'make', 'cc'].filter((c) => !has(c));
  if (missing.length > 0) {
    throw new Error(
      `couchdb: cannot build CouchDB ${COUCHDB_VERSION}: ${missing.join(', ')} not found. On Debian/Ubuntu: ` + `apt-get install ${BUILD_PACKAGES.join(' ')} (.ci/run does this).`,
    );
  }
  const started = Date.now();
  console.log(`couchdb: building Apache CouchDB ${COUCHDB_VERSION} from vendor/ into ${HOME} (once; about 1–3 minutes)`);
  mkdirSync(HOME, { recursive: true });
  rmSync(SOURCE, { recursive: true, force: true });
  execFileSync('tar', ['-xzf', TARBALL, '-C', HOME]);
  // Its build asks git for the version; the tarball has no .git.
  const git = (...args) => execFileSync('git', ['-c', 'user.email=build@localhost', '-c', 'user.name=build', ...args], { cwd: SOURCE, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', `CouchDB ${COUCHDB_VERSION}`);
  git('tag', COUCHDB_VERSION);
  spawnSync('epmd', ['-daemon'], { stdio: 'ignore' });
  const log = path.join(HOME, 'build.log');
  const run = (file, args) => {
    const result = spawnSync(file, args, { cwd: SOURCE, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    writeFileSync(log, `${existsSync(log) ? readFileSync(log, 'utf8') : ''}$ ${file} ${args.join(' ')}\n${result.stdout}${result.stderr}`);
    if (result.status !== 0) {
      throw new Error(`couchdb: ${file} ${args[0] ?? ''} failed (see ${log}):\n${(result.stdout + result.stderr).split('\n').slice(-30).join('\n')}`);
    }
  };
  rmSync(log, { force: true });
  run('./configure', [
    '--disable-docs',
    '--disable-fauxton',
    '--disable-spidermonkey',
    '--js-engine',
    'quickjs',
    '--skip-deps',
    '--without-proper',
    '--rebar3',
    execFileSync('sh', ['-c', 'command -v rebar3'], { encoding: 'utf8' }).trim(),
    '--erlfmt',
    '/bin/true',
  ]);
  run('make', ['release']);
  console.log(`couchdb: built in ${Math.round((Date.now() - started) / 1000)} s`);
}

const hex = (bytes) => randomBytes(bytes).toString('hex');

async function answers(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return res.ok && JSON.stringify(await res.json()).includes('"couchdb"');
  } catch {
    return false;
  }
}

/**
 * Starts a single-node CouchDB on 127.0.0.1:port with its data in dir; its server admin is
 * `admin` with `adminPassword` (default "admin").
 */
export async function start(port, dir, { adminPassword = 'admin' } = {}) {
  build({ quiet: true });
  const url = `http://admin:${encodeURIComponent(adminPassword)}@127.0.0.1:${port}`;
  if (await answers(port)) return url;
  const etc = path.join(dir, 'etc');
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  // Each instance has its own etc/ and Erlang node name, so several run side by side.
  cpSync(path.join(RELEASE, 'etc'), etc, { recursive: true });
  const vmArgs = path.join(etc, 'vm.args');
  writeFileSync(vmArgs, readFileSync(vmArgs, 'utf8').replace(/^-name .*$/m, `-name couchdb${port}@127.0.0.1`));
  mkdirSync(path.join(etc, 'local.d'), { recursive: true });
  writeFileSync(
    path.join(etc, 'local.d', 'pennypost.ini'),
    [
      '[couchdb]',
      'single_node = true',
      `uuid = ${hex(16)}`,
      `database_dir = ${path.join(dir, 'data')}`,
      `view_index_dir = ${path.join(dir, 'data')}`,
      '[chttpd]',
      `port = ${port}`,
      'bind_address = 127.0.0.1',
      '[chttpd_auth]',
      `secret = ${hex(16)}`,
      '[cluster]',
      'n = 1',
      'q = 2',
      '[log]',
      'writer = file',
      `file = ${path.join(dir, 'couchdb.log')}`,
      'level = warning',
      '[admins]',
      `admin = ${adminPassword}`,
      '',
    ].join('\n'),
  );
  spawnSync('epmd', ['-daemon'], { stdio: 'ignore' });
  const out = path.join(dir, 'stdout.log');
  const child = spawn(COUCHDB_BIN, [], {
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore'],
    env: {
      ...process.env,
      COUCHDB_ARGS_FILE: vmArgs,
      COUCHDB_INI_FILES: ['default.ini', 'local.ini', path.join('local.d', 'pennypost.ini')].map((f) => path.join(etc, f)).join(' '),
    },
  });
  child.unref();
  writeFileSync(path.join(dir, 'couchdb.pid'), String(child.pid));
  for (let i = 0; i < 240; i++) {
    if (await answers(port)) return url;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  stop(dir);
  throw new Error(`couchdb: no answer on port ${port} after 60 s; see ${out} and ${path.join(dir, 'couchdb.log')}`);
}

/** Stops the server started with dir (its whole process group: the Erlang VM and its helpers). */
export function stop(dir) {
  const pidFile = path.join(dir, 'couchdb.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  rmSync(pidFile, { force: true });
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  try {
    if (command === 'build') build();
    else if (command === 'start') console.log(await start(Number(args[0] ?? 5984), path.resolve(args[1] ?? path.join(HOME, `data-${args[0] ?? 5984}`))));
    else if (command === 'stop') stop(path.resolve(args[0] ?? path.join(HOME, 'data-5984')));
    else {
      console.error('usage: node scripts/couchdb.mjs build | start PORT DIR | stop DIR');
      process.exit(64);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
