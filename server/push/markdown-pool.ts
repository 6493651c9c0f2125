import { Worker } from 'node:worker_threads';
import { workThreadScript } from '../lib/work-thread-script';
import { escapeHtml } from './html';

/**
 * Markdown → HTML off the server's thread. A push's text is up to 64 KB that an app-key holder
 * writes; rendering a pathological one (thousands of nested list items) takes markdown-it a few
 * hundred milliseconds, and a message page is rendered at every view: on the server's thread a
 * handful of views at once would hold every request (docs/security.md, "Budgets"). One work thread
 * renders, one text at a time; a text still not rendered after RENDER_BUDGET_MS is shown as plain
 * text instead and the thread replaced. Rendered pages are kept (a few) so repeated views are free.
 */

/** How long one text may take: a real message renders in a few milliseconds. */
export const RENDER_BUDGET_MS = 2000;
/** Texts waiting; past that a text is shown as plain text at once. */
const MAX_WAITING = 32;
/** The thread ends after this long without work (and starts again for the next text). */
const IDLE_MS = 60_000;
/** Rendered texts kept, by their text. */
const CACHE_ENTRIES = 64;
/** Texts up to this size are rendered on the server's thread: below it, markdown-it stays under a millisecond. */
const INLINE_CHARS = 2048;

/** A Markdown job for the work thread (server/work-thread.ts). */
export type MarkdownJob = { op: 'markdown'; id: number; text: string };

type Reply = { id: number; type: 'ready' } | { id: number; type: 'done'; value: string } | { id: number; type: 'failed'; message: string };

/** What a text that could not be rendered in time is shown as. */
export function plainTextHtml(text: string): string {
  return `<pre class="plain">${escapeHtml(text)}</pre>`;
}

interface Job {
  id: number;
  text: string;
  resolve(html: string): void;
  timer?: NodeJS.Timeout;
}

export class MarkdownPool {
  private worker: Worker | null = null;
  private ready = false;
  private current: Job | null = null;
  private readonly waiting: Job[] = [];
  private readonly cache = new Map<string, string>();
  private idle: NodeJS.Timeout | undefined;
  private nextId = 1;

  constructor(
    private readonly inline: (text: string) => string,
    private readonly budgetMs = RENDER_BUDGET_MS,
  ) {}

  /** The text as sanitized HTML; plain text when it cannot be rendered within the budget. */
  render(text: string): Promise<string> {
    if (text.length <= INLINE_CHARS) return Promise.resolve(this.inline(text));
    const cached = this.cache.get(text);
    if (cached !== undefined) return Promise.resolve(cached);
    if (this.waiting.length >= MAX_WAITING) return Promise.resolve(plainTextHtml(text));
    return new Promise((resolve) => {
      this.waiting.push({ id: this.nextId++, text, resolve });
      this.next();
    });
  }

  private next(): void {
    if (this.current || this.waiting.length === 0) return;
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const job = this.waiting.shift();
    if (!job) return;
    this.current = job;
    this.thread();
    if (this.ready) this.send(job);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const { script, eval: isSource } = workThreadScript(import.meta.url, '../work-thread.ts');
    const worker = new Worker(script, { eval: isSource, resourceLimits: { maxOldGenerationSizeMb: 256 }, stdout: false, stderr: false });
    worker.unref();
    this.worker = worker;
    this.ready = false;
    worker.on('message', (reply: Reply) => this.receive(worker, reply));
    worker.on('error', () => this.replace(worker));
    worker.on('exit', () => this.replace(worker));
    return worker;
  }

  private send(job: Job): void {
    job.timer = setTimeout(() => {
      if (this.worker) this.replace(this.worker);
    }, this.budgetMs);
    job.timer.unref();
    this.worker?.postMessage({ op: 'markdown', id: job.id, text: job.text } satisfies MarkdownJob);
  }

  private receive(worker: Worker, reply: Reply): void {
    if (worker !== this.worker) return;
    if (reply.type === 'ready') {
      this.ready = true;
      if (this.current) this.send(this.current);
      return;
    }
    const job = this.current;
    if (!job || job.id !== reply.id) return;
    clearTimeout(job.timer);
    this.current = null;
    const html = reply.type === 'done' ? reply.value : plainTextHtml(job.text);
    if (reply.type === 'done') {
      this.cache.set(job.text, html);
      if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    }
    job.resolve(html);
    this.afterJob();
  }

  /** The thread ran over, failed or stopped: its text is shown as plain text, the next one gets a new thread. */
  private replace(worker: Worker): void {
    if (worker !== this.worker) return;
    this.worker = null;
    this.ready = false;
    void worker.terminate();
    const job = this.current;
    this.current = null;
    if (job) {
      clearTimeout(job.timer);
      job.resolve(plainTextHtml(job.text));
    }
    this.afterJob();
  }

  private afterJob(): void {
    if (this.waiting.length > 0) {
      this.next();
      return;
    }
    if (this.idle || !this.worker) return;
    const worker = this.worker;
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.worker === worker && !this.current) {
        this.worker = null;
        void worker.terminate();
      }
    }, IDLE_MS);
    this.idle.unref();
  }
}
