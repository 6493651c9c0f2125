/** URL checks the channels share: where a request goes, and whether two addresses are one place. */

/**
 * A destination in comparable form: the WHATWG-normalised URL (scheme and host lower-cased,
 * default port dropped, dot segments resolved) without trailing slashes, which the request paths
 * drop. Two addresses with the same key are the same destination; any other difference (scheme,
 * host, port, path, query, fragment, user info) makes a different one. '' for no address.
 */
export function destinationKey(value: string): string {
  if (!value) return '';
  try {
    const url = new URL(value);
    url.pathname = url.pathname.replace(/\/+$/, '');
    return url.href;
  } catch {
    return value;
  }
}

/** True when both are http(s) URLs of one origin (scheme, host and port). */
export function sameOrigin(a: string, b: string): boolean {
  try {
    const origin = new URL(a).origin;
    return origin !== 'null' && origin === new URL(b).origin;
  } catch {
    return false;
  }
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}
