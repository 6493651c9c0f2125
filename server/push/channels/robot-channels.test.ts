import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { FakeDingtalk, FakeDiscord, FakeFeishu, FakeSlack, FakeWecom, type FakeRobot, type RobotStep } from '../../test-support/fakes/fake-robot';
import { listenFake } from '../../test-support/fakes/listen';
import type { Outcome } from '../deliver';
import { DesktopHub } from '../desktop';
import { dingtalkChannel } from './dingtalk';
import { discordChannel } from './discord';
import type { ChannelDriver, OutgoingMessage } from './driver';
import { feishuChannel } from './feishu';
import { slackChannel } from './slack';
import { wecomChannel } from './wecom';
import { withOutbound } from '../tests/channel-env';
import { CHANNEL as channel, NOW, outgoing, PLAIN_APP as app, refusal } from '../tests/channel-bed';

/**
 * What every single-destination webhook channel (./robot-driver.ts) does, run for each of them from
 * one table against its fake: the URL check and masking, one recipient, delivery, a refused hook, a
 * rate limit, a failing service, an unreachable one, the secret cut out of what the service says
 * back, and the channel test. What is particular to a service stays in its own test file.
 */

const WECOM_KEY = '693a91f6-7f0e-4bc4-97a0-0ec2a1fa5a1b';
const DING_TOKEN = 'b3c1f0e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1';
const DING_SECRET = 'SEC0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd';
const FEISHU_HOOK = '2d4e6f80-1a3b-4c5d-8e9f-a0b1c2d3e4f5';
const FEISHU_SECRET = 'Ulx4iWUw7X5w3mHtyfKbVf';
const DISCORD = 'https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdefghij';
const SLACK = 'https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/AbCdEfGhIjKlMnOpQrStUvWx';
const SLACK_SECRET = 'fakeslacksecret0123456789';

const message = outgoing();

interface RobotCase {
  driver: ChannelDriver<any, any>;
  fake: FakeRobot<any>;
  /** Makes the fake know the hook the deliveries use. */
  setup?(): void;
  /** The config input of that hook on the fake, and of one it does not know. */
  config(): Record<string, unknown>;
  unknown(): Record<string, unknown>;
  /** The credential that must never show in an outcome or a test answer. */
  credential(): string;
  /** The service's own URL; the config it becomes (given with spaces around); another URL that must be accepted. */
  official: string;
  normalized: Record<string, unknown>;
  accepted: string[];
  /** Another hook of the service: another destination. */
  another: string;
  /** Config input → the config answers show. */
  masked: [Record<string, unknown>, Record<string, unknown>];
  secrets: Record<string, string>;
  /** Inputs refused at config.webhookUrl, never echoing `abcdef123456`. */
  refusals: Array<[Record<string, unknown>, RegExp]>;
  /** A signing secret of the wrong shape (refused at config.signingSecret, not echoed). */
  badSecret?: [string, RegExp];
  self: string;
  /** What the unknown hook answers. */
  unknownAnswer: { errcode: number; message?: RegExp };
  /** Brings the fake to its rate limit after `passes` messages; the outcome then. */
  rateLimit: { arrange(): void; passes: number; errcode: number; retryable: false | undefined; message: RegExp };
  serverError: number;
  /** A service answer that quotes the credential, and its class and code. */
  echo(): RobotStep;
  echoed: { cls: string; errcode: number };
  /** push.testChannel: its words, the address it needs to post (Discord), what the fake got (`shown`, matched by `testSent`). */
  tested: string | RegExp;
  testAddress?: string;
  shown(post: any): string;
  testSent: RegExp;
  /** A wrong credential in a hook of the right shape: systemic. */
  wrongCredential?: { config(): Record<string, unknown>; errcode: number; message?: RegExp };
  /** A body the service refuses: the message's fault (`recipient`). */
  refusedBody?: { payload: unknown; errcode: number; message: RegExp };
  /** A short wait the service asks for, waited out within the call's time. */
  shortWait?: { step: RobotStep; timeoutMs: number };
  /** Signing robots: the code of a refused signature, a wrong secret and what is said then, how far this computer's clock may be off, the secret a failing test uses. */
  signing?: { errcode: number; wrongSecret: string; wrong: RegExp; late?: RegExp; drift: { ok: number; refused: number }; testSecret: string };
}

const clock = new ManualClock(NOW);
const wecom = new FakeWecom(() => clock.now());
// Signing robots check the signature's time against their own clock, which stays at NOW while the tests move this computer's.
const dingtalk = new FakeDingtalk(() => NOW);
const feishu = new FakeFeishu(() => NOW);
const discord = new FakeDiscord();
const slack = new FakeSlack('T0FAKE123', 'B0FAKE456', SLACK_SECRET);

const CASES: Record<string, RobotCase> = {
  wecom: {
    driver: wecomChannel,
    fake: wecom,
    setup: () => wecom.keys.add(WECOM_KEY),
    config: () => ({ webhookUrl: wecom.hook(WECOM_KEY) }),
    unknown: () => ({ webhookUrl: wecom.hook('0000-unknown-key-0000') }),
    credential: () => WECOM_KEY,
    official: `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${WECOM_KEY}`,
    normalized: { webhookUrl: `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${WECOM_KEY}`, wecomFormat: 'markdown' },
    accepted: [`http://127.0.0.1:9/cgi-bin/webhook/send?key=${WECOM_KEY}`],
    another: `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${WECOM_KEY.replace('5a1b', '5a1c')}`,
    masked: [{ webhookUrl: `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${WECOM_KEY}` }, { webhookUrl: '•••• qyapi.weixin.qq.com …5a1b', wecomFormat: 'markdown' }],
    secrets: { webhookUrl: 'webhook URL' },
    refusals: [
      [{}, /webhookUrl is required/],
      [{ webhookUrl: 'not a url' }, /must be an http\(s\) URL/],
      [{ webhookUrl: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send' }, /shape of a WeCom group robot's webhook URL/],
      [{ webhookUrl: 'https://example.net/hook?key=abcdefgh1234' }, /shape/],
      [{ webhookUrl: `http://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${WECOM_KEY}` }, /must start with https:\/\//],
      [{ webhookUrl: 'https://oapi.dingtalk.com/robot/send?access_token=abcdef123456' }, /webhook URL of a DingTalk robot: create a channel of that type/],
    ],
    self: 'group',
    unknownAnswer: { errcode: 93000, message: /does not know this robot key/ },
    rateLimit: {
      arrange: () => {
        wecom.perMinute = 1;
      },
      passes: 1,
      errcode: 45009,
      retryable: false,
      message: /20 messages a minute/,
    },
    serverError: 502,
    echo: () => ({ errcode: 12345, errmsg: `something about ${WECOM_KEY}` }),
    echoed: { cls: 'recipient', errcode: 12345 },
    tested: /posted a test message/,
    shown: (post) => post.content,
    testSent: /^\*\*PennyPost test message\*\*\n\nThis is a test of the channel "Ops group"/,
  },

  dingtalk: {
    driver: dingtalkChannel,
    fake: dingtalk,
    setup: () => dingtalk.robots.set(DING_TOKEN, { secret: DING_SECRET }),
    config: () => ({ webhookUrl: dingtalk.hook(DING_TOKEN), signingSecret: DING_SECRET }),
    unknown: () => ({ webhookUrl: dingtalk.hook('unknownrobot') }),
    credential: () => DING_TOKEN,
    official: `https://oapi.dingtalk.com/robot/send?access_token=${DING_TOKEN}`,
    normalized: { webhookUrl: `https://oapi.dingtalk.com/robot/send?access_token=${DING_TOKEN}`, signingSecret: '' },
    accepted: [`http://127.0.0.1:9/robot/send?access_token=${DING_TOKEN}`],
    another: `https://oapi.dingtalk.com/robot/send?access_token=${DING_TOKEN.replace('b2c1', 'b2c2')}`,
    masked: [
      { webhookUrl: `https://oapi.dingtalk.com/robot/send?access_token=${DING_TOKEN}`, signingSecret: DING_SECRET },
      { webhookUrl: '•••• oapi.dingtalk.com …b2c1', signingSecret: '••••abcd' },
    ],
    secrets: { webhookUrl: 'webhook URL', signingSecret: 'signing secret' },
    refusals: [
      [{ webhookUrl: 'https://oapi.dingtalk.com/robot/send' }, /shape of a DingTalk robot/],
      [{ webhookUrl: 'https://open.feishu.cn/open-apis/bot/v2/hook/abcdefgh-1234' }, /webhook URL of a Feishu robot/],
      [{ webhookUrl: `https://oapi.dingtalk.com/robot/send?access_token=${DING_TOKEN}&timestamp=1&sign=x` }, /leave out timestamp and sign/],
    ],
    badSecret: ['not-a-secret', /SEC followed by letters and digits/],
    self: 'group',
    unknownAnswer: { errcode: 300001 },
    rateLimit: {
      arrange: () => {
        dingtalk.perMinute = 1;
      },
      passes: 1,
      errcode: 130101,
      retryable: false,
      message: /20 messages a minute/,
    },
    serverError: 503,
    echo: () => ({ errcode: 430102, errmsg: `含有不合适的文本 ${DING_TOKEN} ${DING_SECRET}` }),
    echoed: { cls: 'recipient', errcode: 430102 },
    tested: /accepted the robot's webhook and signature/,
    shown: (post) => post.title,
    testSent: /^PennyPost test message$/,
    signing: {
      errcode: 310000,
      wrongSecret: DING_SECRET.replace('SEC0', 'SEC1'),
      wrong: /signature did not match: copy the SEC… secret again/,
      late: /check this computer's clock/,
      drift: { ok: 3_600_000, refused: 3_600_001 },
      testSecret: '',
    },
  },

  feishu: {
    driver: feishuChannel,
    fake: feishu,
    setup: () => feishu.bots.set(FEISHU_HOOK, { secret: FEISHU_SECRET }),
    config: () => ({ webhookUrl: feishu.hook(FEISHU_HOOK), signingSecret: FEISHU_SECRET }),
    unknown: () => ({ webhookUrl: feishu.hook('unknownbot-01') }),
    credential: () => FEISHU_HOOK,
    official: `https://open.feishu.cn/open-apis/bot/v2/hook/${FEISHU_HOOK}`,
    normalized: { webhookUrl: `https://open.feishu.cn/open-apis/bot/v2/hook/${FEISHU_HOOK}`, signingSecret: '' },
    accepted: [`https://open.larksuite.com/open-apis/bot/v2/hook/${FEISHU_HOOK}`, `http://127.0.0.1:9/open-apis/bot/v2/hook/${FEISHU_HOOK}`],
    another: `https://open.larksuite.com/open-apis/bot/v2/hook/${FEISHU_HOOK}`,
    masked: [
      { webhookUrl: `https://open.larksuite.com/open-apis/bot/v2/hook/${FEISHU_HOOK}`, signingSecret: FEISHU_SECRET },
      { webhookUrl: '•••• open.larksuite.com …e4f5', signingSecret: '••••KbVf' },
    ],
    secrets: { webhookUrl: 'webhook URL', signingSecret: 'signing secret' },
    refusals: [
      [{ webhookUrl: 'https://open.feishu.cn/open-apis/bot/v2/hook/' }, /shape of a Feishu\/Lark bot/],
      [{ webhookUrl: `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${FEISHU_HOOK}` }, /WeCom/],
    ],
    badSecret: ['has spaces in it', /signature verification/],
    self: 'group',
    unknownAnswer: { errcode: 19001 },
    rateLimit: {
      arrange: () => {
        feishu.perSecond = 1;
      },
      passes: 1,
      errcode: 11232,
      // Retried with backoff: the per-second limit passes.
      retryable: undefined,
      message: /more slowly/,
    },
    serverError: 500,
    echo: () => ({ code: 230099, msg: `bad ${FEISHU_HOOK}` }),
    echoed: { cls: 'recipient', errcode: 230099 },
    tested: "Feishu accepted the bot's webhook and signature and posted a test card to its group.",
    shown: (post) => post.body.header.title.content,
    testSent: /^PennyPost test message$/,
    signing: {
      errcode: 19021,
      wrongSecret: FEISHU_SECRET.slice(1) + 'x',
      wrong: /copy its secret again .* check this computer's clock/,
      drift: { ok: 3_600_999, refused: 3_601_000 },
      testSecret: 'WrongSecret1',
    },
  },

  discord: {
    driver: discordChannel,
    fake: discord,
    config: () => ({ webhookUrl: discord.webhookUrl }),
    unknown: () => ({ webhookUrl: discord.webhookUrl.replace(discord.webhookId, '1111111111111111111') }),
    credential: () => discord.token,
    official: DISCORD,
    normalized: { webhookUrl: DISCORD },
    accepted: [`${DISCORD}?thread_id=987654321`, 'http://127.0.0.1:9/api/v10/webhooks/123456789/AbCdEfGhIjKlMnOpQrStUvWx'],
    another: DISCORD.replace('678/', '679/'),
    masked: [{ webhookUrl: DISCORD }, { webhookUrl: '••••ghij' }],
    secrets: { webhookUrl: 'webhook URL' },
    refusals: [undefined, 'discord', 'ftp://discord.com/api/webhooks/1234567/abc', 'https://discord.com/api/webhooks/123', `${DISCORD}?wait=false`, `${DISCORD}#x`].map(
      (webhookUrl) => [{ webhookUrl }, /Integrations/],
    ),
    self: 'discord',
    unknownAnswer: { errcode: 10015, message: /does not know this webhook \(HTTP 404\).*Unknown Webhook/ },
    rateLimit: { arrange: () => discord.program({ status: 429, retryAfter: 60 }), passes: 0, errcode: 429, retryable: false, message: /retry after 60 s/ },
    serverError: 500,
    echo: () => ({ code: 50035, msg: `Invalid Form Body ${discord.token}` }),
    echoed: { cls: 'recipient', errcode: 50035 },
    tested: "Discord posted a test message in the webhook's channel.",
    testAddress: 'now',
    shown: (post) => `${post.body.embeds[0].title}\n${post.body.embeds[0].description}`,
    testSent: /^PennyPost test message\n.*channel "Ops group"/,
    wrongCredential: { config: () => ({ webhookUrl: discord.webhookUrl.replace(discord.token, 'wrongTokenwrongTokenwrongToken') }), errcode: 50027 },
    refusedBody: { payload: { body: { allowed_mentions: { parse: [] }, embeds: [{ title: 'x', color: 0x1000000 }] } }, errcode: 50035, message: /Invalid Form Body/ },
    shortWait: { step: { status: 429, retryAfter: 0.2 }, timeoutMs: 3000 },
  },

  slack: {
    driver: slackChannel,
    fake: slack,
    config: () => ({ webhookUrl: slack.webhookUrl }),
    unknown: () => ({ webhookUrl: slack.webhookUrl.replace(slack.bot, 'B0OTHER99') }),
    credential: () => SLACK_SECRET,
    official: SLACK,
    normalized: { webhookUrl: SLACK },
    accepted: ['http://127.0.0.1:9/services/T0FAKE123/B0FAKE456/fakeSlackSecret0123456789'],
    another: SLACK.replace('UvWx', 'UvWy'),
    masked: [{ webhookUrl: SLACK }, { webhookUrl: '••••UvWx' }],
    secrets: { webhookUrl: 'webhook URL' },
    refusals: [undefined, 'slack', 'https://hooks.slack.com/triggers/T01/123/abc', `${SLACK}?x=1`, 'https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL'].map((webhookUrl) => [
      { webhookUrl },
      /incoming webhook URL/,
    ]),
    self: 'slack',
    unknownAnswer: { errcode: 404, message: /no_service/ },
    rateLimit: { arrange: () => slack.program({ status: 429, retryAfter: 30 }), passes: 0, errcode: 429, retryable: false, message: /retry after 30 s/ },
    serverError: 500,
    // Slack quotes one error word: here the webhook's secret itself.
    echo: () => ({ status: 400, error: SLACK_SECRET }),
    echoed: { cls: 'recipient', errcode: 400 },
    tested: "Slack posted a test message in the webhook's channel.",
    shown: (post) => post.body.blocks[0].text.text,
    testSent: /^PennyPost test message$/,
    wrongCredential: { config: () => ({ webhookUrl: slack.webhookUrl.replace(SLACK_SECRET, 'wrongSecret0123456789') }), errcode: 403, message: /invalid_token/ },
    refusedBody: { payload: { body: { blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'x' } }] } }, errcode: 400, message: /invalid_blocks/ },
    shortWait: { step: { status: 429, retryAfter: 1 }, timeoutMs: 2500 },
  },
};

describe.each(Object.entries(CASES))('%s (the shared robot-channel behaviour)', (_type, c) => {
  const { driver, fake } = c;
  const link = driver.connect(withOutbound({ clock, desktop: new DesktopHub() }));
  const limits = { perMinute: fake.perMinute, perSecond: fake.perSecond };
  const answers: unknown[] = [];
  let config: object;
  const send = async (input = config, overrides: Partial<OutgoingMessage> = {}, timeoutMs = 1000): Promise<Outcome> => {
    const outcome = await link.delivery(channel, input, driver.render({ ...message, ...overrides }, app)).send(driver.self!, timeoutMs);
    answers.push(outcome);
    return outcome;
  };

  beforeAll(async () => {
    await fake.start();
    c.setup?.();
    config = driver.normalize(c.config());
  });
  afterAll(async () => {
    await fake.close();
    expect(answers.length).toBeGreaterThan(0);
    expect(JSON.stringify(answers)).not.toContain(c.credential());
  });
  beforeEach(() => {
    clock.set(NOW);
    fake.sent.length = 0;
    fake.steps.length = 0;
    fake.resetLimits();
    Object.assign(fake, limits);
  });

  it('takes its webhook URL (trimmed, any http(s) host with the service’s path); the URL is the destination and moves the secrets', () => {
    expect(driver.normalize({ webhookUrl: ` ${c.official} ` })).toEqual(c.normalized);
    for (const url of c.accepted) expect(() => driver.normalize({ webhookUrl: url }), url).not.toThrow();
    const normalized = driver.normalize({ webhookUrl: c.official });
    expect(driver.destination(normalized)).toBe(c.official);
    expect(driver.destination(driver.normalize({ webhookUrl: c.another }))).not.toBe(driver.destination(normalized));
    expect(driver.movedBy).toEqual(['webhookUrl']);
  });

  it('refuses what cannot be its webhook URL, naming the field and never echoing the URL', () => {
    for (const [input, pattern] of c.refusals) {
      const error = refusal(() => driver.normalize(input));
      expect(error.field, String(input.webhookUrl)).toBe('config.webhookUrl');
      expect(error.message).toMatch(pattern);
      expect(error.message).not.toContain('abcdef123456');
    }
    if (c.badSecret) {
      const [secret, pattern] = c.badSecret;
      const error = refusal(() => driver.normalize({ webhookUrl: c.official, signingSecret: secret }));
      expect(error).toMatchObject({ field: 'config.signingSecret', message: expect.stringMatching(pattern) });
      expect(error.message).not.toContain(secret);
    }
  });

  it('masks its secrets in answers (an empty one stays empty)', () => {
    const [input, shown] = c.masked;
    const masked = driver.mask(driver.normalize(input));
    expect(masked).toEqual(shown);
    expect(JSON.stringify(masked)).not.toContain(String(input.webhookUrl).split(/[=/]/).pop()!.slice(0, 8));
    expect(driver.secrets).toEqual(c.secrets);
    if ('signingSecret' in c.secrets) expect(driver.mask(driver.normalize({ webhookUrl: c.official })).signingSecret).toBe('');
  });

  it('keeps no recipients: every push goes to the one place its webhook names', () => {
    expect(driver.self).toMatchObject({ label: c.self, address: c.self });
    expect(refusal(() => driver.checkAddress(config, 'someone'))).toMatchObject({ field: 'appId', message: expect.stringMatching(/need no recipients/) });
    expect(driver.keepsRecipients(config, config, 'config')).toBeNull();
  });

  it('delivers one message to the fake service', async () => {
    expect(await send()).toMatchObject({ ok: true });
    expect(fake.sent).toHaveLength(1);
  });

  it('a hook the service does not know is systemic', async () => {
    const outcome = await send(driver.normalize(c.unknown()));
    expect(outcome).toMatchObject({ ok: false, cls: 'systemic', errcode: c.unknownAnswer.errcode });
    if (c.unknownAnswer.message && !outcome.ok) expect(outcome.message).toMatch(c.unknownAnswer.message);
    expect(fake.sent).toHaveLength(0);
  });

  const { wrongCredential, refusedBody, shortWait } = c;
  if (wrongCredential) {
    it('a wrong credential is systemic', async () => {
      const outcome = await send(driver.normalize(wrongCredential.config()));
      expect(outcome).toMatchObject({ ok: false, cls: 'systemic', errcode: wrongCredential.errcode });
      if (wrongCredential.message && !outcome.ok) expect(outcome.message).toMatch(wrongCredential.message);
    });
  }

  if (refusedBody) {
    it('a body the service refuses is the message’s fault', async () => {
      const outcome = await link.delivery(channel, config, refusedBody.payload).send(driver.self!, 1000);
      answers.push(outcome);
      expect(outcome).toMatchObject({ ok: false, cls: 'recipient', errcode: refusedBody.errcode, message: expect.stringMatching(refusedBody.message) });
    });
  }

  const { signing } = c;
  if (signing) {
    it('a wrong secret, a clock off by more than an hour, or no signature is systemic; so is a test with a wrong secret', async () => {
      const signed = config as { signingSecret: string };
      const wrong = await send({ ...signed, signingSecret: signing.wrongSecret });
      expect(wrong).toMatchObject({ ok: false, cls: 'systemic', errcode: signing.errcode, message: expect.stringMatching(signing.wrong) });
      expect(JSON.stringify(wrong)).not.toContain(signed.signingSecret);
      clock.set(NOW + signing.drift.ok);
      expect(await send()).toEqual({ ok: true });
      clock.set(NOW - signing.drift.refused);
      expect(await send()).toMatchObject({ ok: false, cls: 'systemic', errcode: signing.errcode, ...(signing.late ? { message: expect.stringMatching(signing.late) } : {}) });
      clock.set(NOW);
      expect(await send({ ...signed, signingSecret: '' })).toMatchObject({ ok: false, cls: 'systemic', errcode: signing.errcode });
      expect(fake.sent).toHaveLength(1);
      const test = await link.test(channel, { ...signed, signingSecret: signing.testSecret }, { timeoutMs: 1000, time: NOW });
      expect(test).toMatchObject({ ok: false, class: 'systemic', errcode: signing.errcode });
    });
  }

  if (shortWait) {
    it('waits out a short rate limit within the call’s time', async () => {
      fake.program(shortWait.step);
      expect(await send(config, {}, shortWait.timeoutMs)).toMatchObject({ ok: true });
      expect(fake.sent).toHaveLength(1);
    });
  }

  it('a rate limit is transient, and not retried at once when the wait is long', async () => {
    c.rateLimit.arrange();
    for (let i = 0; i < c.rateLimit.passes; i++) expect(await send()).toMatchObject({ ok: true });
    const limited = await send();
    expect(limited).toMatchObject({ ok: false, cls: 'transient', errcode: c.rateLimit.errcode, message: expect.stringMatching(c.rateLimit.message) });
    expect(limited.ok ? undefined : limited.retryable).toBe(c.rateLimit.retryable);
  });

  it('a failing service (HTTP 5xx) is transient', async () => {
    fake.program({ status: c.serverError });
    expect(await send()).toMatchObject({ ok: false, cls: 'transient', errcode: c.serverError });
    expect(fake.sent).toHaveLength(0);
  });

  it('an unreachable service is transient, and the message never names the URL', async () => {
    const closed = await listenFake(() => undefined);
    await closed.close();
    const outcome = await send(driver.normalize({ ...c.config(), webhookUrl: String(c.config().webhookUrl).replace(fake.url, closed.url) }));
    expect(outcome).toMatchObject({ ok: false, cls: 'transient', message: expect.stringMatching(/could not be reached: .*could not connect/) });
    expect(JSON.stringify(outcome)).not.toContain(closed.url);
  });

  it('quotes what the service says back with the secrets cut out', async () => {
    fake.program(c.echo());
    const outcome = await send();
    expect(outcome).toMatchObject({ ok: false, ...c.echoed, message: expect.stringContaining('••••') });
    expect(JSON.stringify(outcome)).not.toContain(c.credential());
    if ('signingSecret' in c.secrets) expect(JSON.stringify(outcome)).not.toContain(String(c.config().signingSecret));
  });

  it('tests the channel by posting the test message; a broken hook fails the test as systemic', async () => {
    const test = { timeoutMs: 1000, time: NOW, ...(c.testAddress ? { address: c.testAddress } : {}) };
    const passed = await link.test(channel, config, test);
    expect(passed).toEqual({ ok: true, message: typeof c.tested === 'string' ? c.tested : expect.stringMatching(c.tested) });
    expect(c.shown(fake.sent.at(-1))).toMatch(c.testSent);
    const failed = await link.test(channel, driver.normalize(c.unknown()), test);
    expect(failed).toMatchObject({ ok: false, class: 'systemic', errcode: c.unknownAnswer.errcode });
    answers.push(passed, failed);
  });
});
