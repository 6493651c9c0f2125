import { describe, expect, it } from 'vitest';
import { markdownText } from './markdown-text';

describe('a push history preview shows words, not Markdown (issue 36, finding 18)', () => {
  it('drops emphasis, code, links, headings, quotes, lists and tables', () => {
    expect(markdownText('All **3** jobs _OK_ — `backup.sh` ~~failed~~ done')).toBe('All 3 jobs OK — backup.sh failed done');
    expect(markdownText('# Disk\n> almost **full**\n- /var: 91%\n- /home: 40%\n1. clean up')).toBe('Disk almost full /var: 91% /home: 40% clean up');
    expect(markdownText('See [the log](https://example.com/log?x=1) and ![chart](c.png) <https://example.com/a>')).toBe('See the log and chart https://example.com/a');
    expect(markdownText('| host | load |\n|---|---:|\n| a | 0.5 |')).toBe('host load a 0.5');
    expect(markdownText('```\nnpm test\n```')).toBe('npm test');
  });

  it('keeps plain text as it is, and marks that are not Markdown', () => {
    expect(markdownText('Backup done: 3 jobs, 2 * 3 = 6, snake_case_name')).toBe('Backup done: 3 jobs, 2 * 3 = 6, snake_case_name');
    expect(markdownText('磁盘快满了：只剩 **3 GB**')).toBe('磁盘快满了：只剩 3 GB');
    expect(markdownText('a \\*literal\\* star')).toBe('a *literal* star');
  });
});
