import type { NextFunction, Request, Response } from 'express';
import { envelope } from './envelope';

/**
 * Holds the HTTP side still while the database is swapped under the running server (a snapshot
 * restore, server/backup/): requests that arrive meanwhile get 503 "restoring" with Retry-After,
 * requests already running are allowed to finish first. Long-lived event streams (/events/) are
 * not waited for: their domain closes them when it stops.
 */
export class MaintenanceGate {
  private inflight = 0;
  private waiters: Array<() => void> = [];
  private reason: string | null = null;

  get closed(): boolean {
    return this.reason !== null;
  }

  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      if (this.reason !== null) {
        res.status(503).set('Retry-After', '5').set('Cache-Control', 'no-store');
        if (req.path === '/api') res.json(envelope(503, this.reason, { restoring: true }));
        else res.type('text/plain').send(`${this.reason}\n`);
        return;
      }
      if (req.path.startsWith('/events/')) {
        next();
        return;
      }
      this.inflight++;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        this.inflight--;
        for (const wake of this.waiters.splice(0)) wake();
      };
      res.on('finish', finish);
      res.on('close', finish);
      next();
    };
  }

  /**
   * Refuses new requests with `reason`, waits until at most `ownRequests` are still running
   * (the caller's own request) or `timeoutMs` passed.
   */
  async close(reason: string, ownRequests: number, timeoutMs = 15_000): Promise<void> {
    this.reason = reason;
    const deadline = Date.now() + timeoutMs;
    while (this.inflight > ownRequests && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  open(): void {
    this.reason = null;
  }
}
