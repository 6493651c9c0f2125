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

/** Host names and addresses that name this machine (for the Host header check). */
export function localHostNames(): string[] {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const host = hostname().toLowerCase();
  names.add(host);
  names.add(`${host}.local`);
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) {
      names.add(info.family === 'IPv6' ? `[${info.address.split('%')[0].toLowerCase()}]` : info.address);
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
