import { describe, expect, it } from 'vitest';
import { DataDirLockedError } from '../server/db/database';
import { errorPageAction, errorPageDataUrl, startErrorPage, ACTION_FOLDER, ACTION_QUIT, ACTION_RETRY } from './error-page';

describe('start-error window', () => {
  it('explains a locked data dir in plain words, with the folder and what to do', () => {
    const error = new DataDirLockedError('/home/me/.config/PennyPost');
    const page = startErrorPage('locked', error.message, '/home/me/.config/PennyPost');
    expect(page.title).toBe('PennyPost is already running on this data');
    expect(page.html).toContain('already in use by another PennyPost process');
    expect(page.html).toContain('Data folder: /home/me/.config/PennyPost');
    expect(page.html).toContain('npm run serve');
    for (const action of [ACTION_RETRY, ACTION_FOLDER, ACTION_QUIT]) expect(page.html).toContain(`href="${action}"`);
  });

  it('is a static page: strict CSP, no script, escaped text', () => {
    const page = startErrorPage('failed', '<script>alert(1)</script> & "quotes"', '/tmp/<b>dir</b>');
    expect(page.html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(page.html).not.toMatch(/<script/i);
    expect(page.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quotes&#34;');
    expect(page.html).toContain('/tmp/&#60;b&#62;dir&#60;/b&#62;');
    expect(decodeURIComponent(errorPageDataUrl(page).replace(/^data:text\/html;charset=utf-8,/, ''))).toBe(page.html);
  });

  it('maps its buttons to actions and nothing else', () => {
    expect(errorPageAction(ACTION_RETRY)).toBe('retry');
    expect(errorPageAction(ACTION_QUIT)).toBe('quit');
    expect(errorPageAction(ACTION_FOLDER)).toBe('folder');
    expect(errorPageAction('https://example.com')).toBeNull();
  });
});
