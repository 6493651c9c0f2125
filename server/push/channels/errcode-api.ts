import type { OutboundScope } from '../../http/outbound-policy';
import { call, CallError } from '../http-client';
import type { ResultClass } from '../schema';

/**
 * One call to an API that answers JSON with `errcode`/`errmsg` (WeChat Official Accounts,
 * ./wechat-api.ts; WeCom applications, ./wecom-app-api.ts). Of an answer only the service's own
 * fields are used, and only `errmsg` is ever quoted (secrets replaced by `••••`, white space
 * folded, cut to 200 characters); an answer that is not the service's JSON is not quoted. Errors
 * never carry the URL (its query holds the access token).
 */

/** A failed call, already classified. */
export class ApiFailure extends Error {
  constructor(
    readonly cls: Exclude<ResultClass, 'ok'>,
    message: string,
    readonly errcode?: number,
    /** transient only: false for throttling that an immediate retry would not fix. */
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

/** A service's answer: its JSON object, `errmsg` made safe to quote. */
export type ErrcodeAnswer = Record<string, unknown> & { errcode?: number; errmsg?: string };

export interface ErrcodeService {
  /** The service's name in messages ('WeChat', 'WeCom'). */
  name: string;
  /** The config field of the channel's API address, named when the answer is not the service's. */
  baseField: string;
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 6) out = out.split(secret).join('••••');
  return out.replace(/\s+/g, ' ').trim().slice(0, 200);
}

export async function errcodeCall(
  service: ErrcodeService,
  scope: OutboundScope,
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown; timeoutMs: number },
  secrets: readonly string[],
): Promise<ErrcodeAnswer> {
  let answer;
  try {
    answer = await call(scope, url, {
      method: init.method,
      headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      timeoutMs: init.timeoutMs,
    });
  } catch (error) {
    if (error instanceof CallError && error.kind === 'refused') throw new ApiFailure('systemic', `PennyPost did not send to ${service.name}: ${error.message}`);
    const reason = error instanceof CallError ? error.message : 'network error';
    throw new ApiFailure('transient', `${service.name} could not be reached: ${reason}.`);
  }
  if (answer.status >= 500) throw new ApiFailure('transient', `${service.name} answered HTTP ${answer.status}.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    throw new ApiFailure('transient', `${service.name} answered something that is not JSON (HTTP ${answer.status}); is the channel's ${service.baseField} right?`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ApiFailure('transient', `${service.name} answered an unexpected shape.`);
  const reply = { ...(parsed as Record<string, unknown>) };
  const errcode = reply.errcode;
  reply.errcode = typeof errcode === 'number' ? errcode : typeof errcode === 'string' && /^-?\d+$/.test(errcode) ? Number(errcode) : undefined;
  // errmsg is made text here, whatever scalar came.
  const errmsg = reply.errmsg;
  reply.errmsg = typeof errmsg === 'string' || typeof errmsg === 'number' ? redact(String(errmsg), secrets) : undefined;
  return reply;
}
