/**
 * Host names compared the way the URL parser writes them, and which hosts always mean this machine
 * (loopback in every spelling). ./this-server.ts adds this machine's own names and addresses; short
 * links and PennyPost's own outbound requests (./outbound-policy.ts) both ask it.
 */

/**
 * A host name as the WHATWG URL parser writes it (lower case, IPv4 in dotted decimal whatever its
 * spelling, IPv6 in brackets and compressed, IDN in punycode), without trailing dots; null when it
 * is not a host. Accepts `name`, `name:port`, `[v6]`, `[v6]:port` and a bare IPv6 address.
 */
export function canonicalHost(name: string): string | null {
  const text = name.trim();
  const bracketed = !text.startsWith('[') && text.split(':').length > 2 ? `[${text}]` : text;
  try {
    return new URL(`http://${bracketed}/`).hostname.replace(/\.+$/, '') || null;
  } catch {
    return null;
  }
}

/** The 8 groups of an IPv6 address, each 0–0xffff. */
type Ipv6Groups = [number, number, number, number, number, number, number, number];

function hasEightGroups(groups: number[]): groups is Ipv6Groups {
  return groups.length === 8;
}

/** The 8 groups of an IPv6 address as the URL parser writes it (hex groups, at most one `::`). */
function ipv6Groups(address: string): Ipv6Groups | null {
  const parts = address.split('::');
  const [head] = parts;
  const tail = parts.at(1);
  const extra = parts.at(2);
  if (extra !== undefined) return null;
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  if (groups.some(Number.isNaN) || !hasEightGroups(groups)) return null;
  return groups;
}

/** 127.0.0.0/8 (loopback) and 0.0.0.0/8 (`0.0.0.0` connects to this machine), dotted decimal. */
function isLocalIPv4(address: string): boolean {
  const match = /^(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.exec(address);
  return match !== null && (match[1] === '127' || match[1] === '0');
}

/**
 * Whether a canonical host (canonicalHost) always means this machine: `localhost` and
 * `*.localhost`, 127.0.0.0/8, 0.0.0.0/8, `[::1]`, `[::]`, and those IPv4 addresses written as
 * IPv6 (`[::ffff:127.0.0.1]`, `[::127.0.0.1]`).
 */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isLocalIPv4(host)) return true;
  if (!host.startsWith('[') || !host.endsWith(']')) return false;
  const groups = ipv6Groups(host.slice(1, -1));
  if (!groups) return false;
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] <= 1) return true; // :: and ::1
  if (!groups.slice(0, 5).every((g) => g === 0) || (groups[5] !== 0xffff && groups[5] !== 0)) return false;
  const ipv4 = `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}`;
  // IPv4-mapped (::ffff:a.b.c.d) as the address it maps; the old IPv4-compatible form (::a.b.c.d) only for 127/8.
  return groups[5] === 0xffff ? isLocalIPv4(ipv4) : ipv4.startsWith('127.');
}
