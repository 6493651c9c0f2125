// CI's proof of the README's first command after `npm install`: runs `npm start` exactly as a
// newcomer would (default port and data dir), waits for the ready line, checks /healthz and the
// UI, sends SIGTERM to npm and expects exit 0 with nothing left listening.
import { spawn } from 'node:child_process';
import net from 'node:net';

const TIMEOUT_MS = 300_000;
const started = Date.now();
const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['start'], { stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
  process.stdout.write(chunk);
});
child.stderr.on('data', (chunk) => {
  output += chunk;
  process.stderr.write(chunk);
});
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

function fail(message) {
  process.stderr.write(`ci: npm start: ${message}\n`);
  child.kill('SIGKILL');
  process.exit(1);
}

let url;
while (!url) {
  url = /^PennyPost listening on (http:\/\/\S+)$/m.exec(output)?.[1];
  if (child.exitCode !== null) fail(`exited with ${child.exitCode} before the ready line`);
  if (Date.now() - started > TIMEOUT_MS) fail('no ready line within 5 minutes');
  if (!url) await new Promise((r) => setTimeout(r, 200));
}
const readyS = ((Date.now() - started) / 1000).toFixed(1);
const health = await fetch(`${url}/healthz`).then((r) => r.json());
if (health.status !== 'ok') fail(`/healthz answered ${JSON.stringify(health)}`);
const page = await fetch(`${url}/`);
if (page.status !== 200 || !(await page.text()).includes('<div id="root">')) fail(`/ answered ${page.status} without the UI`);
child.kill('SIGTERM');
const { code, signal } = await exited;
if (code !== 0) fail(`exit code ${code} (signal ${signal}) after SIGTERM`);
const port = Number(new URL(url).port);
const free = await new Promise((resolve) => {
  const socket = net.connect(port, '127.0.0.1');
  socket.once('connect', () => (socket.destroy(), resolve(false)));
  socket.once('error', () => resolve(true));
});
if (!free) fail(`port ${port} still answers after exit`);
process.stdout.write(`ci: npm start ready in ${readyS} s, /healthz ok, UI served, SIGTERM → exit 0, port ${port} free\n`);
