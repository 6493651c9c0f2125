import { afterAll, beforeAll, beforeEach } from 'vitest';
import { systemClock, type Clock } from '../../lib/clock';
import { DomainError } from '../../lib/errors';
import type { Outcome } from '../deliver';
import { DesktopHub } from '../desktop';
import type { AppForm, ChannelDriver, ChannelRef, ChannelTest, ChannelTestResult, OutgoingMessage, Recipient } from '../channels/driver';
import { withOutbound, type OutboundFacts } from './channel-env';

/**
 * What every channel driver's test starts from: one push to render, an app without a template, the
 * channel it belongs to, and the driver's live side with the real outbound policy, ready to deliver
 * to a fake service (server/test-support/fakes/).
 */

export const NOW = 1_767_000_000_000;

/** The push the driver tests render, with what a test changes. */
export function outgoing(changes: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    id: 'm1',
    userId: 'u1',
    appId: 'a1',
    appName: 'Backups',
    title: 'Backup finished',
    desp: 'All **3** jobs OK',
    time: NOW,
    url: 'https://pp.example.net/m/token',
    pagePath: '/m/token',
    priority: 'normal',
    group: '',
    ...changes,
  };
}

/** An app that sends the channel's own message form (no template). */
export const PLAIN_APP: AppForm = { messageType: '', templateId: '', templateFields: {} };

export const CHANNEL: ChannelRef = { id: 'c1', name: 'Ops group', userId: 'u1' };

/** The refusal `run` throws (a config or address check); anything else fails the test. */
export function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

export interface ChannelBed<Config extends object> {
  link: ReturnType<ChannelDriver<Config>['connect']>;
  /** Renders `message` and delivers it with `config` to `recipient` (the driver's own place by default). */
  send(config: Config, message?: OutgoingMessage, options?: { recipient?: Recipient; timeoutMs?: number }): Promise<Outcome>;
  /** push.testChannel through the driver (1 s, at NOW, unless the test says otherwise). */
  test(config: Config, test?: Partial<ChannelTest>): Promise<ChannelTestResult>;
  /** Every outcome and test answer so far, to check that no secret shows in them. */
  answers: unknown[];
}

/** A driver connected as a server connects it, for `channel` (CHANNEL) and `app` (PLAIN_APP). */
export function channelBed<Config extends object>(
  driver: ChannelDriver<Config>,
  options: { clock?: Clock; channel?: ChannelRef; app?: AppForm; facts?: OutboundFacts } = {},
): ChannelBed<Config> {
  const link = driver.connect(withOutbound({ clock: options.clock ?? systemClock, desktop: new DesktopHub() }, options.facts));
  const channel = options.channel ?? CHANNEL;
  const answers: unknown[] = [];
  const noted = async <T>(answer: Promise<T>): Promise<T> => {
    const value = await answer;
    answers.push(value);
    return value;
  };
  return {
    link,
    answers,
    send: (config, message = outgoing(), { recipient = driver.self, timeoutMs = 1000 } = {}) => {
      if (!recipient) throw new Error(`a ${driver.type} delivery needs a recipient`);
      return noted(link.delivery(channel, config, driver.render(message, options.app ?? PLAIN_APP)).send(recipient, timeoutMs));
    },
    test: (config, test = {}) => noted(link.test(channel, config, { timeoutMs: 1000, time: NOW, ...test })),
  };
}

interface Fake {
  start(): Promise<unknown>;
  close(): Promise<void>;
  sent: unknown[];
  /** A robot fake's programmed answers and rate limits (server/test-support/fakes/fake-robot.ts). */
  steps?: unknown[];
  resetLimits?(): void;
}

/**
 * A fake service for the tests of one describe block: started before them, closed after; before each,
 * what it received, its programmed answers and its rate limits are cleared, then `reset` runs.
 */
export function useFake(fake: Fake, reset?: () => void): void {
  beforeAll(async () => {
    await fake.start();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.sent.length = 0;
    if (fake.steps) fake.steps.length = 0;
    fake.resetLimits?.();
    reset?.();
  });
}
