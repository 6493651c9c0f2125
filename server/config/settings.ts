import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Server settings, kept in `<dataDir>/settings.json` (mode 0600: it may hold OAuth secrets).
 * Every field has a default; a missing or partial file is filled in, an invalid one is refused
 * at start with a message naming the field. docs/configuration.md describes each setting.
 */
const WechatLogin = Type.Object({
  appId: Type.String({ minLength: 1 }),
  appSecret: Type.String({ minLength: 1 }),
  apiBase: Type.String({ default: 'https://api.weixin.qq.com' }),
  /** 'oauth' = website/app login (sns/oauth2/access_token); 'miniprogram' = sns/jscode2session. */
  mode: Type.Union([Type.Literal('oauth'), Type.Literal('miniprogram')], { default: 'oauth' }),
});

const AlipayLogin = Type.Object({
  appId: Type.String({ minLength: 1 }),
  /** PEM (PKCS#8 or PKCS#1) RSA private key of the app, used for RSA2 request signing. */
  privateKey: Type.String({ minLength: 1 }),
  /** PEM public key of Alipay, used to verify the signature of every answer. */
  alipayPublicKey: Type.String({ minLength: 1 }),
  gateway: Type.String({ default: 'https://openapi.alipay.com/gateway.do' }),
});

export const RegistrationPolicy = (fallback: 'open' | 'invite' | 'closed') =>
  Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')], { default: fallback });

export const SettingsSchema = Type.Object({
  network: Type.Object(
    {
      /** Accept connections from the LAN (binds 0.0.0.0 unless --host says otherwise). */
      lan: Type.Boolean({ default: false }),
      /** With LAN on, also let LAN devices call /api (off: only /send, /s/, /m/). */
      lanApi: Type.Boolean({ default: false }),
      /** Extra names this server answers to in the Host header (reverse proxy, mDNS name). */
      allowedHosts: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { default: [] }),
      /** Origins allowed to call /api from a browser (CORS). Empty: none. */
      corsOrigins: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      /** Base URL used in links that leave this machine (message pages, short links). */
      publicBaseUrl: Type.String({ default: '' }),
      /**
       * Who may point PennyPost's own requests (push channels, webhooks, mail servers, sync) at this
       * computer or the local network: the owner alone, or the owner and admins. Only the owner
       * changes it (docs/security.md, "Outbound requests").
       */
      localDestinations: Type.Union([Type.Literal('owner'), Type.Literal('ownerAndAdmins')], { default: 'owner' }),
    },
    { default: {} },
  ),
  rateLimit: Type.Object(
    {
      /** /api requests per minute from one non-loopback address. */
      apiPerAddress: Type.Integer({ minimum: 1, default: 600 }),
      /** /api requests per minute with one token (any address). */
      apiPerToken: Type.Integer({ minimum: 1, default: 1200 }),
      /** user.login / user.register attempts per minute from one address (loopback included). */
      authPerAddress: Type.Integer({ minimum: 1, default: 20 }),
      /** Notices per minute one address may post to the inbox (/in/{inboxKey}), loopback included. */
      inboxPerAddress: Type.Integer({ minimum: 1, default: 60 }),
      /** Loopback callers (this computer) skip the per-address /api limit; tokens still count. */
      exemptLoopback: Type.Boolean({ default: true }),
    },
    { default: {} },
  ),
  auth: Type.Object(
    {
      tokenLifetimeSeconds: Type.Integer({ minimum: 60, default: 7 * 24 * 3600 }),
      lockout: Type.Object(
        {
          maxFailures: Type.Integer({ minimum: 1, default: 5 }),
          windowMinutes: Type.Integer({ minimum: 1, default: 15 }),
          lockMinutes: Type.Integer({ minimum: 1, default: 15 }),
        },
        { default: {} },
      ),
      wechat: Type.Optional(WechatLogin),
      alipay: Type.Optional(AlipayLogin),
      /** Timeout of each call to a login provider, ms. */
      providerTimeoutMs: Type.Integer({ minimum: 100, default: 8000 }),
    },
    { default: {} },
  ),
  files: Type.Object(
    {
      /** Largest accepted file, bytes (5002 above it). */
      maxBytes: Type.Integer({ minimum: 1, maximum: 1024 * 1024 * 1024, default: 20 * 1024 * 1024 }),
      /** Media types accepted by file.upload (5003 otherwise); a subset of server/files/types.ts. */
      allowedTypes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        default: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif', 'image/avif', 'application/pdf', 'text/plain', 'text/csv'],
      }),
      /** Lifetime of the single-use upload URL returned by file.upload, seconds. */
      uploadUrlSeconds: Type.Integer({ minimum: 10, maximum: 24 * 3600, default: 900 }),
      /** Lifetime of signed view links (for <img> tags), seconds. */
      signedUrlSeconds: Type.Integer({ minimum: 10, maximum: 7 * 24 * 3600, default: 3600 }),
    },
    { default: {} },
  ),
  links: Type.Object(
    {
      /** GET /s/{code} misses (unknown code, or a private link of someone else) per minute from one address. */
      missesPerAddress: Type.Integer({ minimum: 1, default: 30 }),
      /** Lifetime of the owner access URL of a private link (`?t=`), seconds. */
      ownerUrlSeconds: Type.Integer({ minimum: 10, maximum: 7 * 24 * 3600, default: 3600 }),
    },
    { default: {} },
  ),
  push: Type.Object(
    {
      /** /send requests per minute for one app key (any caller). */
      sendPerAppKey: Type.Integer({ minimum: 1, default: 120 }),
      /** /send requests per minute from one caller address (loopback included), any app key. */
      sendPerAddress: Type.Integer({ minimum: 1, default: 300 }),
      /** Longest title (characters) /send accepts; longer → 400. */
      titleMaxLength: Type.Integer({ minimum: 1, maximum: 1024, default: 256 }),
      /** Longest desp (characters) /send accepts; longer → 400. */
      despMaxLength: Type.Integer({ minimum: 0, maximum: 262144, default: 65536 }),
      /** Message history is kept this many days, then pruned automatically. */
      retentionDays: Type.Integer({ minimum: 1, maximum: 3650, default: 30 }),
      /** Recipients of one push delivered in parallel. */
      concurrency: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
      /** Timeout of each outbound call (WeChat, webhook receivers), ms. */
      callTimeoutMs: Type.Integer({ minimum: 100, maximum: 60000, default: 5000 }),
      /** Deadline of a whole /send request, retries included, ms. */
      requestDeadlineMs: Type.Integer({ minimum: 200, maximum: 55000, default: 15000 }),
    },
    { default: {} },
  ),
  sync: Type.Object(
    {
      /** Seconds between retries while the CouchDB server cannot be reached. */
      retrySeconds: Type.Number({ minimum: 0.05, maximum: 3600, default: 5 }),
      /** Timeout of each CouchDB request (long-poll waits get a minute more). */
      requestTimeoutMs: Type.Integer({ minimum: 100, default: 20_000 }),
      /** Documents per replication batch. */
      batchSize: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
    },
    { default: {} },
  ),
  /** The desktop app (Electron shell); the headless server ignores these. docs/desktop.md. */
  desktop: Type.Object(
    {
      /** Closing the window keeps PennyPost (and its webhook) running in the tray. */
      closeToTray: Type.Boolean({ default: true }),
      /** Start PennyPost when you sign in to your computer (in the tray, without a window). */
      launchAtLogin: Type.Boolean({ default: false }),
      /** Native notifications for pushes to the desktop channel. */
      notifications: Type.Boolean({ default: true }),
      /** Wrap the keys in secrets/ with the OS keychain (Electron safeStorage) when one is available. */
      protectKeys: Type.Boolean({ default: true }),
    },
    { default: {} },
  ),
  /** Who may create an account (docs/security.md, roles). The first account is always the owner. */
  registration: Type.Object(
    {
      /** Sign-ups from this computer (loopback callers): 'open', 'invite' (an invite code is needed) or 'closed'. */
      fromThisComputer: RegistrationPolicy('open'),
      /** Sign-ups from other devices (LAN, a reverse proxy on another host). */
      fromNetwork: RegistrationPolicy('invite'),
      /** How long an invite code stays valid, hours. */
      inviteHours: Type.Integer({ minimum: 1, maximum: 24 * 30, default: 72 }),
    },
    { default: {} },
  ),
  /** Automatic snapshots of the data dir (server/backup/, docs/data-safety.md). */
  backup: Type.Object(
    {
      /** A snapshot at start when the newest is older than 24 h, and every 24 h while running. */
      automatic: Type.Boolean({ default: true }),
      /** The newest snapshots always kept, whatever their dates. */
      keepLast: Type.Integer({ minimum: 1, maximum: 100, default: 3 }),
      /** The newest snapshot of each of the last N days (UTC) that have one. */
      keepDaily: Type.Integer({ minimum: 0, maximum: 366, default: 7 }),
      /** The newest snapshot of each of the last N ISO weeks that have one. */
      keepWeekly: Type.Integer({ minimum: 0, maximum: 520, default: 4 }),
      /** The newest snapshot of each of the last N months that have one. */
      keepMonthly: Type.Integer({ minimum: 0, maximum: 1200, default: 6 }),
    },
    { default: {} },
  ),
  log: Type.Object(
    {
      level: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('silent')], {
        default: 'info',
      }),
    },
    { default: {} },
  ),
});

export type Settings = Static<typeof SettingsSchema>;
export type SettingsPatch = DeepPartial<Settings>;
type DeepPartial<T> = T extends (infer U)[] ? U[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

export class SettingsError extends Error {}

/** Fills defaults and checks a settings object; throws SettingsError naming the bad field. */
export function normalizeSettings(input: unknown): Settings {
  const value = Value.Default(SettingsSchema, structuredClone(input ?? {}));
  const firstError = Value.Errors(SettingsSchema, value).First();
  if (firstError) {
    throw new SettingsError(`setting ${firstError.path.replace(/^\//, '').replace(/\//g, '.') || '(root)'}: ${firstError.message}`);
  }
  return Value.Clean(SettingsSchema, value) as Settings;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergeSettings(base: unknown, patch: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(patch)) return patch === undefined ? base : patch;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    out[key] = value === null ? undefined : mergeSettings(base[key], value);
  }
  return out;
}

/** Loads, holds and durably saves the settings of one data dir. */
export class SettingsStore {
  private current: Settings;
  private readonly listeners = new Set<(settings: Settings) => void>();
  readonly file: string;

  constructor(dataDir: string, overrides: SettingsPatch = {}) {
    this.file = path.join(dataDir, 'settings.json');
    let stored: unknown = {};
    if (existsSync(this.file)) {
      try {
        stored = JSON.parse(readFileSync(this.file, 'utf8'));
      } catch (error) {
        throw new SettingsError(`${this.file} is not valid JSON: ${(error as Error).message}`);
      }
    }
    this.current = normalizeSettings(mergeSettings(stored, overrides));
  }

  get(): Settings {
    return this.current;
  }

  /** Applies a deep partial change (null removes a key), validates, persists atomically. */
  update(patch: SettingsPatch): Settings {
    const next = normalizeSettings(mergeSettings(this.current, patch));
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(next, null, 2) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    this.current = next;
    for (const listener of this.listeners) listener(next);
    return next;
  }

  onChange(listener: (settings: Settings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
