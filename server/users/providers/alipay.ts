import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { Settings } from '../../config/settings';
import { usersErrors } from '../errors';
import { OutboundError, outbound } from '../../lib/outbound';
import type { PlatformIdentity } from './wechat';

type AlipayConfig = NonNullable<Settings['auth']['alipay']>;

const METHOD = 'alipay.system.oauth.token';
const RESPONSE_NODE = 'alipay_system_oauth_token_response';

/** Accepts a PEM key or the bare base64 body that Alipay's console shows. */
function toPem(key: string, kind: 'PRIVATE KEY' | 'PUBLIC KEY'): string {
  const trimmed = key.trim();
  if (trimmed.startsWith('-----BEGIN')) return trimmed;
  const body = trimmed.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${kind}-----\n${body}\n-----END ${kind}-----`;
}

function privateKeyOf(config: AlipayConfig): KeyObject {
  return createPrivateKey(toPem(config.privateKey, 'PRIVATE KEY'));
}

function publicKeyOf(config: AlipayConfig): KeyObject {
  return createPublicKey(toPem(config.alipayPublicKey, 'PUBLIC KEY'));
}

/** "yyyy-MM-dd HH:mm:ss" in China Standard Time (UTC+8), as the gateway expects. */
export function alipayTimestamp(ms: number): string {
  return new Date(ms + 8 * 3600_000).toISOString().replace('T', ' ').slice(0, 19);
}

/** The string Alipay signs: non-empty params except `sign`, sorted by key, `k=v` joined by `&`. */
export function alipaySignContent(params: Readonly<Record<string, string | undefined>>): string {
  return Object.keys(params)
    .filter((key) => key !== 'sign' && params[key] !== '' && params[key] !== undefined)
    .sort()
    .map((key) => `${key}=${String(params[key])}`)
    .join('&');
}

/** RSA2 = SHA256withRSA, base64. */
export function rsa2Sign(content: string, key: KeyObject): string {
  return sign('RSA-SHA256', Buffer.from(content, 'utf8'), key).toString('base64');
}

/**
 * The raw JSON text of `node` inside the gateway's answer, exactly as sent: Alipay signs that
 * substring, so it must not be re-serialised. Returns null when the node is absent.
 */
export function extractJsonNode(body: string, node: string): string | null {
  const marker = `"${node}"`;
  const at = body.indexOf(marker);
  if (at < 0) return null;
  let i = body.indexOf(':', at + marker.length);
  if (i < 0) return null;
  i++;
  while (i < body.length && /\s/.test(body.charAt(i))) i++;
  if (body[i] !== '{') return null;
  let depth = 0;
  let inString = false;
  for (let j = i; j < body.length; j++) {
    const ch = body[j];
    if (inString) {
      if (ch === '\\') j++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return body.slice(i, j + 1);
    }
  }
  return null;
}

interface AlipayError {
  code?: string;
  msg?: string;
  sub_code?: string;
  sub_msg?: string;
}

/**
 * Alipay sign-in: `alipay.system.oauth.token` with grant_type=authorization_code, signed with the
 * app's RSA private key (RSA2); the answer's signature is verified with Alipay's public key
 * before its user id is trusted.
 */
export async function alipayIdentity(config: AlipayConfig, authCode: string, timeoutMs: number, now: number): Promise<PlatformIdentity> {
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  try {
    privateKey = privateKeyOf(config);
    publicKey = publicKeyOf(config);
  } catch {
    throw usersErrors.alipayKeysInvalid();
  }
  const params: Record<string, string> = {
    app_id: config.appId,
    method: METHOD,
    format: 'JSON',
    charset: 'utf-8',
    sign_type: 'RSA2',
    timestamp: alipayTimestamp(now),
    version: '1.0',
    grant_type: 'authorization_code',
    code: authCode,
  };
  params.sign = rsa2Sign(alipaySignContent(params), privateKey);

  let text: string;
  let status: number;
  try {
    ({ text, status } = await outbound(config.gateway, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=utf-8' },
      body: new URLSearchParams(params).toString(),
      timeoutMs,
      service: 'Alipay',
    }));
  } catch (error) {
    if (error instanceof OutboundError) throw usersErrors.platformFailed('Alipay', error.message);
    throw error;
  }
  if (status >= 500) throw usersErrors.platformFailed('Alipay', `the gateway answered HTTP ${status}`);

  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw usersErrors.platformFailed('Alipay', 'the gateway answered something that is not JSON');
  }
  const errorNode = parsed.error_response as AlipayError | undefined;
  if (errorNode) {
    const detail = [errorNode.code, errorNode.sub_code, errorNode.sub_msg ?? errorNode.msg].filter(Boolean).join(' ');
    if (errorNode.sub_code === 'isv.code-invalid' || errorNode.sub_code === 'isv.invalid-auth-code') {
      throw usersErrors.platformCodeRefused('Alipay', detail);
    }
    throw usersErrors.alipayRefusedRequest(detail);
  }
  const raw = extractJsonNode(text, RESPONSE_NODE);
  const signature = typeof parsed.sign === 'string' ? parsed.sign : '';
  if (!raw || !signature || !verify('RSA-SHA256', Buffer.from(raw, 'utf8'), publicKey, Buffer.from(signature, 'base64'))) {
    throw usersErrors.platformFailed('Alipay', 'the answer is not signed by Alipay (check auth.alipay.alipayPublicKey)');
  }
  const answer = JSON.parse(raw) as { user_id?: string; open_id?: string; code?: string; sub_code?: string; sub_msg?: string };
  if (answer.code && answer.code !== '10000') {
    throw usersErrors.platformAnswerRefused('Alipay', `${answer.code} ${answer.sub_code ?? ''}`);
  }
  const id = answer.user_id ?? answer.open_id;
  if (!id) throw usersErrors.platformFailed('Alipay', 'the answer has no user id');
  return { id };
}
