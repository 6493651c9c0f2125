/**
 * The pairing link (docs/phone.md, "Pairing"): what a phone needs to sync a ledger with CouchDB,
 * carried in the fragment of the phone app's address, `<app>#pair=<base64url of JSON>`. A fragment
 * is never sent to a server, so the credential reaches no log; the phone removes it from its
 * address bar and history as soon as it has read it. The desktop writes the link (phones.ts), the
 * phone reads it (phone/src/pairing.ts): one module, plain TypeScript without Node.
 */

/** The synced collections the phone keeps: the ledger and its plans (budgets, recurring items). */
export const PHONE_COLLECTIONS = ['assets', 'records', 'categories', 'rates', 'plans'] as const;
export type PhoneCollection = (typeof PHONE_COLLECTIONS)[number];

export interface Pairing {
  v: 1;
  /** CouchDB's base URL, ending in `/`. */
  url: string;
  /** The ledger's database prefix. */
  prefix: string;
  /** The phone's own CouchDB user and password. */
  user: string;
  pw: string;
  /** The ledger owner id of `<prefix>meta/ledger-owner`: the userId of every document of the ledger. */
  owner: string;
  /** The name the phone was given on the desktop ("Anna's phone"). */
  label: string;
  /** The ledger's language and base currency on the desktop, which the phone starts with. */
  lang?: 'en' | 'zh-CN';
  base?: string;
}

const toBase64Url = (text: string) => {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

const fromBase64Url = (text: string) => {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
};

export function encodePairing(appUrl: string, pairing: Pairing): string {
  const base = appUrl.split('#')[0] ?? appUrl;
  return `${base}#pair=${toBase64Url(JSON.stringify(pairing))}`;
}

const text = (value: unknown, max: number) => typeof value === 'string' && value.length > 0 && value.length <= max;

/**
 * The pairing in a link, a bare fragment (`#pair=…`) or the bare code, or null with nothing
 * thrown when it is not one (a person pastes anything into the box).
 */
export function decodePairing(input: string): Pairing | null {
  const trimmed = input.trim();
  const at = trimmed.indexOf('pair=');
  const code = at >= 0 ? trimmed.slice(at + 'pair='.length) : trimmed;
  if (!/^[A-Za-z0-9_-]{20,4000}$/.test(code)) return null;
  let value: unknown;
  try {
    value = JSON.parse(fromBase64Url(code));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const p = value as Record<string, unknown>;
  if (p.v !== 1 || !text(p.url, 2048) || !text(p.prefix, 100) || !text(p.user, 256) || !text(p.pw, 1024) || !text(p.owner, 64)) return null;
  if (typeof p.label !== 'string' || p.label.length > 64) return null;
  let url: URL;
  try {
    url = new URL(p.url as string);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const out: Pairing = {
    v: 1,
    url: url.href.endsWith('/') ? url.href : `${url.href}/`,
    prefix: p.prefix as string,
    user: p.user as string,
    pw: p.pw as string,
    owner: p.owner as string,
    label: p.label,
  };
  if (p.lang === 'en' || p.lang === 'zh-CN') out.lang = p.lang;
  if (typeof p.base === 'string' && /^[A-Z]{3}$/.test(p.base)) out.base = p.base;
  return out;
}
