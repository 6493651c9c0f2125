import { Worker } from 'node:worker_threads';
import type { CsvDescription } from '../formats/csv-mapped';
import type { DescribeOptions, WorkerJob, WorkerReply, WorkerTask } from '../formats/statement-worker';
import { StatementError, type CsvMapping, type InvalidLine, type ParsedStatement, type ParseOptions, type StatementFormat, type StatementLine } from '../formats/types';
import { importErrors } from '../errors';
import { workThreadScript } from '../../lib/work-thread-script';

/** Threads reading statements at once (each holds one file's text while it reads it). */
const WORKERS = 2;
/** Files waiting for a free thread; past that a request is answered 503 "busy". */
const MAX_WAITING = 8;
/**
 * How long reading one file may take. Every parser is linear in its input: a 64 MiB file takes a
 * few seconds, so a file still not read after this long is refused, and its thread replaced.
 */
export const READ_BUDGET_MS = 30_000;
/** A thread left idle this long is ended (it is started again for the next file). */
const IDLE_MS = 60_000;
/** Heap of a reading thread: a file that needs more is refused, the server's own heap untouched. */
const HEAP_MB = 1024;

export interface StatementReaderOptions {
  workers?: number;
  budgetMs?: number;
  idleMs?: number;
  maxWaiting?: number;
  heapMb?: number;
}

export type DescribeResult = { ok: true; description: CsvDescription & { guess: Partial<CsvMapping> } } | { ok: false; kind: string; message: string };

interface Job {
  message: WorkerTask;
  resolve(value: { value: unknown; lines: StatementLine[]; invalid: InvalidLine[] }): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  /** The thread has loaded the parsers (its 'ready' message): the time budget starts only then. */
  ready: boolean;
  job?: { id: number; job: Job; lines: StatementLine[]; invalid: InvalidLine[]; timer?: NodeJS.Timeout };
  idle?: NodeJS.Timeout;
}

/**
 * Reads statement files off the server's thread (docs/import.md, "Budgets"): a small pool of
 * worker threads, reused from file to file. A file that takes longer than the time budget, or
 * needs more memory than a thread's heap, is refused with a StatementError ('tooSlow',
 * 'tooLarge') and its thread is ended and replaced; the server's thread only ever waits.
 */
export class StatementReader {
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly workers: number;
  private readonly budgetMs: number;
  private readonly idleMs: number;
  private readonly maxWaiting: number;
  private readonly heapMb: number;

  constructor(options: StatementReaderOptions = {}) {
    this.workers = options.workers ?? WORKERS;
    this.budgetMs = options.budgetMs ?? READ_BUDGET_MS;
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.maxWaiting = options.maxWaiting ?? MAX_WAITING;
    this.heapMb = options.heapMb ?? HEAP_MB;
  }

  /** The file's lines, read in a worker thread. */
  async parse(format: StatementFormat, bytes: Buffer, options: ParseOptions): Promise<ParsedStatement & { signature?: string }> {
    const { value, lines, invalid } = await this.submit({ op: 'parse', format, bytes, options });
    return { ...(value as Omit<ParsedStatement, 'lines' | 'invalid'> & { signature?: string }), lines, invalid };
  }

  /** The format a file is (by its header and structure: formats/registry.ts guessFormat) and the account it names, read in a worker thread. */
  async guess(bytes: Buffer): Promise<{ format: StatementFormat | null; account: string }> {
    const { value } = await this.submit({ op: 'guess', bytes });
    return value as { format: StatementFormat | null; account: string };
  }

  /** A generic CSV's columns, read once per set of reading options (one answer each, in order). */
  async describe(bytes: Buffer, variants: DescribeOptions[]): Promise<DescribeResult[]> {
    const { value } = await this.submit({ op: 'describe', bytes, variants });
    return value as DescribeResult[];
  }

  /** Ends every thread; files being read or waiting are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(importErrors.busy());
    await Promise.all([...this.slots].map((slot) => this.end(slot, importErrors.busy())));
  }

  private submit(message: Job['message']): Promise<{ value: unknown; lines: StatementLine[]; invalid: InvalidLine[] }> {
    if (this.closed) return Promise.reject(importErrors.busy());
    return new Promise((resolve, reject) => {
      const job: Job = { message, resolve, reject };
      const slot = this.freeSlot();
      if (slot) this.start(slot, job);
      else if (this.waiting.length >= this.maxWaiting) reject(importErrors.busy());
      else this.waiting.push(job);
    });
  }

  private freeSlot(): Slot | undefined {
    const idle = this.slots.find((slot) => !slot.job);
    if (idle) return idle;
    if (this.slots.length >= this.workers) return undefined;
    const { script, eval: isSource } = workThreadScript(import.meta.url, '../../work-thread.ts');
    const worker = new Worker(script, { eval: isSource, resourceLimits: { maxOldGenerationSizeMb: this.heapMb }, stdout: false, stderr: false });
    worker.unref();
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: WorkerReply) => this.receive(slot, reply));
    worker.on('error', (error: Error & { code?: string }) => {
      const refusal =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new StatementError('tooLarge', 'Reading this file needs far more memory than any statement does, so it was refused. Check that it is the unmodified export.')
          : error;
      void this.end(slot, refusal);
    });
    worker.on('exit', () => void this.end(slot, new Error('the statement reading thread stopped')));
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = undefined;
    slot.job = { id: this.nextId++, job, lines: [], invalid: [] };
    if (slot.ready) this.send(slot);
  }

  /** Hands the slot's job to its thread, and starts the time budget. */
  private send(slot: Slot): void {
    const current = slot.job;
    if (!current) return;
    current.timer = setTimeout(() => {
      const seconds = Math.round(this.budgetMs / 100) / 10;
      void this.end(
        slot,
        new StatementError(
          'tooSlow',
          `Reading it took longer than ${seconds} s, far longer than any statement of this size needs, so it was refused (it may be damaged or made to be slow). Check that it is the unmodified export.`,
        ),
      );
    }, this.budgetMs);
    current.timer.unref();
    // The bytes are copied to the thread (the caller may keep its Buffer for another try).
    const job: WorkerJob = { ...current.job.message, id: current.id };
    slot.worker.postMessage(job);
  }

  private receive(slot: Slot, reply: WorkerReply): void {
    if (reply.type === 'ready') {
      slot.ready = true;
      this.send(slot);
      return;
    }
    const current = slot.job;
    if (!current || current.id !== reply.id) return;
    switch (reply.type) {
      case 'lines':
        for (const line of reply.lines) current.lines.push(line as StatementLine);
        return;
      case 'invalid':
        for (const line of reply.invalid) current.invalid.push(line as InvalidLine);
        return;
      case 'done':
        this.finish(slot);
        current.job.resolve({ value: reply.value, lines: current.lines, invalid: current.invalid });
        return;
      case 'refused':
        this.finish(slot);
        current.job.reject(new StatementError(reply.kind, reply.message));
        return;
      case 'failed':
        this.finish(slot);
        current.job.reject(new Error(`reading a statement failed: ${reply.message}`));
        return;
    }
  }

  /** The slot's job is over: it takes the next waiting file, or idles. */
  private finish(slot: Slot): void {
    if (slot.job) clearTimeout(slot.job.timer);
    slot.job = undefined;
    const next = this.waiting.shift();
    if (next) {
      this.start(slot, next);
      return;
    }
    slot.idle = setTimeout(() => void this.end(slot), this.idleMs);
    slot.idle.unref();
  }

  /** Ends a slot's thread; its job (if any) is refused with `reason`; a waiting file gets a new thread. */
  private async end(slot: Slot, reason?: unknown): Promise<void> {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    if (slot.idle) clearTimeout(slot.idle);
    const current = slot.job;
    slot.job = undefined;
    if (current) {
      clearTimeout(current.timer);
      current.job.reject(reason ?? new Error('the statement reading thread stopped'));
    }
    const next = this.closed ? undefined : this.waiting.shift();
    if (next) {
      const fresh = this.freeSlot();
      if (fresh) this.start(fresh, next);
      else this.waiting.unshift(next);
    }
    await slot.worker.terminate();
  }
}
