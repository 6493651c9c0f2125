import { hostname, networkInterfaces } from 'node:os';

/** Normalises IPv4-mapped IPv6 (`::ffff:127.0.0.1`) to plain IPv4. */
export function normalizeAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export function isLoopback(address: string | undefined): boolean {
  const a = normalizeAddress(address);
  return a === '::1' || a.startsWith('127.');
}

/**
 * The key a per-address rate limit counts a caller under. Every loopback address (127.0.0.0/8 and
 * ::1) is this one machine: one bucket, however many 127.x.y.z a local program binds to (before, each
 * was counted as a new caller). An IPv6 caller counts by its /64, the block one host or household
 * is handed, so cycling through addresses of the same network does not reset the count.
 */
export function addressBucket(address: string | undefined): string {
  const a = normalizeAddress(address);
  if (isLoopback(a)) return 'loopback';
  if (a.includes(':')) {
    const [head = '', tail = ''] = a.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = a.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
    return `${groups
      .slice(0, 4)
      .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
      .join(':')}::/64`;
  }
  return a;
}

/** An IPv6 address without its zone index: "fe80::1%eth0" → "fe80::1". */
function withoutZone(address: string): string {
  const percent = address.indexOf('%');
  return percent === -1 ? address : address.slice(0, percent);
}

/** Host names and addresses that name this machine (for the Host header check). */
export function localHostNames(): string[] {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const host = hostname().toLowerCase();
  names.add(host);
  names.add(`${host}.local`);
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) {
      names.add(info.family === 'IPv6' ? `[${withoutZone(info.address).toLowerCase()}]` : info.address);
    }
  }
  return [...names];
}

/** The host part of a Host header, lower-cased, without port: "Example.com:80" → "example.com". */
export function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end > 0 ? value.slice(0, end + 1) : null;
  }
  const colon = value.indexOf(':');
  return colon >= 0 ? value.slice(0, colon) : value;
}

/** Headers a reverse proxy adds; their presence means the real caller is somewhere else. */
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'x-forwarded-host'];

/** A loopback caller that did not come through a proxy (see ActionContext.fromThisComputer). */
export function isFromThisComputer(address: string | undefined, headers: Record<string, unknown>): boolean {
  return isLoopback(address) && !PROXY_HEADERS.some((name) => headers[name] !== undefined);
}
