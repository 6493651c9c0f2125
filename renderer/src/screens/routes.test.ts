import { describe, expect, it } from 'vitest';
import en from '../i18n/en.json';
import zh from '../i18n/zh-CN.json';
import { ALIASES, canonicalPath, ROUTES, routeAt, titleKey } from './routes';

describe('the route table', () => {
  it('has one route per path and per screen, each named in both languages', () => {
    expect(new Set(ROUTES.map((r) => r.path)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => r.key)).size).toBe(ROUTES.length);
    for (const route of ROUTES) {
      expect(route.path).toMatch(/^\/[a-z]*$/);
      expect(en[route.key].title, titleKey(route)).toBeTruthy();
      expect(zh[route.key].title, titleKey(route)).toBeTruthy();
    }
  });

  it('finds a screen by its path only', () => {
    expect(routeAt('/records')?.key).toBe('records');
    expect(routeAt('/')?.key).toBe('dashboard');
    expect(routeAt('/records/1')).toBeUndefined();
  });

  it('knows a screen by its alias too: /statistics is Statistics (issue 36: it was "Page not found")', () => {
    expect(routeAt('/statistics')?.key).toBe('stats');
    expect(canonicalPath('/statistics')).toBe('/stats');
    expect(canonicalPath('/records')).toBe('/records');
    for (const [alias, path] of Object.entries(ALIASES)) {
      expect(alias).toMatch(/^\/[a-z]+$/);
      expect(ROUTES.some((route) => route.path === path)).toBe(true);
      expect(ROUTES.some((route) => route.path === alias)).toBe(false);
    }
  });
});
