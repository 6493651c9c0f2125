import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { Type } from '@sinclair/typebox';
import { OneOf } from '../../api/params';
import { commonErrors } from '../../lib/errors';
import { escapeHtml } from '../html';
import { renderMarkdown } from '../page';
import type { Priority } from '../message-options';
import { maskSecrets, testMessage, text, type ChannelDriver, type OutgoingMessage } from './driver';
import {
  certificateFingerprint,
  emailSend,
  emailTest,
  EmailTransports,
  isLocalHost,
  normalizePem,
  portOf,
  SMTP_SECURITIES,
  type EmailConfig,
  type EmailMessage,
  type SmtpSecurity,
} from './email-api';

/**
 * Email over SMTP (docs/push.md §3 "Email (SMTP)"; the SMTP side is ./email-api.ts): the channel
 * holds a mail account (server, security, login with an app password, sender); each recipient is an
 * email address and gets a mail of their own: the title as subject, the desp as sanitised HTML
 * (the message page's renderer) with a plain-text alternative, and the message page link.
 */

const config = Type.Object({
  smtpHost: Type.String({ maxLength: 253, description: 'SMTP server name, e.g. smtp.gmail.com.', examples: ['smtp.gmail.com'] }),
  smtpPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'port; 0 (default) = 587 for starttls, 465 for tls, 25 for none.' })),
  smtpSecurity: Type.Optional(
    OneOf(SMTP_SECURITIES, {
      description:
        '"starttls" (default: STARTTLS required, never plain), "tls" (TLS from the first byte, port 465) or "none" (only for servers on this computer or the local network).',
    }),
  ),
  smtpUser: Type.Optional(
    Type.String({ maxLength: 254, description: 'login, usually the mail address ("" = the server takes mail without a login).', examples: ['me@gmail.com'] }),
  ),
  smtpPassword: Type.Optional(
    Type.String({
      maxLength: 256,
      description:
        'password of the login: an app password (Gmail, Outlook, Fastmail) or authorization code (QQ Mail, 163). Returned masked; enter it again when the server, port, security, login or certificate changes.',
    }),
  ),
  fromAddress: Type.String({ maxLength: 254, description: 'sender address (most servers want the login’s own address).', examples: ['me@gmail.com'] }),
  fromName: Type.Optional(Type.String({ maxLength: 128, description: 'sender name shown by mail clients (default: none).', examples: ['PennyPost'] })),
  smtpCaCert: Type.Optional(
    Type.String({ maxLength: 16384, description: 'PEM certificate to trust for a self-hosted server with a self-signed certificate ("" = public CAs only).' }),
  ),
});

const SECRETS = { smtpPassword: 'SMTP password' };

/** An address this channel sends to (and from): ASCII local part and a dotted domain name; no display names, no lists. */
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const HOST = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export const isEmailAddress = (value: string): boolean => EMAIL.test(value) && !value.startsWith('.') && !value.includes('..');

/** Priority headers: X-Priority (1 highest – 5 lowest), Importance (RFC 2156/Outlook), Priority (RFC 2156). Normal sends none. */
export const PRIORITY_HEADERS: Record<Priority, Record<string, string>> = {
  low: { 'X-Priority': '5 (Lowest)', Importance: 'low', Priority: 'non-urgent' },
  normal: {},
  high: { 'X-Priority': '2 (High)', Importance: 'high' },
  urgent: { 'X-Priority': '1 (Highest)', Importance: 'high', Priority: 'urgent' },
};

const oneLine = (value: string) => value.replace(/[\r\n\t]+/g, ' ').trim();

/** The subject: the title on one line, after `[group] ` when the push has a group. */
export function subjectOf(title: string, group: string): string {
  const subject = oneLine(group ? `[${group}] ${title}` : title);
  return subject.length > 250 ? `${subject.slice(0, 249)}…` : subject;
}

/** The thread of (app, group): a hash that names it in the root Message-ID ('' without a group). */
export const threadOf = (appId: string, group: string): string => (group ? createHash('sha256').update(`${appId}\n${group}`).digest('hex').slice(0, 32) : '');

/** The mail of a push; its Markdown is rendered off the server's thread when it is long (markdown-pool.ts). */
export async function renderEmail(message: Pick<OutgoingMessage, 'appId' | 'appName' | 'title' | 'desp' | 'url' | 'priority' | 'group'>): Promise<EmailMessage> {
  const footer = `Sent by PennyPost · ${message.appName}${message.group ? ` · ${message.group}` : ''}`;
  const body = message.desp ? await renderMarkdown(message.desp) : `<p>${escapeHtml(message.title)}</p>`;
  const link = message.url ? `<p><a href="${escapeHtml(message.url)}">Open the message page</a></p>` : '';
  const html =
    '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>' +
    `<body style="font-family:-apple-system,'Segoe UI',Roboto,'PingFang SC','Microsoft YaHei',sans-serif;line-height:1.5">${body}${link}` +
    `<hr><p style="color:#888;font-size:12px">${escapeHtml(footer)}</p></body></html>`;
  const text = [message.desp || message.title, ...(message.url ? [message.url] : []), `-- \n${footer}`].join('\n\n');
  return { subject: subjectOf(message.title, message.group), text, html, headers: { ...PRIORITY_HEADERS[message.priority] }, thread: threadOf(message.appId, message.group) };
}

const invalid = (field: string, words: string) => commonErrors.invalid(`params.config.${field} ${words}`).at(`config.${field}`);

function normalize(input: Readonly<Record<string, unknown>>): EmailConfig {
  const smtpHost = text(input, 'smtpHost')
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (!smtpHost || !(HOST.test(smtpHost) || isIP(smtpHost))) throw invalid('smtpHost', 'is required: the SMTP server name, e.g. smtp.gmail.com');
  const smtpSecurity = (text(input, 'smtpSecurity') || 'starttls') as SmtpSecurity;
  if (!SMTP_SECURITIES.includes(smtpSecurity)) throw invalid('smtpSecurity', `must be one of ${SMTP_SECURITIES.join(', ')}`);
  if (smtpSecurity === 'none' && !isLocalHost(smtpHost)) {
    throw invalid('smtpSecurity', 'may be "none" only for a server on this computer or the local network: mail to the internet goes encrypted (starttls or tls)');
  }
  const smtpPort = input.smtpPort === undefined || input.smtpPort === '' ? 0 : Number(input.smtpPort);
  if (!Number.isInteger(smtpPort) || smtpPort < 0 || smtpPort > 65535) throw invalid('smtpPort', 'must be a port number (0 = the default of the security)');
  const smtpUser = text(input, 'smtpUser').trim();
  const smtpPassword = text(input, 'smtpPassword');
  if (/[\r\n]/.test(smtpUser)) throw invalid('smtpUser', 'must be one line');
  if (smtpUser && !smtpPassword) throw invalid('smtpPassword', 'is required with a login: an app password or authorization code of the account');
  if (!smtpUser && smtpPassword) throw invalid('smtpUser', 'is required with a password: the login, usually the mail address');
  const fromAddress = text(input, 'fromAddress').trim();
  if (!isEmailAddress(fromAddress)) throw invalid('fromAddress', 'is required: the sender mail address, e.g. me@gmail.com');
  const fromName = oneLine(text(input, 'fromName'));
  const pasted = text(input, 'smtpCaCert').trim();
  const smtpCaCert = pasted ? normalizePem(pasted) : '';
  if (smtpCaCert === null || (smtpCaCert && !certificateFingerprint(smtpCaCert))) {
    throw invalid('smtpCaCert', 'must be a PEM certificate (-----BEGIN CERTIFICATE----- …), or empty');
  }
  return { smtpHost, smtpPort, smtpSecurity, smtpUser, smtpPassword, fromAddress, fromName, smtpCaCert };
}

/** A push's mail is being rendered (its Markdown off the server's thread): every recipient's send waits for the same one. */
export const emailChannel: ChannelDriver<EmailConfig, Promise<EmailMessage>, 'email'> = {
  type: 'email',
  config,
  secrets: SECRETS,
  movedBy: ['smtpHost', 'smtpPort', 'smtpSecurity', 'smtpUser', 'smtpCaCert'],
  summary: ['smtpHost', 'fromAddress'],

  normalize,

  /** Where the password goes: server, port, security and login, and the certificate trusted besides the public CAs. */
  destination: (channel) => {
    const trusted = channel.smtpCaCert ? `#${certificateFingerprint(channel.smtpCaCert) ?? ''}` : '';
    return `smtp+${channel.smtpSecurity}://${encodeURIComponent(channel.smtpUser)}@${channel.smtpHost}:${portOf(channel)}${trusted}`;
  },

  /** The mail server (its name, checked again on every connection as it resolves then). */
  endpoints: (channel) => [{ field: 'config.smtpHost', host: channel.smtpHost, port: portOf(channel) }],

  mask: (channel) => maskSecrets(channel, SECRETS),

  checkAddress(_channel, address) {
    if (address.length > 254 || !isEmailAddress(address)) {
      throw commonErrors.invalid('params.address must be one email address (name@example.com; no display name, no list)').at('address');
    }
  },

  recipientLabel: (_channel, address) => address,

  /** Addresses mean the same through any mail server. */
  keepsRecipients: () => null,

  render: (message) => renderEmail(message),

  connect(env) {
    const transports = new EmailTransports();
    return {
      forget: (channelId) => transports.drop(channelId),
      close: () => transports.close(),

      delivery: (channel, email, message) => ({
        send: (recipient, timeoutMs) =>
          message.then((mail) =>
            emailSend(
              transports.get(channel.id, email, timeoutMs, () => env.outbound(channel.userId)),
              email,
              mail,
              recipient.address,
              timeoutMs,
            ),
          ),
      }),

      async test(channel, email, { address, timeoutMs, time }) {
        const where = `${email.smtpHost}:${portOf(email)} (${email.smtpSecurity === 'none' ? 'no encryption' : email.smtpSecurity.toUpperCase()})`;
        const { title, desp } = testMessage(channel, time);
        const message = address ? await renderEmail({ appId: channel.id, appName: channel.name, title, desp, priority: 'normal', group: '' }) : null;
        const outcome = await emailTest(email, message, address, timeoutMs, () => env.outbound(channel.userId));
        if (!outcome.ok) return { ok: false, message: outcome.message, class: outcome.cls, ...(outcome.errcode !== undefined ? { errcode: outcome.errcode } : {}) };
        if (!address) return { ok: true, message: `The mail server ${where} accepted the connection${email.smtpUser ? ' and the login' : ''}.` };
        return { ok: true, message: `The mail server ${where} accepted a test mail to ${address}.` };
      },
    };
  },
};
