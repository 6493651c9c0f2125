import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { findPart, parseMime, type MimePart } from './fake-smtp-mime';

/**
 * A mail submission server (RFC 5321/6409) for the email channel's tests, built on `smtp-server`:
 *
 * - STARTTLS with a TEST-ONLY self-signed certificate for localhost / 127.0.0.1
 *   (./fake-smtp-test-cert.pem and ./fake-smtp-test-key.pem; see ./fake-smtp-test-cert.md: the key is
 *   public and protects nothing), or implicit TLS (`implicitTls`), or no TLS at all (`starttls: false`);
 * - AUTH PLAIN / LOGIN offered only after TLS (like Gmail, Outlook, QQ Mail and 163), `535 5.7.8`
 *   for a wrong user or password, `530 5.7.0` for a message without a login;
 * - the sender must be the logged-in user (QQ Mail and 163 answer 501/553 otherwise);
 * - `550 5.1.1` for mailboxes it does not know (when `mailboxes` is set), and programmable answers
 *   per recipient (e.g. 450 greylisting, 452 over quota) or for DATA;
 * - every accepted message recorded raw and parsed (subject, html, text, headers).
 */

const here = import.meta.dirname;
export const FAKE_SMTP_CERT = readFileSync(path.join(here, 'fake-smtp-test-cert.pem'), 'utf8');
const FAKE_SMTP_KEY = readFileSync(path.join(here, 'fake-smtp-test-key.pem'), 'utf8');

export interface FakeSmtpOptions {
  /** Offer STARTTLS (default true); false: plain text only, and AUTH is offered in the clear. */
  starttls?: boolean;
  /** TLS from the first byte (port 465 style). */
  implicitTls?: boolean;
}

export interface ReceivedMail {
  /** MAIL FROM and RCPT TO. */
  from: string;
  to: string[];
  /** The logged-in user ('' without a login) and whether the session was encrypted. */
  user: string;
  secure: boolean;
  raw: string;
  headers: Map<string, string>;
  subject: string;
  /** The text/plain and text/html parts, decoded, with \n line ends. */
  text: string;
  html: string;
  mime: MimePart;
}

export interface SmtpAnswer {
  code: number;
  message: string;
}

const answerError = ({ code, message }: SmtpAnswer) => Object.assign(new Error(message), { responseCode: code });

export class FakeSmtp {
  private server!: SMTPServer;
  port = 0;
  readonly host = '127.0.0.1';
  /** Accounts: user → password (an app password, as the big providers want). */
  readonly accounts = new Map<string, string>([['sender@example.net', 'app-password-0001']]);
  /** Known mailboxes: any other recipient gets 550 (empty = every address is known). */
  readonly mailboxes = new Set<string>();
  /** Programmed RCPT TO answers per address (e.g. 450 greylisting), each used `times` times (Infinity = always). */
  private readonly rcptAnswers = new Map<string, { answer: SmtpAnswer; times: number }>();
  /** Programmed answer to the next DATA. */
  dataAnswer: SmtpAnswer | null = null;
  readonly received: ReceivedMail[] = [];
  /** Counters for the tests: connections opened, logins tried and refused. */
  connections = 0;
  /** Sessions connected now (a client's QUIT or a dropped socket removes its own; reset() leaves them). */
  readonly open = new Set<string>();
  logins = 0;
  refusedLogins = 0;
  /** Every AUTH attempt as it arrived (to prove no password goes out before TLS). */
  readonly authAttempts: { user: string; secure: boolean }[] = [];

  constructor(private readonly options: FakeSmtpOptions = {}) {}

  async start(): Promise<this> {
    const starttls = this.options.starttls ?? true;
    this.server = new SMTPServer({
      name: 'fake-smtp.test',
      secure: this.options.implicitTls === true,
      key: FAKE_SMTP_KEY,
      cert: FAKE_SMTP_CERT,
      disabledCommands: starttls || this.options.implicitTls ? [] : ['STARTTLS'],
      hideSTARTTLS: !starttls && !this.options.implicitTls,
      allowInsecureAuth: !starttls && !this.options.implicitTls,
      authMethods: ['PLAIN', 'LOGIN'],
      size: 10 * 1024 * 1024,
      logger: false,
      onConnect: (session, callback) => {
        this.connections++;
        this.open.add(session.id);
        callback();
      },
      onClose: (session) => {
        this.open.delete(session.id);
      },
      onAuth: (auth, session, callback) => {
        this.logins++;
        const user = auth.username ?? '';
        this.authAttempts.push({ user, secure: session.secure });
        if (this.accounts.get(user) !== auth.password) {
          this.refusedLogins++;
          callback(answerError({ code: 535, message: '5.7.8 Username and Password not accepted' }));
          return;
        }
        callback(null, { user });
      },
      onMailFrom: (address, session, callback) => callback(this.mailFrom(address, session)),
      onRcptTo: (address, _session, callback) => callback(this.rcptTo(address)),
      onData: (stream, session, callback) => this.data(stream, session, callback),
    });
    this.server.on('error', () => undefined);
    await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  reset(): void {
    this.received.length = 0;
    this.authAttempts.length = 0;
    this.mailboxes.clear();
    this.rcptAnswers.clear();
    this.dataAnswer = null;
    this.connections = 0;
    this.logins = 0;
    this.refusedLogins = 0;
  }

  /** Answers RCPT TO for `address` with `answer`, `times` times (default always). */
  answerRcpt(address: string, answer: SmtpAnswer, times = Infinity): void {
    this.rcptAnswers.set(address.toLowerCase(), { answer, times });
  }

  sentTo(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.includes(address.toLowerCase()));
  }

  private mailFrom(address: SMTPServerAddress, session: SMTPServerSession): Error | null {
    const user = typeof session.user === 'string' ? session.user : '';
    if (this.accounts.size > 0 && !user) return answerError({ code: 530, message: '5.7.0 Authentication required' });
    if (user && address.address.toLowerCase() !== user.toLowerCase()) {
      return answerError({ code: 553, message: '5.7.1 Sender address rejected: not owned by user ' + user });
    }
    return null;
  }

  private rcptTo(address: SMTPServerAddress): Error | null {
    const key = address.address.toLowerCase();
    const programmed = this.rcptAnswers.get(key);
    if (programmed && programmed.times > 0) {
      programmed.times--;
      return answerError(programmed.answer);
    }
    if (this.mailboxes.size > 0 && !this.mailboxes.has(key)) return answerError({ code: 550, message: `5.1.1 <${address.address}>: Recipient address rejected: User unknown` });
    return null;
  }

  private data(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null) => void): void {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (this.dataAnswer) {
        const answer = this.dataAnswer;
        this.dataAnswer = null;
        callback(answerError(answer));
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      const mime = parseMime(raw);
      this.received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address.toLowerCase() : '',
        to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
        user: typeof session.user === 'string' ? session.user : '',
        secure: session.secure,
        raw,
        headers: mime.headers,
        subject: mime.headers.get('subject') ?? '',
        text: (findPart(mime, 'text/plain')?.body ?? '').replace(/\r\n/g, '\n'),
        html: (findPart(mime, 'text/html')?.body ?? '').replace(/\r\n/g, '\n'),
        mime,
      });
      callback();
    });
  }
}
