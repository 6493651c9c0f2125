import { createHash, X509Certificate } from 'node:crypto';
import net, { isIP } from 'node:net';
import type { OutboundScope } from '../../http/outbound-policy';
import type { Failure, Outcome } from '../deliver';

/**
 * Email over SMTP (docs/push.md; the driver is ./email.ts): one pooled nodemailer transport per
 * channel, STARTTLS required when chosen, and the SMTP answers sorted into PennyPost's error classes
 * with a plain-words message each. The password never leaves the transport: nodemailer logs
 * nothing, and any server text quoted in a message is searched for it first.
 */

export const SMTP_SECURITIES = ['starttls', 'tls', 'none'] as const;
export type SmtpSecurity = (typeof SMTP_SECURITIES)[number];

/** The submission port of each security when the config leaves it at 0. */
export const DEFAULT_PORT: Record<SmtpSecurity, number> = { starttls: 587, tls: 465, none: 25 };

export interface EmailConfig {
  smtpHost: string;
  /** 0 = the default port of the security. */
  smtpPort: number;
  smtpSecurity: SmtpSecurity;
  smtpUser: string;
  smtpPassword: string;
  fromAddress: string;
  fromName: string;
  /** PEM of a server certificate (or its CA) to trust besides the public CAs: self-hosted servers ('' = none). */
  smtpCaCert: string;
}

/** One push as mail: shared by every recipient (each gets a mail of their own). */
export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
  /** X-Priority, Importance and Priority (none for normal). */
  headers: Record<string, string>;
  /** Hash of (app, group) for the thread root's Message-ID; '' without a group. */
  thread: string;
}

export const portOf = (config: EmailConfig): number => config.smtpPort || DEFAULT_PORT[config.smtpSecurity];

/**
 * Hosts that may be reached without TLS: this computer and the local network (loopback, private
 * and link-local IP addresses, `localhost`, names without a dot and the .local/.lan/.home.arpa/
 * .internal names that public DNS does not serve).
 */
export function isLocalHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  const version = isIP(name);
  if (version === 4) {
    const octets = name.split('.').map(Number);
    const a = octets.at(0);
    const b = octets.at(1);
    if (a === undefined || b === undefined) return false; // isIP 4: there are four
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (version === 6) return name === '::1' || /^f[cd][0-9a-f]{2}:/.test(name) || /^fe[89ab][0-9a-f]:/.test(name) || /^::ffff:(127|10|192\.168)\./.test(name);
  if (!name.includes('.')) return true;
  return /\.(localhost|local|lan|home\.arpa|internal)$/.test(name);
}

/** The certificate's SHA-256 fingerprint, or null when the text is not a PEM certificate. */
export function certificateFingerprint(pem: string): string | null {
  try {
    return new X509Certificate(pem).fingerprint256;
  } catch {
    return null;
  }
}

/**
 * A PEM as pasted into a one-line field (line breaks turned into spaces or lost) put back in its
 * form: each BEGIN/END CERTIFICATE block with its base64 in 64-character lines. null when there is none.
 */
export function normalizePem(text: string): string | null {
  const blocks = [...text.matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----/g)];
  if (blocks.length === 0) return null;
  return blocks
    .map((block) => {
      const base64 = block.at(1);
      if (base64 === undefined) throw new Error('normalizePem: a certificate block matched without its body');
      const body = base64.replace(/\s+/g, '');
      return `-----BEGIN CERTIFICATE-----\n${(body.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
    })
    .join('');
}

/** What makes two configs the same transport. */
function fingerprintOf(config: EmailConfig): string {
  return createHash('sha256')
    .update(JSON.stringify([config.smtpHost, portOf(config), config.smtpSecurity, config.smtpUser, config.smtpPassword, config.smtpCaCert]))
    .digest('hex');
}

/** What PennyPost uses of a nodemailer transport (pooled or not). */
interface Transport {
  sendMail(mail: ReturnType<typeof mailOf>): Promise<{ messageId: string }>;
  verify(): Promise<unknown>;
  close(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

let nodemailer: Promise<typeof import('nodemailer')> | undefined;

/**
 * nodemailer is loaded with the first mail, not with the server: its module start (~100 ms,
 * measured bundled) stays out of the start of every server, most of which have no email channel.
 */
const loadNodemailer = () => (nodemailer ??= import('nodemailer'));

/** The outbound policy of the channel's account, asked again for every connection. */
export type ScopeOf = () => Promise<OutboundScope>;

/** nodemailer's getSocket: a connected socket, or why there is none. */
type SocketCallback = (error: Error | null, socketOptions?: { connection: net.Socket }) => void;

/**
 * Connections to the mail server are PennyPost's own (nodemailer's `getSocket`): through the
 * outbound policy's lookup, so the server's name is checked on every connection as it resolves
 * then (server/http/outbound-policy.ts), and refused addresses are never connected to.
 */
function socketGetter(config: EmailConfig, timeoutMs: number, scopeOf: ScopeOf) {
  return (_options: unknown, callback: SocketCallback): void => {
    const port = portOf(config);
    scopeOf().then(
      (scope) => {
        const refusal = scope.refusalForName(config.smtpHost, port);
        if (refusal) {
          callback(refusal);
          return;
        }
        const socket = net.connect({ host: config.smtpHost, port, lookup: scope.lookupFor(port) });
        const timer = setTimeout(() => {
          socket.destroy();
          callback(Object.assign(new Error(`Connection timeout after ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
        }, timeoutMs);
        const failed = (error: Error) => {
          clearTimeout(timer);
          callback(error);
        };
        socket.once('error', failed);
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.removeListener('error', failed);
          callback(null, { connection: socket });
        });
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  };
}

async function createTransport(config: EmailConfig, timeoutMs: number, pool: boolean, scopeOf: ScopeOf): Promise<Transport> {
  const { createTransport: create } = await loadNodemailer();
  const timeout = Math.max(1000, timeoutMs);
  const options = {
    getSocket: socketGetter(config, timeout, scopeOf),
    host: config.smtpHost,
    port: portOf(config),
    secure: config.smtpSecurity === 'tls',
    requireTLS: config.smtpSecurity === 'starttls',
    ignoreTLS: config.smtpSecurity === 'none',
    ...(config.smtpUser ? { auth: { user: config.smtpUser, pass: config.smtpPassword } } : {}),
    tls: { minVersion: 'TLSv1.2' as const, servername: isIP(config.smtpHost) ? undefined : config.smtpHost, ...(config.smtpCaCert ? { ca: config.smtpCaCert } : {}) },
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    logger: false,
    debug: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  return pool ? create({ ...options, pool: true, maxConnections: 3, maxMessages: 100, idleTimeout: 30_000 }) : create(options);
}

/** The pooled transport of each channel, replaced when its config changes and closed by `drop`. */
export class EmailTransports {
  private readonly entries = new Map<string, { fingerprint: string; transport: Promise<Transport> }>();
  get(channelId: string, config: EmailConfig, timeoutMs: number, scopeOf: ScopeOf): Promise<Transport> {
    const fingerprint = fingerprintOf(config);
    const entry = this.entries.get(channelId);
    if (entry?.fingerprint === fingerprint) return entry.transport;
    this.drop(channelId);
    const transport = createTransport(config, timeoutMs, true, scopeOf).then((created) => {
      // Failures reach each sendMail; an idle connection's end is the pool's business.
      created.on('error', () => undefined);
      return created;
    });
    this.entries.set(channelId, { fingerprint, transport });
    return transport;
  }

  drop(channelId: string): void {
    const entry = this.entries.get(channelId);
    if (!entry) return;
    this.entries.delete(channelId);
    void entry.transport.then((transport) => transport.close());
  }

  /** Closes every pooled transport (the server is stopping): their connections say QUIT now, not after 30 s idle. */
  async close(): Promise<void> {
    const transports = [...this.entries.values()].map((entry) => entry.transport);
    this.entries.clear();
    await Promise.allSettled(transports.map(async (transport) => (await transport).close()));
  }
}

/** The thread root's Message-ID of a group: deterministic per (app, group), on the sender's domain. */
export function threadRoot(thread: string, fromAddress: string): string {
  return `<pennypost-thread-${thread}@${fromAddress.slice(fromAddress.lastIndexOf('@') + 1)}>`;
}

function mailOf(config: EmailConfig, message: EmailMessage, to: string) {
  const root = message.thread ? threadRoot(message.thread, config.fromAddress) : '';
  return {
    from: config.fromName ? { name: config.fromName, address: config.fromAddress } : config.fromAddress,
    to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    headers: { ...message.headers, ...(root ? { 'In-Reply-To': root, References: root } : {}) },
  };
}

/** Server text with the password (plain or base64, alone or in an AUTH PLAIN string) taken out, and cut short. */
function redact(text: string, config: EmailConfig): string {
  let out = text;
  const { smtpUser: user, smtpPassword: password } = config;
  if (password) {
    const forms = [password, Buffer.from(password).toString('base64'), Buffer.from(`\0${user}\0${password}`).toString('base64')];
    for (const form of forms) out = out.split(form).join('••••');
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, 300);
}

interface MailError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
}

const TLS_WORDS = /certificate|self[- ]signed|ssl|tls|handshake|wrong version number|altnames|unable to verify|hostname\/ip does not match/i;

/** What went wrong setting up TLS, in plain words, with what to change. */
function tlsProblem(message: string, config: EmailConfig): string {
  if (/wrong version number|packet length too long|unknown protocol/i.test(message)) {
    return config.smtpSecurity === 'tls'
      ? 'the server does not speak TLS from the first byte on this port. Security tls is for port 465; for port 587 choose starttls.'
      : 'the server answered the TLS handshake with something else. Check smtpPort and smtpSecurity (587 starttls, 465 tls).';
  }
  if (/STARTTLS/i.test(message) || (config.smtpSecurity === 'starttls' && !/certificate|self[- ]signed|verify|altnames|does not match/i.test(message))) {
    return 'the server does not offer STARTTLS on this port, and PennyPost never sends the login or mail unencrypted when security is starttls. Use port 587 (starttls) or 465 (tls).';
  }
  if (/certificate|self[- ]signed|verify|altnames|does not match/i.test(message)) {
    return `the server's certificate is not trusted (${redact(message, config)}). smtpHost must be the name in the certificate; a self-hosted server with a self-signed certificate needs it in smtpCaCert.`;
  }
  return `${redact(message, config)}.`;
}

/** A nodemailer failure in PennyPost's classes, with the SMTP reply code as errcode. */
export function classify(error: unknown, config: EmailConfig): Failure {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as MailError;
  if (e.code === 'EPENNYPOSTREFUSED') return { cls: 'systemic', message: `PennyPost did not connect to the mail server: ${e.message ?? ''}` };
  const rc = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const said = e.response ? ` (server: ${redact(e.response, config)})` : '';
  const where = `${config.smtpHost}:${portOf(config)}`;
  const code = e.code ?? '';
  const text = redact(e.message ?? '', config);
  const withCode = (failure: Failure): Failure => (rc === undefined ? failure : { ...failure, errcode: rc });

  if (rc === 534 || rc === 535 || (code === 'EAUTH' && rc !== undefined && rc >= 500 && rc !== 530 && rc !== 538)) {
    return withCode({
      cls: 'systemic',
      message:
        `The mail server refused the login: check smtpUser and smtpPassword. Gmail, Outlook, QQ Mail, 163 and Fastmail want an app password ` +
        `(QQ Mail and 163 call it an authorization code), not the account's own password${said}.`,
    });
  }
  if (rc === 530 || rc === 538) {
    return withCode({
      cls: 'systemic',
      message: `The mail server wants a login over an encrypted connection first: set smtpUser and smtpPassword, with security starttls or tls${said}.`,
    });
  }
  if (code === 'EAUTH') return withCode({ cls: 'systemic', message: `The mail server offers no login this channel can use: ${text}${said}.` });
  const dropped = /ECONNRESET|disconnected before secure/i.test(e.message ?? '');
  if (code === 'ETLS' || (code !== 'EENVELOPE' && code !== 'EMESSAGE' && rc === undefined && !dropped && TLS_WORDS.test(e.message ?? ''))) {
    return { cls: 'systemic', message: `No secure connection to ${where}: ${tlsProblem(e.message ?? '', config)}` };
  }
  if (rc !== undefined && rc >= 400 && rc < 500) return withCode({ cls: 'transient', message: `The mail server deferred the message (${rc}); it will be tried again${said}.` });
  if (rc !== undefined && rc >= 500) {
    if (e.command === 'MAIL FROM') {
      return withCode({
        cls: 'systemic',
        message: `The mail server refused to send from fromAddress: it must usually be an address of the smtpUser account, or the account reached its sending limit${said}.`,
      });
    }
    if (e.command === 'RCPT TO' || code === 'EENVELOPE') {
      const what = rc === 552 ? 'this mailbox is full' : 'this address has no mailbox there, or the server will not deliver to it';
      return withCode({ cls: 'recipient', message: `The mail server refused the recipient: ${what}; check the address${said}.` });
    }
    if (e.command === 'DATA' || code === 'EMESSAGE') return withCode({ cls: 'recipient', message: `The mail server refused this message (${rc})${said}.` });
    return withCode({ cls: 'systemic', message: `The mail server refused a command (${rc}): is ${where} a mail submission server?${said}` });
  }
  if (/ENOTFOUND/.test(`${code} ${e.message ?? ''}`)) return { cls: 'systemic', message: `The mail server's name ${config.smtpHost} does not resolve: check smtpHost.` };
  return { cls: 'transient', message: `The mail server ${where} could not be reached or did not answer in time (${text || code || 'network error'}).` };
}

/** Resolves or rejects after at most `timeoutMs` (the pool keeps going; its result is then dropped). */
async function within<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sends one mail to one recipient through `transport`. */
export async function emailSend(transport: Transport | Promise<Transport>, config: EmailConfig, message: EmailMessage, to: string, timeoutMs: number): Promise<Outcome> {
  try {
    const info = await within(
      Promise.resolve(transport).then((ready) => ready.sendMail(mailOf(config, message, to))),
      timeoutMs,
    );
    return { ok: true, msgId: info.messageId.replace(/^<|>$/g, '') };
  } catch (error) {
    return { ok: false, ...classify(error, config) };
  }
}

/** push.testChannel: connect and log in on a fresh connection (verify), or send the test mail to `to`. */
export async function emailTest(config: EmailConfig, message: EmailMessage | null, to: string | undefined, timeoutMs: number, scopeOf: ScopeOf): Promise<Outcome> {
  const transport = await createTransport(config, timeoutMs, false, scopeOf);
  try {
    if (!message || !to) {
      await within(transport.verify(), timeoutMs);
      return { ok: true };
    }
    return await emailSend(transport, config, message, to, timeoutMs);
  } catch (error) {
    return { ok: false, ...classify(error, config) };
  } finally {
    transport.close();
  }
}
