import { endpointOfUrl, type Endpoint } from '../../http/outbound-policy';
import { commonErrors } from '../../lib/errors';

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

/** Whether a text holds a C0 control character or DEL (the URL parser drops some of them silently). */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * A base-URL field (WeChat `apiBase`, Telegram `telegramApiBase`, the webhook `url`): an http(s)
 * URL of scheme, host, optional port and path — no user info, no query, no fragment, no white space.
 * The channel appends its API paths to it, so a `?` or `#` would cut them off and send the request
 * to any address the field names (and quote what it answers). Returns the trimmed value, or throws
 * a 400 naming `config.<field>` that never repeats the value.
 */
export function checkBaseUrl(value: string, field: string, example: string): string {
  const text = value.trim();
  const refuse = (why: string) => commonErrors.invalid(`params.config.${field} ${why}, e.g. ${example}`).at(`config.${field}`);
  if (!isHttpUrl(text)) throw refuse('must be an http(s) URL');
  if (/\s/.test(text) || hasControlCharacter(text)) throw refuse('must not contain spaces or control characters');
  if (text.includes('?') || text.includes('#')) throw refuse('must be a plain base URL (scheme, host, port and path), without a query (?) or a fragment (#)');
  const url = new URL(text);
  const authority = text.slice(text.indexOf('//') + 2).split(/[/\\]/)[0] ?? '';
  if (url.username || url.password || authority.includes('@')) throw refuse('must not carry a user name or password');
  return text;
}

/** The outbound-policy endpoint of a URL field (see ChannelDriver.endpoints); none when it is not an http(s) URL. */
export function urlEndpoints(field: string, value: string): Endpoint[] {
  const endpoint = endpointOfUrl(`config.${field}`, value);
  return endpoint ? [endpoint] : [];
}
