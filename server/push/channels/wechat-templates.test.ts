import { describe, expect, it } from 'vitest';
import { checkTemplateFields, defaultTemplateFields, keywordMarkdown, keywordText, oneLine, templateKeywords, type WechatTemplate } from './wechat-templates';
import { refusal } from '../tests/channel-bed';

/** WeChat's template rules since 2023-05-04, on their own: keywords of a template, the default mapping, the mapping check, the 20-character line. */

const MODERN = '告警内容：{{thing1.DATA}}\n告警时间：{{time2.DATA}}\n告警详情：{{thing3.DATA}}\n单号：{{character_string4.DATA}}';
const LEGACY = '{{first.DATA}}\n告警内容：{{keyword1.DATA}}\n发生时间：{{keyword2.DATA}}\n{{remark.DATA}}';
const TEST_ACCOUNT = '{{title.DATA}} {{content.DATA}} {{time.DATA}}';

const templates: WechatTemplate[] = [
  { templateId: 'TPL_MODERN', title: '服务器告警', content: MODERN },
  { templateId: 'TPL_LEGACY', title: '告警通知', content: LEGACY },
  { templateId: 'TPL_TEST', title: '', content: TEST_ACCOUNT },
  { templateId: 'TPL_HIDDEN', title: 'Only head and foot', content: '{{first.DATA}}\n{{remark.DATA}}' },
];

describe('template keywords', () => {
  it('reads each placeholder of the content once, with the words before it on its line', () => {
    expect(templateKeywords(MODERN)).toEqual([
      { key: 'thing1', label: '告警内容' },
      { key: 'time2', label: '告警时间' },
      { key: 'thing3', label: '告警详情' },
      { key: 'character_string4', label: '单号' },
    ]);
    expect(templateKeywords(TEST_ACCOUNT).map((k) => k.key)).toEqual(['title', 'content', 'time']);
    expect(templateKeywords('A: {{x.DATA}} B: {{ y.DATA }} again {{x.DATA}}')).toEqual([
      { key: 'x', label: 'A' },
      { key: 'y', label: 'B' },
    ]);
    expect(templateKeywords('no placeholders')).toEqual([]);
  });
});

describe('the default mapping', () => {
  it('puts the time into a time keyword and the title and desp into text keywords, never into first or remark', () => {
    expect(defaultTemplateFields(templateKeywords(MODERN))).toEqual({ title: 'thing1', desp: 'thing3', time: 'time2' });
    // Keyword names say nothing in older templates: the label tells the time.
    expect(defaultTemplateFields(templateKeywords(LEGACY))).toEqual({ title: 'keyword1', desp: '', time: 'keyword2' });
    expect(defaultTemplateFields(templateKeywords(TEST_ACCOUNT))).toEqual({ title: 'title', desp: 'content', time: 'time' });
    expect(defaultTemplateFields(templateKeywords('{{first.DATA}}\n{{remark.DATA}}'))).toEqual({ title: '', desp: '', time: '' });
    // Only typed keywords left: the title still shows.
    expect(defaultTemplateFields(templateKeywords('单号：{{character_string1.DATA}}'))).toEqual({ title: 'character_string1', desp: '', time: '' });
  });

  it('keeps what it is given and fills the rest with other keywords', () => {
    expect(defaultTemplateFields(templateKeywords(MODERN), { title: 'thing3' })).toEqual({ title: 'thing3', desp: 'thing1', time: 'time2' });
    expect(defaultTemplateFields(templateKeywords(MODERN), { time: '' })).toEqual({ title: 'thing1', desp: 'thing3', time: '' });
  });
});

describe('checking a mapping against the template list', () => {
  it('answers the mapping to store, defaults filled in', () => {
    expect(checkTemplateFields(templates, 'TPL_MODERN', {})).toEqual({ title: 'thing1', desp: 'thing3', time: 'time2' });
    expect(checkTemplateFields(templates, 'TPL_MODERN', { desp: '' })).toEqual({ title: 'thing1', desp: '', time: 'time2' });
    // An update keeps stored parts that still fit, and remakes the ones that do not.
    expect(checkTemplateFields(templates, 'TPL_LEGACY', {}, { title: 'first', desp: 'keyword1', time: 'remark' })).toEqual({ title: 'keyword2', desp: 'keyword1', time: '' });
    expect(checkTemplateFields(templates, 'TPL_TEST', {}, { title: 'title', desp: 'content', time: 'time' })).toEqual({ title: 'title', desp: 'content', time: 'time' });
  });

  it('refuses a key the template lacks, and first or remark, naming the field and the keywords that show', () => {
    const missing = refusal(() => checkTemplateFields(templates, 'TPL_MODERN', { desp: 'keyword9' }));
    expect([missing.status, missing.field]).toEqual([400, 'templateFields.desp']);
    expect(missing.message).toBe(
      'params.templateFields.desp: the template TPL_MODERN ("服务器告警") has no field "keyword9"; its keywords are thing1, time2, thing3, character_string4',
    );
    const first = refusal(() => checkTemplateFields(templates, 'TPL_LEGACY', { title: 'first' }));
    expect([first.status, first.field]).toEqual([400, 'templateFields.title']);
    expect(first.message).toMatch(
      /WeChat has not shown a template's "first" field since 2023-05-04, so the title would not show; map it to one of the keywords that show: keyword1, keyword2$/,
    );
    expect(refusal(() => checkTemplateFields(templates, 'TPL_LEGACY', { time: 'remark' })).field).toBe('templateFields.time');
  });

  it('refuses a template the account does not have, and one with nothing that shows', () => {
    const unknown = refusal(() => checkTemplateFields(templates, 'NO_SUCH', {}));
    expect([unknown.status, unknown.field]).toEqual([400, 'templateId']);
    expect(unknown.message).toMatch(/has no template "NO_SUCH" \(4 in its template list\)/);
    expect(refusal(() => checkTemplateFields(templates, 'TPL_HIDDEN', {})).message).toMatch(/has no keyword WeChat shows/);
  });
});

describe('values as WeChat shows them', () => {
  it('one line of at most 20 characters, cut with …', () => {
    expect(keywordText('Disk almost full')).toBe('Disk almost full');
    expect(keywordText('12345678901234567890')).toBe('12345678901234567890');
    expect(keywordText('123456789012345678901')).toBe('1234567890123456789…');
    expect(keywordText('Backup\ndone\r\n\tok  now')).toBe('Backup done ok now');
    const chinese = keywordText('服务器磁盘空间即将用完请尽快清理日志文件否则服务将停止');
    expect(chinese).toBe('服务器磁盘空间即将用完请尽快清理日志文…');
    expect(Array.from(chinese)).toHaveLength(20);
    // Never inside an emoji: a family (7 code points) that does not fit is left out whole.
    const emoji = oneLine('1234567890123456 👨‍👩‍👧‍👦 tail', 20);
    expect(emoji).toBe('1234567890123456…');
    for (const sample of ['x'.repeat(500), 'a\nb\n'.repeat(100), '😀'.repeat(40)]) {
      const value = keywordText(sample);
      expect(Array.from(value).length).toBeLessThanOrEqual(20);
      expect(value).not.toMatch(/[\r\n]/);
    }
  });

  it('a Markdown desp as plain words: marks dropped, a link as its text', () => {
    expect(keywordMarkdown('/var is **91%** full')).toBe('/var is 91% full');
    expect(keywordMarkdown('# Report\n\n[disk](https://example.net) `ok`')).toBe('Report disk ok');
    expect(keywordMarkdown('- one\n- two')).toBe('• one • two');
    expect(keywordMarkdown('很长的消息'.repeat(2000))).toBe('很长的消息很长的消息很长的消息很长的消…');
  });
});
