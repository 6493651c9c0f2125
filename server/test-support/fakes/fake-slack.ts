import type { ServerResponse } from 'node:http';
import { listenFake, type FakeServer } from './listen';

/**
 * Slack's incoming webhooks as its documentation describes them, for the slack channel's tests:
 * `POST /services/{team}/{bot}/{secret}` with a JSON `{text, blocks}` answers `200 ok` (text/html),
 * or an error word: 404 `no_service` (unknown webhook), 403 `invalid_token` (wrong secret), 403
 * `action_prohibited`, 410 `channel_is_archived`, 400 `invalid_payload` (not JSON), `no_text`
 * (neither text nor blocks), `invalid_blocks` (a header that is not plain_text or over 150
 * characters, a section text over 3000, more than 50 blocks, an unknown block type), and
 * programmable 429 (with Retry-After) and 500.
 */

export type SlackStep = { status: 429; retryAfter: number } | { status: 500 } | { status: 403; error: 'action_prohibited' } | 'ok';

export interface SlackSent {
  body: Record<string, any>;
}

const answer = (res: ServerResponse, status: number, text: string) => {
  res.writeHead(status, { 'content-type': 'text/html' });
  res.end(text);
};

interface Block {
  type?: unknown;
  text?: { type?: unknown; text?: unknown };
  elements?: unknown;
}

function blocksProblem(blocks: unknown): boolean {
  if (!Array.isArray(blocks) || blocks.length > 50) return true;
  for (const block of blocks as Block[]) {
    const text = typeof block.text?.text === 'string' ? block.text.text : '';
    switch (block.type) {
      case 'header':
        if (block.text?.type !== 'plain_text' || !text || text.length > 150) return true;
        break;
      case 'section':
        if (!(block.text?.type === 'mrkdwn' || block.text?.type === 'plain_text') || !text || text.length > 3000) return true;
        break;
      case 'context':
        if (!Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 10) return true;
        break;
      case 'divider':
        break;
      default:
        return true;
    }
  }
  return false;
}

export class FakeSlack {
  server!: FakeServer;
  readonly sent: SlackSent[] = [];
  archived = false;
  private readonly steps: SlackStep[] = [];

  constructor(
    readonly team = 'T0FAKE123',
    readonly bot = 'B0FAKE456',
    readonly secret = 'fakeSlackSecret0123456789',
  ) {}

  get webhookUrl(): string {
    return `${this.server.url}/services/${this.team}/${this.bot}/${this.secret}`;
  }

  program(...steps: SlackStep[]): void {
    this.steps.push(...steps);
  }

  async start(): Promise<this> {
    this.server = await listenFake((req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const match = /^\/services\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (req.method !== 'POST' || !match || match[1] !== this.team || match[2] !== this.bot) {
        answer(res, 404, 'no_service');
        return;
      }
      if (match[3] !== this.secret) {
        answer(res, 403, 'invalid_token');
        return;
      }
      if (this.archived) {
        answer(res, 410, 'channel_is_archived');
        return;
      }
      let input: Record<string, any>;
      try {
        input = JSON.parse(body) as Record<string, any>;
      } catch {
        answer(res, 400, 'invalid_payload');
        return;
      }
      if (typeof input !== 'object' || Array.isArray(input)) {
        answer(res, 400, 'invalid_payload');
        return;
      }
      if (!input.text && !input.blocks) {
        answer(res, 400, 'no_text');
        return;
      }
      if (input.blocks !== undefined && blocksProblem(input.blocks)) {
        answer(res, 400, 'invalid_blocks');
        return;
      }
      const step = this.steps.shift();
      if (step && step !== 'ok') {
        if (step.status === 429) {
          res.setHeader('retry-after', String(step.retryAfter));
          answer(res, 429, 'rate_limited');
          return;
        }
        if (step.status === 403) {
          answer(res, 403, step.error);
          return;
        }
        answer(res, 500, 'internal_error');
        return;
      }
      this.sent.push({ body: input });
      answer(res, 200, 'ok');
    });
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
