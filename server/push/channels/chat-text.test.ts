import { describe, expect, it } from 'vitest';
import { parseTelegramHtml } from '../../test-support/fakes/fake-telegram';
import { cutText, fitChatText, renderChatText, slackMrkdwn, telegramHtml } from './chat-text';

/** Markdown in Telegram's HTML subset and Slack's mrkdwn: every block kind, escaping, unsafe links, cutting. */

const source = [
  '# Report <b>',
  '',
  '> quoted **x**',
  '> more',
  '',
  '1. one',
  '2. two',
  '   - nested',
  '',
  '```js',
  'if (a < b && c) {}',
  '```',
  '',
  '---',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  '![logo](https://ex.com/l.png) [bad](javascript:alert(1)) <i>raw</i> ~~gone~~',
].join('\n');

describe('chat text', () => {
  it('Telegram: only its tags, the rest escaped, unsafe links left as text', () => {
    const html = renderChatText(source, telegramHtml);
    expect(html).toBe(
      [
        '<b>Report &lt;b&gt;</b>',
        '',
        '<blockquote>quoted <b>x</b>\nmore</blockquote>',
        '',
        '1. one',
        '2. two',
        '  • nested',
        '',
        '<pre>if (a &lt; b &amp;&amp; c) {}</pre>',
        '',
        '──────',
        '',
        'a | b',
        '1 | 2',
        '',
        '<a href="https://ex.com/l.png">logo</a> [bad](javascript:alert(1)) &lt;i&gt;raw&lt;/i&gt; <s>gone</s>',
      ].join('\n'),
    );
    expect(parseTelegramHtml(html)).not.toHaveProperty('error');
  });

  it('Slack: mrkdwn marks, quotes as "> " lines, <url|text> links', () => {
    expect(renderChatText(source, slackMrkdwn)).toBe(
      [
        '*Report &lt;b&gt;*',
        '',
        '> quoted *x*',
        '> more',
        '',
        '1. one',
        '2. two',
        '  • nested',
        '',
        '```\nif (a &lt; b &amp;&amp; c) {}```',
        '',
        '──────',
        '',
        'a | b',
        '1 | 2',
        '',
        '<https://ex.com/l.png|logo> [bad](javascript:alert(1)) &lt;i&gt;raw&lt;/i&gt; ~gone~',
      ].join('\n'),
    );
  });

  it('cuts the Markdown before rendering, so tags stay closed; plain text cuts keep whole characters', () => {
    const render = (markdown: string) => renderChatText(markdown, telegramHtml);
    const { text, cut } = fitChatText('**' + 'bold '.repeat(50) + '** tail', 60, render);
    expect(cut).toBe(true);
    expect(text.length).toBeLessThanOrEqual(60);
    expect(text).toMatch(/…$/);
    expect(parseTelegramHtml(text)).not.toHaveProperty('error');
    expect(fitChatText('short', 60, render)).toEqual({ text: 'short', cut: false });
    expect(cutText('😀😀😀😀', 5)).toBe('😀😀…');
    expect(cutText('abc', 5)).toBe('abc');
  });
});
