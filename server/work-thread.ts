import { parentPort } from 'node:worker_threads';
import { runStatementJob, type WorkerJob, type WorkerReply } from './imports/formats/statement-worker';
import type { MarkdownJob } from './push/markdown-pool';
import { renderMarkdown } from './push/markdown-render';

/**
 * The server's work thread: CPU-heavy work that member or key-holder input drives, done off the
 * server's own thread so that no request holds /healthz, /send or /api (docs/security.md,
 * "Budgets"). Its pools start it and give each job a time budget, ending the thread when one runs
 * over: statement files (server/imports/pipeline/statement-reader.ts) and Markdown for message
 * pages and the desktop feed (server/push/markdown-pool.ts). In a build this is
 * `dist/server/work-thread.cjs` (the desktop app: `work-thread.mjs`) beside the server's bundle.
 */

type WorkJob = WorkerJob | MarkdownJob;

const port = parentPort;
if (port) {
  const post = (reply: WorkerReply) => port.postMessage(reply);
  port.on('message', (job: WorkJob) => {
    const done = job.op === 'markdown' ? Promise.resolve().then(() => post({ id: job.id, type: 'done', value: renderMarkdown(job.text) })) : runStatementJob(job, post);
    done.catch((error: unknown) => post({ id: job.id, type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }));
  });
  // Loaded: a pool starts counting a job's time from here.
  post({ id: 0, type: 'ready' });
}
